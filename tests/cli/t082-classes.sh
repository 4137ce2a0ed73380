#!/bin/sh
# needs: valgrind
# Rules by determinism class (issue 11 item 3), on bdwgc, a conservative collector:
# - `baseline pin --vary-env 2` measures two sessions (the second with every run's environment
#   padded by up to 4 KiB), pools their runs per cell and records the sessions in "vary_env";
# - its committed heap, RSS and collection-count rules are class distribution (each cell keeps
#   its 10 pinning runs and the spread of the sessions' mins), heap after a full collection
#   info, alloc_bytes exact, Ir banded;
# - check judges a distribution cell's runs against the pinning runs (the figure in its JSON
#   is the median of the session's runs), and passes the unchanged build;
# - an 8 MiB retention (-DGCR_PLANT_RETAIN_KB=8192) is REGRESSED on the committed heap peak
#   and on RSS, which the 16 MiB floor on heap_used_after_full_bytes used to let through;
# - a baseline pinned before classes (no "class" anywhere) still validates; a bad class is
#   refused naming the file and the JSON path.
. "$(dirname "$0")/lib.sh"

PROBES="02_survivor_promotion 13_memory_return"
LIST=$(echo $PROBES | tr ' ' ,)

# A bdwgc build root with only these probes: pin measures what the collector's folder holds.
build_variant bdwgc collectors/bdwgc "$T/root/collectors/bdwgc" "" $PROBES
ln -s "$TOP/build/gcratchet-launch" "$T/root/gcratchet-launch"
build_variant bdwgc-retain collectors/bdwgc "$T/bdwgc-retain" -DGCR_PLANT_RETAIN_KB=8192 $PROBES

GCR_BUILD_ROOT="$T/root" expect_status 0 "$GCR" baseline pin --profile shared_ci \
	--collector bdwgc --vary-env 2 --out "$T/bdwgc.json"
cp "$T/out" "$T/pin.out"
expect_grep "^vary-env 1/2: environment padded by up to 0 bytes" "$T/pin.out"
expect_grep "^vary-env 2/2: environment padded by up to 4096 bytes" "$T/pin.out"
expect_grep "^pooled from 2 sessions in varied environments: [0-9]+ [0-9]+ " "$T/pin.out"
expect_eq "$(jq -c '.vary_env.sessions | length' "$T/bdwgc.json")" 2 "vary_env sessions"
expect_eq "$(jq -c '.vary_env.pad_step_bytes' "$T/bdwgc.json")" 4096 "vary_env pad step"
expect_eq "$(jq -r '.session as $s | .vary_env.sessions | index($s) != null' "$T/bdwgc.json")" \
	true "the baseline's session is one of the pooled"
# Both sessions' runs are in every timed cell: 5 rounds each.
expect_eq "$(jq -r '[.cells[] | select(.metric == "census.heap_committed_peak_bytes") | .n]
	| unique | join(",")' "$T/bdwgc.json")" 10 "runs pooled per timed cell"
for m in census.heap_committed_peak_bytes census.major_collections rss.peak_bytes; do
	expect_eq "$(jq -r --arg m "$m" '.rules[$m].class' "$T/bdwgc.json")" distribution "$m class"
done
expect_eq "$(jq -r '.rules["census.alloc_bytes"].class' "$T/bdwgc.json")" exact "alloc class"
expect_eq "$(jq -r '.rules["valgrind.ir"].class' "$T/bdwgc.json")" banded "Ir class"
expect_eq "$(jq -r '.rules["time.wall_ns"].class' "$T/bdwgc.json")" info "time class"
expect_eq "$(jq -r '.rules["census.heap_committed_peak_bytes"].band_abs' "$T/bdwgc.json")" \
	4096 "committed peak floor: a page"
# What a conservative collector's last collection happened to keep (8 KiB or 8.4 MB on 02) is
# recorded, not gated: its 16 MiB floor is gone, and retention is gated by the two above.
expect_eq "$(jq -c '.rules["census.heap_used_after_full_bytes"] | [.gated, .class]' \
	"$T/bdwgc.json")" '[false,"info"]' "heap_used_after_full on a conservative collector"
# Each distribution cell keeps its pinning runs, and how far the two sessions' mins moved.
expect_eq "$(jq -r '.rules as $r | [.cells[] | select($r[.metric].class == "distribution")
	| has("min_spread") and (.runs | length) == .n] | unique | join(",")' "$T/bdwgc.json")" true \
	"runs and min_spread recorded"
expect_status 0 "$GCR" baseline validate "$T/bdwgc.json"
echo "bdwgc pinned from 2 varied sessions, distribution cells (min, median, max over 10 runs):"
jq -r '.rules as $r | .cells[] | select($r[.metric].class == "distribution")
	| "  \(.probe) \(.metric): \(.min) \(.median) \(.max), session mins \(.min_spread) apart"' \
	"$T/bdwgc.json"
jq -r '.overrides[] | "  override \(.probe) \(.metric): \(.class) \(.band_pct)% / \(.band_abs)"' \
	"$T/bdwgc.json"

# The unchanged build passes; a distribution cell's figure is the session's median.
m() { # LABEL MEASURE-OPTIONS...
	label=$1
	shift
	GCR_BUILD_ROOT="$T/root" expect_status 0 "$GCR" measure "$@" --probes "$LIST" --size ci \
		--rounds 5 --warmup 1 --meters rusage,census,valgrind
	"$GCR" export >"$T/$label.export.json"
}
# Three valgrind runs, judged by their median: one run in 65 of 02 lands +1.9% high
# (docs/meters.md, "One run past its allowance"), past the 1% Ir band.
m bdwgc --collector bdwgc --valgrind-runs 3
expect_status 0 "$GCR" check --all --profile shared_ci --collector bdwgc --build bdwgc \
	--baseline "$T/bdwgc.json" --format json
cp "$T/out" "$T/check.json"
# What regressed, if anything did: the JSON above shows only its tail.
jq -r '.cells[] | select(.verdict == "regressed" or .verdict == "could not judge")
	| "unchanged bdwgc: \(.probe) \(.metric) \(.verdict): \(.baseline) -> \(.current) (allowance \(.allowance), class \(.class))"' \
	"$T/check.json" >&2
want=$(jq -r '[.runs[] | select(.probe == "13_memory_return" and .kind == "timed"
	and (.warmup | not)) | .samples["census.heap_committed_peak_bytes"]] | sort | .[2]' \
	"$T/bdwgc.export.json")
expect_eq "$(jq -r '.cells[] | select(.probe == "13_memory_return"
	and .metric == "census.heap_committed_peak_bytes") | "\(.class) \(.current)"' \
	"$T/check.json")" "distribution $want" "13's committed peak: the median of the session's 5 runs"
"$GCR" check --all --profile shared_ci --collector bdwgc --build bdwgc --baseline "$T/bdwgc.json" \
	>"$T/check.txt" 2>&1
# Its row says what it can see at these runs, and the header a line per class.
expect_grep "13_memory_return +census.heap_committed_peak_bytes .* ok$" "$T/check.txt"
expect_grep "^can see: exact [0-9]+ cells: any change; banded [0-9]+ cells: .*; distribution [0-9]+ cells at 5 runs: " \
	"$T/check.txt"

# An 8 MiB retention: the committed heap and RSS see it.
m retain --build "$T/bdwgc-retain"
expect_status 1 "$GCR" check --all --profile shared_ci --collector bdwgc --build bdwgc-retain \
	--baseline "$T/bdwgc.json" --format json
cp "$T/out" "$T/retain.json"
echo "8 MiB retained on bdwgc:"
for p in $PROBES; do
	for metric in census.heap_committed_peak_bytes rss.peak_bytes; do
		set -- $(jq -r --arg p "$p" --arg m "$metric" '.cells[]
			| select(.probe == $p and .metric == $m) | "\(.verdict) \(.delta) \(.allowance)"' \
			"$T/retain.json")
		echo "  $p $metric: ${1:-?}, delta ${2:-?} (allowance ${3:-?})"
		expect_eq "${1:-}" regressed "$p $metric with 8 MiB retained"
	done
done

# A baseline without classes gets each rule's class from its fields; a bad class is named.
jq 'del(.rules[].class, .overrides[].class)' "$TOP/baselines/shared_ci/gen.json" >"$T/noclass.json"
expect_no_grep '"class"' "$T/noclass.json"
expect_status 0 "$GCR" baseline validate "$T/noclass.json"
# One pinned before classes, with the RSS band of then (20%, 4 MiB), is looser than what pin
# writes now: refused, naming the rule and pin's (issue 41: re-pin it, or say why per cell).
git -C "$TOP" show 295b350:baselines/shared_ci/gen.json >"$T/old.json"
expect_no_grep '"class"' "$T/old.json"
expect_status 2 "$GCR" baseline validate "$T/old.json"
expect_grep 'old.json: rules."rss.peak_bytes": band_pct 20 is wider than pin.s [0-9]+, and cells\[[0-9]+\]' "$T/err"
jq '.rules["census.alloc_bytes"].class = "info"' "$T/old.json" >"$T/bad.json"
expect_status 2 "$GCR" baseline validate "$T/bad.json"
expect_grep "bad.json: rules.\"census.alloc_bytes\".class: \"info\" with gated true" "$T/err"
expect_status 2 "$GCR" baseline pin --profile shared_ci --vary-env 1
expect_grep "vary-env must be 2 to 16" "$T/err"
expect_status 2 "$GCR" baseline pin --profile shared_ci --vary-env 2 --session 1
expect_grep "does not go with --session" "$T/err"
expect_status 2 "$GCR" baseline pin --profile shared_ci --meters rusage,census --session 1
expect_grep "meters says what pin measures with" "$T/err"
finish
