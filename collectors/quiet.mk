# collectors/quiet.mk — what a build prints: one short line a step, as git, redis and the
# kernel do, so that what matters (a warning, an error, the ratchet's verdict) is not lost
# under hundreds of 300-to-550-character commands. Included by the Makefile and by
# collectors/collector-dir.mk (so by collectors/build.mk and tests/abi/abi.mk), after
# collectors/quote.mk.
#
#   make           "  CC      build/obj/cli.o", "  LD      build/gcratchet", one a step
#   make V=1       every command whole, as make echoes it
#   make -s        nothing but what the commands themselves say (warnings, errors)
#   BUILD_BRIEF=1  only a line a product: the CLI, its launcher and each collector's build
#                  folder (its manifest); what `make ratchet` and `make check` build with,
#                  so that their whole screen fits on one (the Makefile sets it for them)
#
# A recipe line starts with $(call gcr_say,TAG,WHAT): quiet, that is "@printf ...;" and the
# command after it runs unechoed; with V=1 it is nothing and make echoes the command. A step
# that makes a product says so with gcr_say_product; a line of a recipe that is part of a step
# already said (a rename after it) starts with $(Q). Compilers' own messages go to stderr
# as ever, whatever the setting. V reaches a sub-make by itself (a command line's variables
# do); BUILD_BRIEF set by the Makefile is passed on where a recipe makes a sub-make, never
# exported: a GCR_ name in the environment would reach gcratchet, which warns of each.
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
ifeq ($(V),1)
gcr_say :=
gcr_say_product :=
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
gcr_say = @
gcr_say_product = @
else
gcr_say_line = @printf '  %-7s %s\n' $(call gcr_shq,$(1)) $(call gcr_shq,$(2));
gcr_say = $(if $(filter 1,$(BUILD_BRIEF)),@,$(call gcr_say_line,$(1),$(2)))
gcr_say_product = $(call gcr_say_line,$(1),$(2))
endif
