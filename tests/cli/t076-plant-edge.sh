#!/bin/sh
# needs: valgrind
# The ratchet's Ir edge: marksweep built with GCR_PLANT_IR (collectors/common/plant.h: N spin
# steps per allocation, linear in N) is planted with 0.5%, 1%, 2% and 5% of each probe's
# baseline Ir, calibrated per probe from its measured Ir and allocations, and checked against
# the committed shared_ci baseline. Every plant the probe's Ir band can see (allowance =
# max(median * band_pct / 100, band_abs)) must be REGRESSED, the others ok; the table at the
# end is the ratchet's Ir sensitivity per probe (README.md, "How sensitive is the ratchet").
# Then bdwgc at the edge of its 1% band.
. "$(dirname "$0")/lib.sh"

PROBES="01_nursery_churn 10_large_objects 12_large_live_set"
BASE="$TOP/baselines/shared_ci/marksweep.json"
# Each plant lands this share of the baseline's Ir past its target (0.01 points), far above
# Ir's start-up jitter and the calibration's error, so that "1%" is past a 1% band's edge.
MARGIN=0.0001

build_variant marksweep-ir collectors/marksweep "$T/ms-ir" -DGCR_PLANT_IR=0 $PROBES

# planted RATE PROBES — one session of the plant build at GCR_PLANT_IR=RATE, exported to $T/s.json.
planted() {
	GCR_PLANT_IR=$1 expect_status 0 "$GCR" measure --build "$T/ms-ir" --probes "$2" --size ci \
		--rounds 1 --warmup 0 --meters rusage,census,valgrind
	"$GCR" export >"$T/s.json"
}
# sample PROBE KIND METRIC — one figure of the last exported session.
sample() {
	jq -r --arg p "$1" --arg k "$2" --arg m "$3" \
		'.runs[] | select(.probe == $p and .kind == $k) | .samples[$m]' "$T/s.json"
}

# Ir(0) and allocations per probe; then k, the Ir of one step, from one more run at N=1.
planted 0 "$(echo $PROBES | tr ' ' ,)"
for p in $PROBES; do
	echo "$p $(sample "$p" valgrind valgrind.ir) $(sample "$p" timed census.alloc_objects)"
done >"$T/ir0"
planted 1 01_nursery_churn
k=$(awk -v ir1="$(sample 01_nursery_churn valgrind valgrind.ir)" \
	'$1 == "01_nursery_churn" { printf "%.6f", (ir1 - $2) / $3 }' "$T/ir0")
echo "GCR_PLANT_IR: $k Ir per step per allocation"
if awk -v k="$k" 'BEGIN { exit !(k >= 3 && k <= 8) }'; then pass; else
	fail "a step should cost a few instructions, not $k"
fi

echo "probe                 plant  GCR_PLANT_IR        delta  delta %   allowance  verdict" >"$T/table"
for p in $PROBES; do
	# Only this probe's cells: the check judges the session's one probe, and can exit 0 or 1
	# (not its min-heap cell, which needs a minheap search).
	jq --arg p "$p" '.cells |= map(select(.probe == $p and (.metric | startswith("minheap.") | not)))
		| .probes |= with_entries(select(.key == $p))
		| if has("functions") then .functions |= with_entries(select(.key == $p)) else . end
		| if has("overrides") then .overrides |= map(select(.probe == $p)) else . end' \
		"$BASE" >"$T/base.json"
	read -r base pct abs <<EOF
$(jq -r --arg p "$p" '(.cells[] | select(.probe == $p and .metric == "valgrind.ir") | .median) as $m
	| (((.overrides // [])[] | select(.probe == $p and .metric == "valgrind.ir"))
	   // .rules["valgrind.ir"])
	| "\($m) \(.band_pct) \(.band_abs)"' "$T/base.json")
EOF
	read -r ir0 allocs <<EOF
$(awk -v p="$p" '$1 == p { print $2, $3 }' "$T/ir0")
EOF
	allow=$(awk -v b="$base" -v pct="$pct" -v a="$abs" 'BEGIN { x = b * pct / 100; printf "%.1f", (x > a ? x : a) }')
	for pc in 0.5 1 2 5; do
		# N rounded up to the knob's millionths: Ir(N) = Ir(0) + N * k * allocs.
		n=$(awk -v b="$base" -v pc="$pc" -v m="$MARGIN" -v ir0="$ir0" -v k="$k" -v a="$allocs" \
			'BEGIN { n = (b * (1 + pc / 100 + m) - ir0) / (k * a); n = int(n * 1e6 + 0.999999) / 1e6;
			         printf "%.6f", (n < 0 ? 0 : n) }')
		planted "$n" "$p"
		"$GCR" check --profile shared_ci --collector marksweep --build marksweep-ir \
			--baseline "$T/base.json" --format json >"$T/check.json" 2>"$T/err"
		status=$?
		read -r verdict delta <<EOF
$(jq -r '.cells[] | select(.metric == "valgrind.ir") | "\(.verdict) \(.delta)"' "$T/check.json")
EOF
		printf '%-21s %4s%%  %-12s %+11.0f  %+6.3f%%  %10.0f  %s\n' "$p" "$pc" "$n" "$delta" \
			"$(awk -v d="$delta" -v b="$base" 'BEGIN { print 100 * d / b }')" "$allow" \
			"$verdict" >>"$T/table"
		# The plant is what was asked for: within 0.01 points of its target.
		if awk -v d="$delta" -v b="$base" -v pc="$pc" -v m="$MARGIN" \
			'BEGIN { x = 100 * d / b - pc - 100 * m; exit !(x > -0.01 && x < 0.01) }'; then pass; else
			fail "$p: planted $pc% came out as $delta Ir over $base"
		fi
		# Seen exactly when it exceeds the allowance; a plant the band can see must be seen.
		want=ok wantst=0
		if awk -v d="$delta" -v a="$allow" 'BEGIN { exit !(d > a) }'; then
			want=regressed wantst=1
		fi
		expect_eq "$verdict" "$want" "$p, $pc% planted, allowance $allow"
		expect_eq "$status" "$wantst" "$p, $pc% planted: exit status of check"
		if [ "$pc" != 0.5 ] && awk -v b="$base" -v pc="$pc" -v a="$allow" 'BEGIN { exit !(b * pc / 100 > a) }'; then
			expect_eq "$verdict" regressed "$p: a $pc% plant within reach of a $pct% band"
		fi
		# A CPU-only plant moves no census counter and no memory figure.
		expect_eq "$(jq '[.cells[] | select(.metric != "valgrind.ir" and .verdict == "regressed")] | length' \
			"$T/check.json")" 0 "$p, $pc%: only Ir regresses"
	done
done
cat "$T/table"
caught=$(awk '$2 == "0.5%" && $NF == "regressed" { printf " %s", $1 }' "$T/table")
echo "caught at 0.5%:${caught:- none}"

# bdwgc's Ir rule is the profile's 1%, as every build's (it had 2% by name, 5% while its Ir
# moved with clock values it scanned as roots, docs/meters.md); pin widens only the probes whose
# pinning runs spread. On 02, whose Ir repeats, a 0.5% plant is ok and a 2% plant, which the
# old 2% band let through at its edge, is REGRESSED against the committed baseline. Each
# session measures 02 three times under valgrind and takes the median (check does too): about
# one run in 65 of bdwgc's 02 lands +1.9% high (docs/meters.md, "One run past its allowance").
BD="$TOP/baselines/shared_ci/bdwgc.json"
P=02_survivor_promotion
build_variant bdwgc-ir collectors/bdwgc "$T/bd-ir" -DGCR_PLANT_IR=0 $P
bd_planted() { # RATE: one session of the bdwgc plant build, exported to $T/s.json
	GCR_PLANT_IR=$1 expect_status 0 "$GCR" measure --build "$T/bd-ir" --probes $P --size ci \
		--rounds 1 --warmup 0 --meters rusage,census,valgrind --valgrind-runs 3
	"$GCR" export >"$T/s.json"
}
bd_ir() { sample $P valgrind valgrind.ir | sort -n | sed -n 2p; } # the median of the three
bd_planted 0
ir0=$(bd_ir) allocs=$(sample $P timed census.alloc_objects)
bd_planted 1
k=$(awk -v a="$(bd_ir)" -v b="$ir0" -v n="$allocs" 'BEGIN { printf "%.6f", (a - b) / n }')
jq --arg p $P '.cells |= map(select(.probe == $p and (.metric | startswith("minheap.") | not)))
	| .probes |= with_entries(select(.key == $p))
	| if has("functions") then .functions |= with_entries(select(.key == $p)) else . end
	| .overrides |= map(select(.probe == $p))' "$BD" >"$T/bd-base.json"
base=$(jq -r --arg p $P '.cells[] | select(.probe == $p and .metric == "valgrind.ir") | .median' "$T/bd-base.json")
expect_eq "$(jq -r '.rules["valgrind.ir"] | "\(.band_pct) \(.class)"' "$T/bd-base.json")" "1 banded" \
	"bdwgc's Ir rule: 1%, banded, as every build's"
expect_eq "$(jq '[.overrides[] | select(.metric == "valgrind.ir")] | length' "$T/bd-base.json")" 0 \
	"02's Ir repeated at pin: not widened"
# Planted at the percentage itself, no margin: a 1% band is far from either plant, and bdwgc's
# 02 Ir moves by up to about 0.012% between two sessions of one build (48,000 of 413M, seen on
# a fresh clone), which a 0.01% margin pushed past the 2.02% this checks.
for pc in 0.5 2; do
	n=$(awk -v b="$base" -v pc="$pc" -v m=0 -v ir0="$ir0" -v k="$k" -v a="$allocs" \
		'BEGIN { n = (b * (1 + pc / 100 + m) - ir0) / (k * a); n = int(n * 1e6 + 0.999999) / 1e6;
		         printf "%.6f", (n < 0 ? 0 : n) }')
	bd_planted "$n"
	"$GCR" check --profile shared_ci --collector bdwgc --build bdwgc-ir \
		--baseline "$T/bd-base.json" --format json >"$T/check.json" 2>"$T/err"
	read -r verdict delta <<EOF
$(jq -r '.cells[] | select(.metric == "valgrind.ir") | "\(.verdict) \(.delta)"' "$T/check.json")
EOF
	echo "bdwgc $P: $pc% planted, Ir $delta over $base: $verdict"
	if [ "$pc" = 0.5 ]; then
		expect_eq "$verdict" ok "bdwgc: a 0.5% plant is within its 1% band"
	else
		expect_eq "$verdict" regressed "bdwgc: a 2% plant is REGRESSED"
		if awk -v d="$delta" -v b="$base" 'BEGIN { exit !(d <= b * 0.0202) }'; then pass; else
			fail "bdwgc: the 2% plant came out at $delta, not at the old band's edge"
		fi
	fi
done
finish
