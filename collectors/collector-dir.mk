# collectors/collector-dir.mk — reads one collector folder for collectors/build.mk and
# tests/abi/abi.mk, so that both take the same folders, with the same variables, and refuse
# the same mistakes in the same words. docs/out-of-tree.md is the user's side of this file.
#
# In:  ROOT (the gcratchet checkout), NAME and/or COLLECTOR_DIR. Without COLLECTOR_DIR the
#      folder is the shipped $(COLLECTOR_DIR_DEFAULT); without NAME, the folder's name.
# Out: what the folder's collector.mk (optional) left in these, after their defaults:
#   COLLECTOR_NAME     the collector's identity in manifests and baselines (default: the
#                      folder's name, so a variant built from a shipped folder keeps it)
#   COLLECTOR_VERSION  its version, also passed to the code as the string GCR_COLLECTOR_VERSION
#                      (default 0)
#   COLLECTOR_SRCS     its sources (default: every *.c in the folder; may name files elsewhere)
#   COLLECTOR_CFLAGS   compile flags for every source of the build, probes included (default
#                      none)
#   COLLECTOR_LIBS     link flags, after every object (default none)
#   COLLECTOR_KNOBS    the environment variables it reads as knobs (GCR_HEAP_MB ...), besides
#                      the ones every build reads (GCR_HEAP_MAX_MB, GCR_PLANT_IR): only declared
#                      knobs reach its probes from the caller's environment (default none)
#   COLLECTOR_WERROR   added to the warnings on the collector's own sources: -Werror for a
#                      folder under collectors/, nothing for one outside (its warnings show,
#                      its build goes on); set it to -Werror to hold yours to ours

ifeq ($(strip $(COLLECTOR_DIR)),)
ifeq ($(strip $(NAME)),)
$(error COLLECTOR_DIR is not set: make collector COLLECTOR_DIR=<folder holding your collector's .c files> (docs/out-of-tree.md))
endif
COLLECTOR_DIR := $(COLLECTOR_DIR_DEFAULT)
endif
include $(ROOT)/collectors/quote.mk
include $(ROOT)/collectors/quiet.mk
$(call gcr_path_check,ROOT)
$(call gcr_path_check,COLLECTOR_DIR)
ifeq ($(wildcard $(COLLECTOR_DIR)/.),)
$(error COLLECTOR_DIR=$(COLLECTOR_DIR): no such folder$(if $(findstring $(gcr_dollar),$(value \
  COLLECTOR_DIR)), (make read the $(gcr_dollar) in $(value COLLECTOR_DIR) as a reference to a \
  variable; a $(gcr_dollar) in a path is $(gcr_dollar)$(gcr_dollar), which make refuses too)))
endif
ifeq ($(strip $(NAME)),)
NAME := $(notdir $(abspath $(COLLECTOR_DIR)))
endif
$(call gcr_path_check,NAME)

COLLECTOR_NAME = $(notdir $(abspath $(COLLECTOR_DIR)))
COLLECTOR_VERSION := 0
COLLECTOR_CFLAGS :=
COLLECTOR_LIBS :=
COLLECTOR_KNOBS :=
COLLECTOR_SRCS := $(wildcard $(COLLECTOR_DIR)/*.c)
COLLECTOR_WERROR := $(if $(filter $(abspath $(ROOT)/collectors)/%,$(abspath $(COLLECTOR_DIR))),-Werror)
-include $(COLLECTOR_DIR)/collector.mk

ifeq ($(strip $(COLLECTOR_SRCS)),)
$(error $(COLLECTOR_DIR): no collector sources: no *.c file there$(if $(wildcard $(COLLECTOR_DIR)/collector.mk), and $(COLLECTOR_DIR)/collector.mk sets no COLLECTOR_SRCS))
endif
$(call gcr_paths_check,COLLECTOR_SRCS)
COLLECTOR_MISSING_SRCS := $(filter-out $(wildcard $(COLLECTOR_SRCS)),$(COLLECTOR_SRCS))
ifneq ($(COLLECTOR_MISSING_SRCS),)
$(error $(firstword $(COLLECTOR_MISSING_SRCS)): no such file (COLLECTOR_SRCS, in $(COLLECTOR_DIR)/collector.mk))
endif
# A collector implements the ABI; one that never includes it would meet the linker's or
# -Wmissing-prototypes' words for it first, with no hint of what is missing.
COLLECTOR_ABI_USERS := $(shell grep -l '^[[:space:]]*\#[[:space:]]*include[[:space:]]*["<]gcr\.h[">]' \
        $(call gcr_shqs,$(COLLECTOR_SRCS) $(wildcard $(addsuffix *.h,$(sort $(dir $(COLLECTOR_SRCS)))))) \
        2>/dev/null)
ifeq ($(COLLECTOR_ABI_USERS),)
$(error $(COLLECTOR_DIR): no source includes "gcr.h": a collector implements the ABI declared in $(abspath $(ROOT)/collectors/include/gcr.h) (docs/out-of-tree.md))
endif
