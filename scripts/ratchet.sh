#!/bin/sh
# ratchet.sh GCRATCHET COLLECTOR ROUNDS — the main job: measure the collector at the ci size,
# then check the session against the committed shared_ci baseline. Exits with check's status
# (0 ok, 1 regression, 2 could not judge); a measure that could not even start exits 2.
set -u
gcr=$1 collector=$2 rounds=$3

# Measure with the meters the baseline was pinned with (bdwgc-incremental cannot run under
# valgrind, so its baseline has no Ir cells and its ratchet no valgrind runs).
meters=rusage,census,valgrind
baseline=${GCR_BASELINE_DIR:-baselines}/shared_ci/$collector.json
if [ -f "$baseline" ]; then
	pinned=$(python3 -c 'import json, sys; print(",".join(json.load(open(sys.argv[1]))["meters"]))' \
		"$baseline" 2>/dev/null) && [ -n "$pinned" ] && meters=$pinned
fi
"$gcr" measure --collector "$collector" --size ci --rounds "$rounds" --warmup 1 --meters "$meters"
measured=$?
# A baseline with min-heap cells (baseline pin --minheap) is judged on the newest minimum heaps
# stored for the build: search them now, for this build (gen: 9 s at ci here).
if [ "$measured" -eq 0 ] && [ -f "$baseline" ] && grep -q '"minheap.min_heap_mib"' "$baseline"; then
	echo
	"$gcr" minheap --collector "$collector" --size ci
	measured=$?
fi
echo
"$gcr" check --profile shared_ci --collector "$collector"
checked=$?
if [ "$checked" -eq 0 ] && [ "$measured" -ne 0 ]; then
	exit "$measured"
fi
exit "$checked"
