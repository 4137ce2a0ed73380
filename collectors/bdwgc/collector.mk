# The adapter's own version, then the libgc it was built against: a libgc upgrade is a new
# collector version in every manifest and baseline.
BDWGC_ADAPTER_VERSION := 1.0
BDWGC_LIBGC_VERSION := $(shell pkg-config --modversion bdw-gc 2>/dev/null)
ifeq ($(strip $(BDWGC_LIBGC_VERSION)),)
$(error bdwgc: pkg-config does not know bdw-gc: install libgc-dev (Debian) or gc-devel)
endif
COLLECTOR_VERSION := $(BDWGC_ADAPTER_VERSION)+gc$(BDWGC_LIBGC_VERSION)
COLLECTOR_CFLAGS := $(shell pkg-config --cflags bdw-gc)
COLLECTOR_LIBS := $(shell pkg-config --libs bdw-gc)

# The knobs bdwgc.c reads: GCR_HEAP_MB (GC_expand_hp) and GCR_ZEAL (validated, ignored).
COLLECTOR_KNOBS := GCR_HEAP_MB GCR_ZEAL
