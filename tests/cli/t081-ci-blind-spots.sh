#!/bin/sh
# needs: valgrind
# No blind spots at ci (issue 11 item 4), against the committed shared_ci baseline of gen:
# - a growth-policy change: gen built with its growth factor halved (-DGEN_GROWTH_PCT=25, was
#   50) makes more major collections at ci, and check says census.major_collections REGRESSED.
#   Before gen's heap floor went from 4 MiB to 1 MiB no probe's live set at ci reached the
#   point where the factor decides, and the same plant moved nothing;
# - a 1 MiB retention (-DGCR_PLANT_RETAIN_KB=1024, touched): caught by the census (the live
#   set after the final collection, exact) and by resident memory (rss.peak_bytes, whose band
#   is 2% with a 512 KiB floor and 10% of the probe's live set, not a flat 4 MiB).
# The unplanted gen passes the same baseline: the bands hold the runs they were pinned from.
. "$(dirname "$0")/lib.sh"

PROBES="01_nursery_churn 07_array_growth 13_memory_return"
LIST=$(echo $PROBES | tr ' ' ,)
BASE="$TOP/baselines/shared_ci/gen.json"

build_variant gen-g25 collectors/gen "$T/gen-g25" -DGEN_GROWTH_PCT=25 $PROBES
build_variant gen-retain collectors/gen "$T/gen-retain" -DGCR_PLANT_RETAIN_KB=1024 $PROBES

# The committed baseline, cut to these probes and to the timed meters this test measures
# (its min-heap cells need a minheap search, which this test does not run).
jq --arg l "$LIST" '($l | split(",")) as $ps
	| .cells |= map(select((.probe | IN($ps[])) and (.metric | startswith("valgrind.") or startswith("minheap.") | not)))
	| .probes |= with_entries(select(.key | IN($ps[])))
	| if has("functions") then .functions |= with_entries(select(.key | IN($ps[]))) else . end
	| .overrides |= map(select(.probe | IN($ps[])))' "$BASE" >"$T/base.json"

judge() { # WANT-STATUS BUILD-LABEL MEASURE-OPTIONS...
	verdict=$1 label=$2 # not "want": expect_status sets that
	shift 2
	expect_status 0 "$GCR" measure "$@" --probes "$LIST" --size ci --rounds 3 --warmup 0 \
		--meters rusage,census
	expect_status "$verdict" "$GCR" check --profile shared_ci --collector gen --build "$label" \
		--baseline "$T/base.json" --format json
	cp "$T/out" "$T/$label.json"
}
cell() { # LABEL PROBE METRIC: "verdict delta allowance"
	jq -r --arg p "$2" --arg m "$3" '.cells[] | select(.probe == $p and .metric == $m)
		| "\(.verdict) \(.delta) \(.allowance)"' "$T/$1.json"
}

judge 0 gen --collector gen
expect_eq "$(jq -r '[.cells[] | select(.verdict == "REGRESSED")] | length' "$T/gen.json")" 0 \
	"the unplanted gen regresses nothing"

judge 1 gen-g25 --build "$T/gen-g25"
echo "growth factor 50% -> 25% (gen-g25), census.major_collections:"
for p in 07_array_growth 13_memory_return; do
	set -- $(cell gen-g25 "$p" census.major_collections)
	echo "  $p: $1, delta $2 (allowance $3)"
	expect_eq "$1" regressed "$p census.major_collections with the growth factor halved"
done

judge 1 gen-retain --build "$T/gen-retain"
echo "1 MiB retained (gen-retain):"
for p in $PROBES; do
	for m in census.heap_used_after_full_bytes rss.peak_bytes; do
		set -- $(cell gen-retain "$p" "$m")
		echo "  $p $m: $1, delta $2 (allowance $3)"
		expect_eq "$1" regressed "$p $m with 1 MiB retained"
	done
done
finish
