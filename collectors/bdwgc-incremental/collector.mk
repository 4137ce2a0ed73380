# The bdwgc adapter, built again with incremental/generational collection switched on.
include $(COLLECTOR_DIR)/../bdwgc/collector.mk
COLLECTOR_SRCS := $(COLLECTOR_DIR)/../bdwgc/bdwgc.c
COLLECTOR_CFLAGS += -DGCR_BDWGC_INCREMENTAL
