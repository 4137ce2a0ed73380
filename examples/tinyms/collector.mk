# What collectors/build.mk reads from a collector folder (docs/out-of-tree.md, "collector.mk").
# The version is recorded in every manifest and compared with a baseline's: bump it when the
# collector changes. The name defaults to this folder's; say it, so a copy keeps it.
COLLECTOR_NAME := tinyms
COLLECTOR_VERSION := 0.1
# The environment variables tinyms.c reads as knobs: only declared ones reach its probes from
# the caller's environment (GCR_HEAP_MAX_MB, the ABI's hard limit, every build gets).
COLLECTOR_KNOBS := GCR_HEAP_MB GCR_ZEAL
