# tests/abi/abi.mk — builds the ABI conformance test (tests/abi/abi_conformance.c) against one
# collector folder, read by collectors/collector-dir.mk exactly as collectors/build.mk reads
# it, so a new or out-of-tree collector needs nothing here:
#
#   make -f tests/abi/abi.mk NAME=marksweep                 # -> build/abi/marksweep/abi_conformance
#   make -f tests/abi/abi.mk NAME=marksweep check           # builds, then runs it
#   make -f tests/abi/abi.mk COLLECTOR_DIR=/path/to/mygc OUT=/tmp/abi-mygc
#   make -f tests/abi/abi.mk NAME=marksweep OUT=/tmp/abi-asan \
#        OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer'
#
# OPT is used when compiling and linking (sanitizers need both); EXTRA_CFLAGS only compiling.
# `make abi-check COLLECTOR_DIR=DIR` (tests/abi/run.sh) is the usual way in.

ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/../..
COLLECTOR_DIR_DEFAULT = $(ROOT)/collectors/$(NAME)
include $(ROOT)/collectors/collector-dir.mk
OUT ?= build/abi/$(NAME)/abi_conformance
$(call gcr_path_check,OUT)
OBJ := $(OUT).obj

CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wvla -Werror
COMMON_SRCS := $(wildcard $(ROOT)/collectors/common/*.c)
TEST_SRC := $(ROOT)/tests/abi/abi_conformance.c
# Shell text, as every recipe line: the paths in it quoted (collectors/quote.mk).
ABI_CFLAGS := -std=c17 $(OPT) $(WARN) -D_GNU_SOURCE \
        $(addprefix -I,$(call gcr_shqs,$(ROOT)/collectors/include $(ROOT)/collectors/common)) \
        -DGCR_COLLECTOR_VERSION=$(call gcr_shq,"$(COLLECTOR_VERSION)") $(COLLECTOR_CFLAGS) $(EXTRA_CFLAGS)
HEADERS := $(wildcard $(ROOT)/collectors/include/*.h $(ROOT)/collectors/common/*.h \
            $(sort $(addsuffix *.h,$(dir $(COLLECTOR_SRCS)))))
OBJS := $(OBJ)/abi_conformance.o $(addprefix $(OBJ)/common_,$(notdir $(COMMON_SRCS:.c=.o))) \
        $(addprefix $(OBJ)/c_,$(notdir $(COLLECTOR_SRCS:.c=.o)))

all: $(OUT)

# Rebuild when the flags change, not only when a source does.
ABI_FLAGS_TEXT = $(call gcr_shq,$(CC) $(ABI_CFLAGS) $(COLLECTOR_WERROR) $(COLLECTOR_LIBS))
$(OBJ)/flags: FORCE
	@mkdir -p $(call gcr_shq,$(OBJ))
	@echo $(ABI_FLAGS_TEXT) | cmp -s - $(call gcr_shq,$@) || \
	 echo $(ABI_FLAGS_TEXT) > $(call gcr_shq,$@)

$(OBJ)/abi_conformance.o: $(TEST_SRC) $(HEADERS) $(OBJ)/flags
	$(call gcr_say,CC,$@)$(CC) $(ABI_CFLAGS) -c $(call gcr_shq,$<) -o $(call gcr_shq,$@)
$(OBJ)/common_%.o: $(ROOT)/collectors/common/%.c $(HEADERS) $(OBJ)/flags
	$(call gcr_say,CC,$@)$(CC) $(ABI_CFLAGS) -c $(call gcr_shq,$<) -o $(call gcr_shq,$@)
# Each collector source sees its own folder's private headers, and our warnings as errors
# only where COLLECTOR_WERROR says so, as under build.mk.
define collector_object
$(OBJ)/c_$(notdir $(1:.c=.o)): $(1) $(HEADERS) $(OBJ)/flags
	$$(call gcr_say,CC,$$@)$$(CC) $$(filter-out -Werror,$$(ABI_CFLAGS)) $$(COLLECTOR_WERROR) \
	   -I$$(call gcr_shq,$(dir $(1))) -c $$(call gcr_shq,$$<) -o $$(call gcr_shq,$$@)
endef
$(foreach src,$(COLLECTOR_SRCS),$(eval $(call collector_object,$(src))))

$(OUT): $(OBJS)
	$(call gcr_say,LD,$@)$(CC) $(OPT) -o $(call gcr_shq,$@) $(call gcr_shqs,$^) $(COLLECTOR_LIBS)

check: $(OUT)
	$(call gcr_shq,$(OUT))

FORCE:
.PHONY: all check FORCE
.SECONDARY:
