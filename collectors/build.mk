# collectors/build.mk — builds one collector build folder: every probe linked against one
# collector. Called by the top-level Makefile once per collector, and usable directly for an
# out-of-tree collector or a variant:
#
#   make -f collectors/build.mk NAME=mygc COLLECTOR_DIR=/path/to/mygc
#   make -f collectors/build.mk NAME=marksweep-slow COLLECTOR_DIR=collectors/marksweep \
#        EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=40
#
# COLLECTOR_DIR holds *.c sources and a collector.mk that may set COLLECTOR_NAME (default: the
# folder's name), COLLECTOR_VERSION,
# COLLECTOR_CFLAGS, COLLECTOR_LIBS and COLLECTOR_SRCS (default: every *.c in the folder).
# The result lands in $(OUT) (default build/collectors/$(NAME)): one executable per probe and
# a manifest.json naming the collector, its version, the git commit, the toolchain (compiler,
# flags, valgrind), the flags and the sha256 of each binary.

ifndef NAME
$(error NAME is not set: make -f collectors/build.mk NAME=<build name> COLLECTOR_DIR=<folder>)
endif
COLLECTOR_DIR ?= collectors/$(NAME)
ifeq ($(wildcard $(COLLECTOR_DIR)/collector.mk $(COLLECTOR_DIR)/*.c),)
$(error $(COLLECTOR_DIR): not a collector folder (no collector.mk, no *.c))
endif

ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/..
OUT ?= build/collectors/$(NAME)
OBJ := $(OUT)/obj

COLLECTOR_NAME = $(notdir $(patsubst %/,%,$(COLLECTOR_DIR)))
COLLECTOR_VERSION := 0
COLLECTOR_CFLAGS :=
COLLECTOR_LIBS :=
COLLECTOR_SRCS := $(wildcard $(COLLECTOR_DIR)/*.c)
-include $(COLLECTOR_DIR)/collector.mk
ifeq ($(strip $(COLLECTOR_SRCS)),)
$(error $(COLLECTOR_DIR): no collector sources (COLLECTOR_SRCS is empty))
endif

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
BUILD_CFLAGS := -std=c17 $(strip $(OPT) $(DWARF_FLAGS)) $(WARN) -D_GNU_SOURCE -I$(ROOT)/collectors/include \
        -I$(ROOT)/collectors/common -I$(ROOT)/probes/runtime \
        -DGCR_COLLECTOR_VERSION='"$(COLLECTOR_VERSION)"' $(COLLECTOR_CFLAGS) $(EXTRA_CFLAGS)
# What the manifest records as the toolchain's flags: those that change the code, not the
# warnings, include paths or the build's own configuration (a planted cost is a -D).
TOOLCHAIN_FLAGS = $(filter-out -D% -I% -W%,$(BUILD_CFLAGS))

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

$(OBJ)/flags: FORCE
	@mkdir -p $(OBJ)
	@echo '$(CC) $(BUILD_CFLAGS) $(COLLECTOR_LIBS)' | cmp -s - $@ || echo '$(CC) $(BUILD_CFLAGS) $(COLLECTOR_LIBS)' > $@

# Collector sources may live outside COLLECTOR_DIR (a variant sharing another's code).
define collector_object
$(OBJ)/c_$(notdir $(1:.c=.o)): $(1) $(HEADERS) $(wildcard $(dir $(1))*.h) $(OBJ)/flags
	$$(CC) $$(BUILD_CFLAGS) -I$(dir $(1)) -c $$< -o $$@
endef
$(foreach src,$(COLLECTOR_SRCS),$(eval $(call collector_object,$(src))))
$(OBJ)/common_%.o: $(ROOT)/collectors/common/%.c $(HEADERS) $(OBJ)/flags
	$(CC) $(BUILD_CFLAGS) -c $< -o $@
$(OBJ)/rt_%.o: $(ROOT)/probes/runtime/%.c $(HEADERS) $(OBJ)/flags
	$(CC) $(BUILD_CFLAGS) -c $< -o $@
$(OBJ)/p_%.o: $(ROOT)/probes/%.c $(HEADERS) $(OBJ)/flags
	$(CC) $(BUILD_CFLAGS) -c $< -o $@

$(OUT)/%: $(OBJ)/p_%.o $(LIB_OBJS)
	$(CC) $(OPT) -o $@ $^ $(COLLECTOR_LIBS)

$(OUT)/manifest.json: $(addprefix $(OUT)/,$(PROBES)) $(ROOT)/scripts/manifest.sh $(OBJ)/flags
	CC='$(CC)' TOOLCHAIN_FLAGS='$(TOOLCHAIN_FLAGS)' sh $(ROOT)/scripts/manifest.sh '$(NAME)' '$(COLLECTOR_NAME)' '$(COLLECTOR_VERSION)' \
	   '$(CC) $(BUILD_CFLAGS)' '$(COLLECTOR_LIBS)' $(OUT) $(PROBES) > $@.tmp
	mv $@.tmp $@

FORCE:
.PHONY: all FORCE
.SECONDARY:
