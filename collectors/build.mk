# collectors/build.mk — builds one collector build folder: every probe linked against one
# collector. Called by the top-level Makefile once per shipped collector (`make`), by
# `make collector COLLECTOR_DIR=DIR` for one that lives anywhere else (docs/out-of-tree.md),
# and usable directly for a variant:
#
#   make -f collectors/build.mk COLLECTOR_DIR=/path/to/mygc      # = make collector COLLECTOR_DIR=...
#   make -f collectors/build.mk NAME=marksweep-slow COLLECTOR_DIR=collectors/marksweep \
#        OUT=/tmp/ms-slow EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=40
#
# Variables on the command line:
#   COLLECTOR_DIR  the collector's folder (default collectors/$(NAME))
#   NAME           the build's name (default: the folder's name)
#   OUT            where the build folder goes (default build/collectors/$(NAME), where
#                  `gcratchet measure --collector NAME` finds it)
#   CC, OPT        compiler and optimisation/debug flags (cc, -O2 -g); EXTRA_CFLAGS more
#                  compile flags for every source; DWARF_FLAGS, below
# and in the folder's optional collector.mk: COLLECTOR_NAME, COLLECTOR_VERSION, COLLECTOR_SRCS,
# COLLECTOR_CFLAGS, COLLECTOR_LIBS, COLLECTOR_WERROR (collectors/collector-dir.mk says what each
# means and its default). The result: one executable per probe and a manifest.json naming the
# collector, its version, the git commit, the toolchain (compiler, flags, valgrind), the flags
# and the sha256 of each binary (docs/manifest.md).

ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/..
COLLECTOR_DIR_DEFAULT = collectors/$(NAME)
include $(ROOT)/collectors/collector-dir.mk

# Only an OUT left to its default can land on a shipped collector's folder by accident.
ifeq ($(origin OUT),undefined)
ifneq ($(wildcard $(ROOT)/collectors/$(NAME)/collector.mk),)
ifneq ($(abspath $(COLLECTOR_DIR)),$(abspath $(ROOT)/collectors/$(NAME)))
$(error NAME=$(NAME) is a shipped collector: build/collectors/$(NAME) would then hold $(COLLECTOR_DIR) instead; give another NAME= or an OUT=)
endif
endif
endif
OUT ?= build/collectors/$(NAME)
$(call gcr_path_check,OUT)
OBJ := $(OUT)/obj

CC ?= cc
OPT ?= -O2 -g
# valgrind before 3.20 gives up on the DWARF 5 that clang 14 and later write by default, and
# every Ir run fails: clang then writes DWARF 4. Not gcc: valgrind 3.19 reads gcc 12's DWARF 5,
# and -gdwarf-4 leaves its code (and Ir) unchanged, so gcc builds stay as the baselines were
# pinned. DWARF_FLAGS= on the command line turns it off.
ifeq ($(origin DWARF_FLAGS),undefined)
DWARF_FLAGS := $(shell $(CC) -v 2>&1 | grep -q 'clang version' && valgrind --version 2>/dev/null | \
        awk -F'[-.]' '$$2 < 3 || ($$2 == 3 && $$3 < 20) { print "-gdwarf-4" }')
endif
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wvla -Werror
# Shell text, as every recipe line: the paths in it quoted (collectors/quote.mk).
BUILD_CFLAGS := -std=c17 $(strip $(OPT) $(DWARF_FLAGS)) $(WARN) -D_GNU_SOURCE \
        $(addprefix -I,$(call gcr_shqs,$(ROOT)/collectors/include $(ROOT)/collectors/common \
        $(ROOT)/probes/runtime)) \
        -DGCR_COLLECTOR_VERSION=$(call gcr_shq,"$(COLLECTOR_VERSION)") $(COLLECTOR_CFLAGS) $(EXTRA_CFLAGS)
# What the manifest records as the toolchain's flags: those that change the code, not the
# warnings, include paths or the build's own configuration (a planted cost is a -D).
TOOLCHAIN_FLAGS = $(filter-out -D% -I% -W%,$(BUILD_CFLAGS))

# The knobs every build reads: the ABI's hard heap limit (collectors/common/heaplimit.c) and the
# Ir plant's rate and its one-run form (plant.c), then the collector's own. A name is
# [A-Z][A-Z0-9_]*, safe unquoted.
BUILD_KNOBS := $(sort GCR_HEAP_MAX_MB GCR_PLANT_IR GCR_PLANT_IR_ONCE $(COLLECTOR_KNOBS))

PROBE_SRCS := $(sort $(wildcard $(ROOT)/probes/[0-9][0-9]_*.c))
PROBES := $(notdir $(PROBE_SRCS:.c=))
RUNTIME_SRCS := $(wildcard $(ROOT)/probes/runtime/*.c)
COMMON_SRCS := $(wildcard $(ROOT)/collectors/common/*.c)

LIB_OBJS := $(addprefix $(OBJ)/c_,$(notdir $(COLLECTOR_SRCS:.c=.o))) \
            $(addprefix $(OBJ)/common_,$(notdir $(COMMON_SRCS:.c=.o))) \
            $(addprefix $(OBJ)/rt_,$(notdir $(RUNTIME_SRCS:.c=.o)))
HEADERS := $(wildcard $(ROOT)/collectors/include/*.h $(ROOT)/collectors/common/*.h \
            $(ROOT)/probes/runtime/*.h $(COLLECTOR_DIR)/*.h)

all: $(OUT)/manifest.json

BUILD_FLAGS_TEXT = $(call gcr_shq,$(CC) $(BUILD_CFLAGS) $(COLLECTOR_WERROR) $(COLLECTOR_LIBS))
$(OBJ)/flags: FORCE
	@mkdir -p $(call gcr_shq,$(OBJ))
	@echo $(BUILD_FLAGS_TEXT) | cmp -s - $(call gcr_shq,$@) || \
	 echo $(BUILD_FLAGS_TEXT) > $(call gcr_shq,$@)

# Collector sources may live outside COLLECTOR_DIR (a variant sharing another's code). Our
# warnings apply to them, as errors only where COLLECTOR_WERROR says so.
define collector_object
$(OBJ)/c_$(notdir $(1:.c=.o)): $(1) $(HEADERS) $(wildcard $(dir $(1))*.h) $(OBJ)/flags
	$$(call gcr_say,CC,$$@)$$(CC) $$(filter-out -Werror,$$(BUILD_CFLAGS)) $$(COLLECTOR_WERROR) \
	   -I$$(call gcr_shq,$(dir $(1))) -c $$(call gcr_shq,$$<) -o $$(call gcr_shq,$$@)
endef
$(foreach src,$(COLLECTOR_SRCS),$(eval $(call collector_object,$(src))))
$(OBJ)/common_%.o: $(ROOT)/collectors/common/%.c $(HEADERS) $(OBJ)/flags
	$(call gcr_say,CC,$@)$(CC) $(BUILD_CFLAGS) -c $(call gcr_shq,$<) -o $(call gcr_shq,$@)
$(OBJ)/rt_%.o: $(ROOT)/probes/runtime/%.c $(HEADERS) $(OBJ)/flags
	$(call gcr_say,CC,$@)$(CC) $(BUILD_CFLAGS) -c $(call gcr_shq,$<) -o $(call gcr_shq,$@)
$(OBJ)/p_%.o: $(ROOT)/probes/%.c $(HEADERS) $(OBJ)/flags
	$(call gcr_say,CC,$@)$(CC) $(BUILD_CFLAGS) -c $(call gcr_shq,$<) -o $(call gcr_shq,$@)

$(OUT)/%: $(OBJ)/p_%.o $(LIB_OBJS)
	$(call gcr_say,LD,$@)$(CC) $(OPT) -o $(call gcr_shq,$@) $(call gcr_shqs,$^) $(COLLECTOR_LIBS)

$(OUT)/manifest.json: $(addprefix $(OUT)/,$(PROBES)) $(ROOT)/scripts/manifest.sh $(OBJ)/flags
	$(call gcr_say_product,GEN,$@)CC=$(call gcr_shq,$(CC)) TOOLCHAIN_FLAGS=$(call gcr_shq,$(TOOLCHAIN_FLAGS)) \
	   BUILD_KNOBS=$(call gcr_shq,$(BUILD_KNOBS)) \
	   sh $(call gcr_shq,$(ROOT)/scripts/manifest.sh) $(call gcr_shq,$(NAME)) \
	   $(call gcr_shq,$(COLLECTOR_NAME)) $(call gcr_shq,$(COLLECTOR_VERSION)) \
	   $(call gcr_shq,$(CC) $(BUILD_CFLAGS)) $(call gcr_shq,$(COLLECTOR_LIBS)) $(call gcr_shq,$(OUT)) \
	   $(PROBES) > $(call gcr_shq,$@.tmp)
	$(Q)mv $(call gcr_shq,$@.tmp) $(call gcr_shq,$@)

# What `make collector` prints last: where the build is and how to measure it.
summary: $(OUT)/manifest.json
	@echo $(call gcr_shq,$(OUT): $(words $(PROBES)) probes built against $(COLLECTOR_NAME) $(COLLECTOR_VERSION) ($(COLLECTOR_DIR)))
	@echo $(call gcr_shq,measure it: gcratchet measure --build $(OUT) --size ci)

FORCE:
.PHONY: all summary FORCE
.SECONDARY:
