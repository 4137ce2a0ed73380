COLLECTOR_VERSION := 1.0
# The knobs marksweep.c reads (docs/collectors.md).
COLLECTOR_KNOBS := GCR_HEAP_MB GCR_ZEAL
