#!/bin/sh
# scripts/repin-baselines.sh [NAME...] — re-pins the shipped shared_ci baselines
# (baselines/shared_ci/NAME.json; every one when no NAME is given) the way they were pinned
# for issue 40 (43959f2), then validates each. Run it from the top of the tree after `make`
# (and `make js`, `make jvm` for those builds), on the host the baselines are meant for, with
# nothing else measuring. It takes about a minute per C collector and more per runtime.
#
# Each pin measures three sessions in varied environments (baseline pin's default, --vary-env
# 3) with the meters the collector's file lists (jq reads them); where valgrind is among them the pin also
# keeps each probe's 20 largest functions ("functions", docs/baselines.md), which check,
# ratchet and their pull-request comment name when an Ir cell moves. A re-pin keeps the old
# file's ledger entries for the cells it pins again and its sensitivity_pct.
#
#   epsilon, marksweep, gen   their minimum heaps too (minheap first, then pin --minheap)
#   bdwgc, bdwgc-incremental  pin (bdwgc-incremental has no valgrind cells: it cannot run
#                             under valgrind, so it keeps no functions)
#   js-*                      pin --build build/collectors/NAME (no valgrind: no functions)
#   jvm-*                     pin --build build/collectors/NAME, then jvm/baseline-rules.sh
#                             (docs/jvm.md, "What is deterministic"; no valgrind either)
#
# GCR (default build/gcratchet) names the CLI. Exit status: 0 every file pinned and valid,
# else the status of the first step that failed.
set -eu
GCR=${GCR:-build/gcratchet}
DIR=baselines/shared_ci
[ -x "$GCR" ] || {
	echo "repin-baselines: $GCR is not built: run make first" >&2
	exit 2
}
if [ $# -eq 0 ]; then
	set --
	for f in "$DIR"/*.json; do
		n=${f##*/}
		set -- "$@" "${n%.json}"
	done
fi
for name in "$@"; do
	[ -f "$DIR/$name.json" ] || {
		echo "repin-baselines: $DIR/$name.json: no such baseline" >&2
		exit 2
	}
	# The meters the file was pinned with: valgrind where the build can run under it.
	meters=$(jq -r '.meters | join(",")' "$DIR/$name.json")
	echo "repin-baselines: $name (meters $meters)" >&2
	case $name in
	epsilon | marksweep | gen)
		"$GCR" minheap --collector "$name" --size ci
		"$GCR" baseline pin --profile shared_ci --collector "$name" --meters "$meters" --minheap
		;;
	bdwgc | bdwgc-incremental)
		"$GCR" baseline pin --profile shared_ci --collector "$name" --meters "$meters"
		;;
	js-*)
		"$GCR" baseline pin --profile shared_ci --build "build/collectors/$name" --meters "$meters"
		;;
	jvm-*)
		"$GCR" baseline pin --profile shared_ci --build "build/collectors/$name" --meters "$meters"
		sh jvm/baseline-rules.sh "$DIR/$name.json"
		;;
	*)
		echo "repin-baselines: $name: not a shipped build this script knows how to pin" >&2
		exit 2
		;;
	esac
	"$GCR" baseline validate "$DIR/$name.json"
done
