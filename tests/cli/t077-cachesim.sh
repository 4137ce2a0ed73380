#!/bin/sh
# needs: valgrind
# The cachesim meter sees what Ir cannot: gen built with GCR_PLANT_SCATTER=8 (plant.h: a fresh
# old-generation block hands out its cells 8 apart, so survivors promoted one after another
# land on different cache lines) runs about the same instructions, but misses D1 far more.
# Checked against a baseline pinned here from the unplanted gen, the plant is REGRESSED on
# cachesim.d1_misses and cachesim.est_cycles and within its band on valgrind.ir. The cache
# simulation repeats: two sessions of the same build agree within 10 ppm.
. "$(dirname "$0")/lib.sh"

PROBES="02_survivor_promotion 05_binary_trees"
LIST=$(echo $PROBES | tr ' ' ,)

build_variant gen-scatter collectors/gen "$T/gen-scatter" -DGCR_PLANT_SCATTER=8 $PROBES

"$GCR" list metrics >"$T/metrics"
for m in d1_misses ll_misses i1_misses est_cycles; do
	expect_grep "^cachesim\.$m +count +valgrind +lower +exact " "$T/metrics"
done

m() { # BUILD-OPTIONS...: one session with the cache simulation, exported to $T/s<id>.json
	expect_status 0 "$GCR" measure "$@" --probes "$LIST" --size ci --rounds 1 --warmup 0 \
		--meters rusage,census,cachesim
	"$GCR" export >"$T/last.json"
	id=$(jq -r .session.id "$T/last.json")
	mv "$T/last.json" "$T/s$id.json"
}
m --collector gen --build "$T/gen-scatter"
a=$id
expect_grep "^meters: rusage, census, valgrind Ir and cache simulation \(valgrind-" "$T/out"
expect_eq "$(jq -r '.session.meters | map(sub(":.*"; "")) | join(",")' "$T/s$a.json")" \
	"rusage,census,valgrind,cachesim" "the session's meters"
m --collector gen
b=$id

# Determinism: gen's counts in the two sessions, metric by metric.
counts() { # SESSION BUILD
	jq -r --arg b "$2" '.runs[] | select(.kind == "valgrind" and .build == $b)
		| .probe as $p | .samples | to_entries[] | "\($p) \(.key) \(.value)"' "$T/s$1.json" | sort
}
counts "$a" gen >"$T/ca"
counts "$b" gen >"$T/cb"
expect_eq "$(grep -c cachesim "$T/ca")" 8 "four cache metrics per probe"
# The simulation repeats to a few misses in millions, not exactly: the session's random scratch
# folder name (/tmp/gcratchet.XXXXXX, the probe's path) moves Ir by tens of instructions and
# LL misses by a couple (2 in 1,897,545 on 02, seen here). So the two sessions must agree on
# every miss count within 10 ppm, and on est_cycles too (it adds Ir); the plant moves D1
# misses by 25-31%, ten thousand times that.
grep 'cachesim\.' "$T/ca" >"$T/ca.sim"
grep 'cachesim\.' "$T/cb" >"$T/cb.sim"
awk '{print $1"/"$2, $3}' "$T/ca.sim" | sort >"$T/ca.key"
awk '{print $1"/"$2, $3}' "$T/cb.sim" | sort >"$T/cb.key"
far=$(join -j1 "$T/ca.key" "$T/cb.key" | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1e-5 * $2 + 2) print }')
if [ "$(wc -l <"$T/ca.sim")" -eq 8 ] && [ "$(wc -l <"$T/cb.sim")" -eq 8 ] && [ -z "$far" ]; then pass; else
	fail "the cache simulation gave counts more than 10 ppm apart in a second session: $far"
	diff "$T/ca.sim" "$T/cb.sim" >&2
fi
echo "cachesim counts of gen, within 10 ppm in sessions $a and $b:"
sed 's/^/  /' "$T/ca.sim"

# A baseline pinned from the unplanted gen gates the cache metrics, and the same build passes.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session "$a" --build gen \
	--out "$T/gen.json"
expect_eq "$(jq -c '.meters' "$T/gen.json")" '["rusage","census","valgrind","cachesim"]' "pinned meters"
expect_eq "$(jq -c '.rules["cachesim.d1_misses"]' "$T/gen.json")" \
	'{"gated":true,"direction":"increase","band_pct":1,"band_abs":1000,"class":"banded"}' "d1 rule"
expect_eq "$(jq -c '.rules["cachesim.est_cycles"]' "$T/gen.json")" \
	'{"gated":true,"direction":"increase","band_pct":1,"band_abs":0,"class":"banded"}' "est_cycles rule"
expect_status 0 "$GCR" check --all --profile shared_ci --collector gen --session "$b" --build gen \
	--baseline "$T/gen.json"
expect_grep "^verdict: ok" "$T/out"

# The scattered build: caught by the cache simulation, not by Ir, and the census is the same.
expect_status 1 "$GCR" check --all --profile shared_ci --collector gen --session "$a" --build gen-scatter \
	--baseline "$T/gen.json"
cp "$T/out" "$T/scatter"
for p in $PROBES; do
	expect_grep "^$p +cachesim\.d1_misses .* REGRESSED: [0-9][^;]* past the allowance$" "$T/scatter"
	expect_grep "^$p +cachesim\.est_cycles .* REGRESSED: [0-9][^;]* past the allowance$" "$T/scatter"
	expect_grep "^$p +valgrind\.ir .* ok$" "$T/scatter"
done
expect_no_grep "census\..* REGRESSED" "$T/scatter" "a locality plant moves no census counter"
grep -E "^[0-9]{2}_[a-z_]+ +(valgrind\.ir|cachesim\.)" "$T/scatter"
finish
