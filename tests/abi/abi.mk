# tests/abi/abi.mk — builds the ABI conformance test (tests/abi/abi_conformance.c) against one
# collector folder, reading its collector.mk exactly as collectors/build.mk does, so a new or
# out-of-tree collector needs nothing here:
#
#   make -f tests/abi/abi.mk NAME=marksweep                 # -> build/abi/marksweep/abi_conformance
#   make -f tests/abi/abi.mk NAME=marksweep check           # builds, then runs it
#   make -f tests/abi/abi.mk NAME=mygc COLLECTOR_DIR=/path/to/mygc OUT=/tmp/abi-mygc
#   make -f tests/abi/abi.mk NAME=marksweep OUT=/tmp/abi-asan \
#        OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer'
#
# OPT is used when compiling and linking (sanitizers need both); EXTRA_CFLAGS only compiling.

ifndef NAME
$(error NAME is not set: make -f tests/abi/abi.mk NAME=<collector> [COLLECTOR_DIR=<folder>])
endif
ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/../..
COLLECTOR_DIR ?= $(ROOT)/collectors/$(NAME)
ifeq ($(wildcard $(COLLECTOR_DIR)/collector.mk $(COLLECTOR_DIR)/*.c),)
$(error $(COLLECTOR_DIR): not a collector folder (no collector.mk, no *.c))
endif
OUT ?= build/abi/$(NAME)/abi_conformance

COLLECTOR_VERSION := 0
COLLECTOR_CFLAGS :=
COLLECTOR_LIBS :=
COLLECTOR_SRCS := $(wildcard $(COLLECTOR_DIR)/*.c)
-include $(COLLECTOR_DIR)/collector.mk

CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wvla -Werror
COMMON_SRCS := $(wildcard $(ROOT)/collectors/common/*.c)
TEST_SRC := $(ROOT)/tests/abi/abi_conformance.c
# Each collector source sees its own folder's private headers, as under build.mk.
ABI_CFLAGS := -std=c17 $(OPT) $(WARN) -D_GNU_SOURCE -I$(ROOT)/collectors/include \
        -I$(ROOT)/collectors/common $(addprefix -I,$(sort $(dir $(COLLECTOR_SRCS)))) \
        -DGCR_COLLECTOR_VERSION='"$(COLLECTOR_VERSION)"' $(COLLECTOR_CFLAGS) $(EXTRA_CFLAGS)
HEADERS := $(wildcard $(ROOT)/collectors/include/*.h $(ROOT)/collectors/common/*.h \
            $(sort $(addsuffix *.h,$(dir $(COLLECTOR_SRCS)))))

all: $(OUT)

# Rebuild when the flags change, not only when a source does.
$(OUT).flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(ABI_CFLAGS) $(COLLECTOR_LIBS)' | cmp -s - $@ || \
	 echo '$(CC) $(ABI_CFLAGS) $(COLLECTOR_LIBS)' > $@

$(OUT): $(TEST_SRC) $(COLLECTOR_SRCS) $(COMMON_SRCS) $(HEADERS) $(OUT).flags
	$(CC) $(ABI_CFLAGS) -o $@ $(TEST_SRC) $(COLLECTOR_SRCS) $(COMMON_SRCS) $(COLLECTOR_LIBS)

check: $(OUT)
	$(OUT)

FORCE:
.PHONY: all check FORCE
