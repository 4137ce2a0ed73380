#!/bin/sh
# Peak RSS is the probe's own: a harness holding 400 MiB must not inflate a small probe's
# figure (the kernel folds a parent's resident size into a child's ru_maxrss across fork and
# exec). The probe's own VmHWM, from its census, is the cross-check.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

GCR_TEST_BALLAST_MB=400 expect_status 0 "$GCR" measure --collector marksweep --probes 01 \
	--size ci --rounds 2 --warmup 0 --meters rusage,census
rss=$(exported 1 '[.runs[].samples["rss.peak_bytes"] // empty] | max | floor')
hwm=$(exported 1 '[.runs[].samples["memory.vm_hwm_bytes"] // empty] | max | floor')
echo "rss.peak_bytes=$rss memory.vm_hwm_bytes=$hwm"
# Far below the 400 MiB ballast...
if [ "$rss" -lt $((200 << 20)) ]; then pass; else fail "peak RSS $rss includes the harness"; fi
# ...and within 10% (plus 2 MiB for the launcher's own pages) of what the probe saw itself.
diff=$((rss > hwm ? rss - hwm : hwm - rss))
if [ "$diff" -le $((hwm / 10 + (2 << 20))) ]; then pass; else
	fail "rusage peak $rss and the probe's VmHWM $hwm disagree"
fi
finish
