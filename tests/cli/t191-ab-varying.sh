#!/bin/sh
# Issue 40: ab on a runtime whose figures vary. A stand-in for a concurrent pacer says it is
# clock_paced; its collection counts jitter (20-23 on one probe, 6-8 on the other). At five
# rounds a doubling is WORSE on every probe it plants (the 3x-range rule called 6-8 -> 12-16
# same); an A/A is quiet five times; +300 bytes on 39 MB of freed_bytes is same (it was WORSE,
# compared exactly since five rounds happened to repeat); no counter of the clock-paced build
# is printed exact; and two settings of one runtime that say one design are judged as one,
# their collection counts deciding (they were context).
#
# The jitter is a fixed pseudo-random sequence, one draw per run of a probe, so the test does
# not depend on chance: over random draws this stand-in's A/A flags a cell in about 2% of
# sessions at 5 rounds, q = 0.05 (tests/unit/test_paired.c, GCR_SIM_SESSIONS; docs/ab.md).
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

# standin DIR NAME [COLLECTOR [DESIGN]]: $DIR/scale multiplies the counts, $DIR/freed sets
# freed_bytes (39000000).
standin() {
	dir=$1
	BUILD_NAME=$2 make_script_build "$dir" 01_p 02_q
	if [ -n "${3:-}" ]; then
		jq -c --arg c "$3" --arg d "${4:-}" '.collector = $c | if $d != "" then .design = $d else . end' \
			"$dir/manifest.json" >"$dir/m" && mv "$dir/m" "$dir/manifest.json"
	fi
	for p in 01_p 02_q; do
		cat >"$dir/$p" <<SCRIPT
#!/bin/sh
k=\$(cat "$dir/turn.$p" 2>/dev/null || echo 0)
echo \$((k + 1)) >"$dir/turn.$p"
r=\$(( (k * 1103515245 + 12345) % 2147483648 / 65536 ))
scale=\$(cat "$dir/scale" 2>/dev/null || echo 1)
freed=\$(cat "$dir/freed" 2>/dev/null || echo 39000000)
if [ $p = 01_p ]; then lo=20 w=4; else lo=6 w=3; fi
gcs=\$(awk -v r="\$r" -v lo=\$lo -v w=\$w -v s="\$scale" 'BEGIN { printf "%d", (lo + r % w) * s + 0.5 }')
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","capabilities":["collects","precise","clock_paced"],"checksum":"0x00000000000000aa","census":{"alloc_bytes":50000000,"major_collections":%s,"freed_bytes":%s}}' "\$1" "\$gcs" "\$freed" >&3
SCRIPT
		chmod +x "$dir/$p"
	done
	seal_manifest "$dir"
}
AB="$GCR ab --wide --rounds 5 --meters rusage,census"

standin "$T/base" base
standin "$T/x2" x2
echo 2 >"$T/x2/scale"

# ---- A doubling at five rounds: WORSE on every planted probe -------------------------------
expect_status 1 $AB "$T/base" "$T/x2" --json "$T/x2.json"
expect_grep "^01_p +census\.major_collections .* by rank \(5\) .* WORSE$" "$T/out"
expect_grep "^02_q +census\.major_collections .* by rank \(5\) .* WORSE$" "$T/out"
# What the collector did leads the headline.
expect_grep "^gcratchet ab: FIX is WORSE on 2 cells: x2 vs base: major_collections \+[0-9.]+% on 2 probes" "$T/out"
jq -r '[.comparison.cells[] | select(.metric == "census.major_collections") |
	[.test.method, .test.in_rank_family, (.test.p < 0.01), (.mde_pct != null), .deterministic] |
	map(tostring) | join(" ")] | join(", ")' "$T/x2.json" >"$T/j"
expect_eq "$(cat "$T/j")" "Wilcoxon rank-sum true true true false, Wilcoxon rank-sum true true true false" \
	"JSON: judged by the rank-sum test in its family, with an MDE"
expect_eq "$(jq -r '.comparison.identity.census_varies' "$T/x2.json")" "BASE says clock_paced" \
	"JSON: the capabilities that made the census vary"

# ---- No counter of the clock-paced build is exact -----------------------------------------
expect_no_grep "^[0-9]+_[a-z]+ +census\..* exact" "$T/out" "a clock-paced build's census printed exact"
expect_grep "^  census: no counter compared exactly \(BASE says clock_paced\): its counters are judged by their distributions$" "$T/out"
expect_no_grep "deterministic counter" "$T/out" "a clock-paced build's counters called deterministic"

# ---- A/A at five rounds, five times: quiet ------------------------------------------------
flagged=0
for i in 1 2 3 4 5; do
	$AB "$T/base" "$T/base" --seed "$i" >"$T/aa.out" 2>&1 || flagged=$((flagged + 1))
	grep -E " (WORSE|better)$" "$T/aa.out" >>"$T/aa.flagged"
done
expect_eq "$flagged" 0 "A/A sessions at 5 rounds that were not quiet"
expect_eq "$(wc -l <"$T/aa.flagged")" 0 "A/A cells flagged"

# ---- +300 bytes on 39 MB: within the resolution, same ------------------------------------
standin "$T/f300" f300
echo 39000300 >"$T/f300/freed"
expect_status 0 $AB "$T/base" "$T/f300"
expect_grep "^01_p +census\.freed_bytes +39000000 +39000300 .* same$" "$T/out"
expect_grep "^02_q +census\.freed_bytes +39000000 +39000300 .* same$" "$T/out"

# ---- Two settings of one runtime, one design: the census decides -------------------------
standin "$T/g100" g100 go-gogc100 go-gc
standin "$T/g50" g50 go-gogc50 go-gc
echo 2 >"$T/g50/scale"
expect_status 1 $AB "$T/g100" "$T/g50" --json "$T/g.json"
expect_grep "one design \(go-gc, as both manifests say; collectors go-gogc100 vs go-gogc50\): census counters decide" "$T/err"
expect_grep "^judged one design \(go-gc, as both manifests say; collectors go-gogc100 vs go-gogc50\): census counters decide like costs$" "$T/out"
expect_grep "^01_p +census\.major_collections .* WORSE$" "$T/out"
expect_no_grep " context$" "$T/out" "one design has no context cells"
expect_eq "$(jq -r '.comparison.across | [.designs, .base_design, .fix_design] | map(tostring) | join(" ")' "$T/g.json")" \
	"false go-gc go-gc" "JSON: one design"
# Without the field, differently named collectors are two designs, as before.
standin "$T/h50" h50 go-gogc50
echo 2 >"$T/h50/scale"
expect_status 0 $AB "$T/g100" "$T/h50"
expect_grep "^judged across designs \(the designs differ: go-gc vs go-gogc50\)" "$T/out"
# An empty design is refused, naming the file.
jq -c '.design = ""' "$T/g50/manifest.json" >"$T/m" && mv "$T/m" "$T/g50/manifest.json"
expect_status 2 $AB "$T/g100" "$T/g50"
expect_grep "g50/manifest.json: design: must be a non-empty string" "$T/err"
finish
