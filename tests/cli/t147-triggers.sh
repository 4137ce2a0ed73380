#!/bin/sh
# Collections by cause (the census "triggers", docs/census-protocol.md): gen and marksweep
# count every collection under what started it, the counts add up to minor + major
# collections and are stored as census.trigger_<name>; an A/B of gen with its nursery halved
# shows census.trigger_allocation moving as an info cell beside the minor collections that
# decide. A census-protocol build's triggers are read strictly: an unknown name is a warning
# kept on the run, counts that do not add up are kept with a warning, a count that is not an
# exact integer fails the run.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
exported() { "$GCR" export --session "$1" | jq -r "$2"; }
tsum='[to_entries[] | select(.key | startswith("census.trigger_")) | .value] | add'

# ---- The shipped collectors ---------------------------------------------------------------
expect_status 0 "$GCR" measure --collector gen --collector marksweep --probes 01,02 --size ci \
	--rounds 1 --warmup 0 --meters rusage,census --seed 147
s=$("$GCR" export | jq -r .session.id)
expect_eq "$(exported "$s" "[.runs[] | .samples | . as \$m | ($tsum) == \$m.\"census.minor_collections\" + \$m.\"census.major_collections\"] | all")" \
	true "the triggers add up to minor + major collections"
expect_eq "$(exported "$s" '[.runs[] | select(.build == "gen") | .samples | keys[] | select(startswith("census.trigger_"))] | unique | join(",")')" \
	"census.trigger_allocation,census.trigger_explicit,census.trigger_heap_limit,census.trigger_large_object,census.trigger_zeal" \
	"gen reports its five triggers, zeros too"
expect_eq "$(exported "$s" '[.runs[] | select(.build == "marksweep") | .samples | keys[] | select(startswith("census.trigger_"))] | unique | join(",")')" \
	"census.trigger_allocation,census.trigger_explicit,census.trigger_heap_limit,census.trigger_zeal" \
	"marksweep reports its four"
# gen's two explicit collections are the runtime's final gcr_collect(GCR_FULL): a minor and a
# major in one pause; marksweep's is one.
expect_eq "$(exported "$s" '[.runs[] | "\(.build) \(.samples["census.trigger_explicit"]) \(.samples["census.trigger_allocation"] > 0)"] | unique | join(",")')" \
	"gen 2 true,marksweep 1 true" "explicit: the final full collection; the rest allocation"

# ---- A/B: gen with its nursery halved (4096 KiB by default) --------------------------------
expect_status 1 "$GCR" ab --wide gen gen --knob-fix GCR_NURSERY_KB=2048 --probes 01 --size ci \
	--rounds 2 --warmup 0 --meters rusage,census --seed 1470 --json "$T/ab.json"
jq -r '.comparison.cells[] | select(.metric == "census.trigger_allocation") |
	[.role, .verdict, .deterministic, (.fix_median > 1.8 * .base_median)] | map(tostring) |
	join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "info info true true" "trigger_allocation about doubles: an exact info cell"
jq -r '.comparison.cells[] | select(.metric == "census.trigger_explicit") |
	[.verdict, .delta_median] | map(tostring) | join(" ")' "$T/ab.json" >"$T/j"
expect_eq "$(cat "$T/j")" "info 0" "trigger_explicit unchanged"
expect_eq "$(jq -r '.comparison.cells[] | select(.metric == "census.minor_collections") | .verdict' "$T/ab.json")" \
	worse "the minor collections decide"
expect_grep "^01_nursery_churn +census\.trigger_allocation +[0-9]+ +[0-9]+ +\+[1-9][0-9]* .* info$" "$T/out"

# ---- A census-protocol build's triggers, read strictly -------------------------------------
C=$T/scripted
make_script_build "$C" 01_unknown 02_short 03_frac
probe() {
	cat >"$C/$1" <<SCRIPT
#!/bin/sh
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$1","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"minor_collections":0,"major_collections":3},"triggers":$2}' "\$1" >&3
SCRIPT
	chmod +x "$C/$1"
}
probe 01_unknown '{"allocation":2,"explicit":1,"pacing":4}'
probe 02_short '{"allocation":1,"explicit":1}'
probe 03_frac '{"allocation":2.5}'
seal_manifest "$C"
expect_status 2 "$GCR" measure --build "$C" --rounds 1 --warmup 0 --meters rusage,census --size ci
s=$("$GCR" export | jq -r .session.id)
expect_grep 'warning: unknown census key "triggers.pacing" \(not stored' "$T/out"
expect_eq "$(exported "$s" '.runs[] | select(.probe == "01_unknown") | "\(.status) \(.samples["census.trigger_allocation"]) \(.samples["census.trigger_explicit"]) \(.samples | has("census.trigger_pacing"))"')" \
	"ok 2 1 false" "an unknown trigger: the run is ok, the known ones stored"
expect_eq "$(exported "$s" '.runs[] | select(.probe == "02_short") | "\(.status) \(.samples["census.trigger_allocation"]) \(.detail)"')" \
	"ok 1 the triggers count 2 collections, minor_collections + major_collections 3: a collection was missed by one of them" \
	"triggers that do not add up: kept, with a warning"
expect_eq "$(exported "$s" '.runs[] | select(.probe == "03_frac") | "\(.status) \(.detail)"')" \
	"bad_census census: triggers.allocation: must be a non-negative integer below 2^53, got 2.5" \
	"a count that is not an exact integer fails the run"
finish
