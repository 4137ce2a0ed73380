#!/bin/sh
# ab across designs: between two collector designs the census says how each works, not what
# it costs. When the builds' collector names differ (or with --across) census cells are
# context, shown and never judged, and every format says so; a cost (here the probe's own
# peak memory, or Ir, time, RSS) still decides. Builds of one collector keep judging the
# census, and --no-across judges it even across names.
. "$(dirname "$0")/lib.sh"
AB="$GCR ab --wide --size ci --rounds 3 --meters rusage,census --seed 94"

# ---- Two shipped designs: epsilon never collects, marksweep does -------------------------
expect_status 0 $AB epsilon marksweep --probes 01 --md "$T/em.md" --json "$T/em.json" \
	--html "$T/em.html"
expect_grep "across designs \(epsilon vs marksweep\): census counters are context, only costs decide \(--no-across judges them\)" "$T/err"
expect_grep "^judged across designs \(the collectors differ: epsilon vs marksweep\): census counters are context, only costs decide$" "$T/out"
# marksweep collects 25 times where epsilon never does: shown, not a regression.
expect_grep "^01_nursery_churn +census\.major_collections +0 +[1-9][0-9]* .* context$" "$T/out"
expect_grep "^01_nursery_churn +census\.heap_used_after_full_bytes .* context$" "$T/out"
expect_no_grep "^01_nursery_churn +census\..*(WORSE|better)$" "$T/out" "no census cell judged"
expect_grep "^  census: [0-9]+ deterministic counters compared exactly, [1-9][0-9]* differ between the designs \(context, not judged\):$" "$T/out"
expect_grep "^note: across designs the census says how each collector works, not what it costs: its [1-9][0-9]* cells are context" "$T/out"
expect_grep "^verdict: .*; across designs, census counters are context \([0-9]+ worse, [0-9]+ better, [0-9]+ same, [0-9]+ info, [1-9][0-9]* context, [0-9]+ not judged\)$" "$T/out"
expect_grep "^### gcratchet ab: .*; across designs, census counters are context$" "$T/em.md"
expect_grep "^Judged across designs \(the collectors differ: epsilon vs marksweep\)" "$T/em.md"
expect_grep "<details><summary>[0-9]+ more cells \([0-9]+ info, [0-9]+ same, [1-9][0-9]* context\)" "$T/em.md"
expect_grep "<div class=\"banner good\">.*across designs, census counters are context" "$T/em.html"
expect_grep "<p class=\"meta\">Judged across designs" "$T/em.html"
jq -r '.comparison as $c | [$c.across.designs, $c.across.mode,
	([$c.cells[] | select(.metric | startswith("census.")) | select(.role == "decides")] | length),
	([$c.cells[] | select(.role == "context")] | length) == $c.counts.context,
	([$c.identity.census_differences[] | select(.judged)] | length)] | map(tostring) | join(" ")' \
	"$T/em.json" >"$T/j"
expect_eq "$(cat "$T/j")" "true auto 0 true 0" "JSON: across, no census cell decides, counts agree"

# The same stored session judged as one design: the counters decide again.
session=$(sql "SELECT MAX(id) FROM sessions")
expect_status 1 "$GCR" report --session "$session" --no-across --wide
expect_grep "^01_nursery_churn +census\.major_collections +0 +[1-9][0-9]* .* WORSE$" "$T/out"
expect_grep "^note: judged as one design \(--no-across, though the collectors differ: epsilon vs marksweep\)" "$T/out"
expect_no_grep "context" "$T/out" "--no-across has no context cells"
expect_status 2 "$GCR" report --session "$session" --across --no-across
expect_grep "--across and --no-across contradict each other" "$T/err"
expect_status 2 $AB epsilon marksweep --no-across --across
expect_grep "--across and --no-across contradict each other" "$T/err"

# ---- Script builds: a collector name, a census and a peak memory of their own -------------
# cbuild DIR COLLECTOR ALLOC_BYTES VM_HWM_BYTES: one probe, 01_p, the same result everywhere;
# the build is named after its folder.
cbuild() {
	BUILD_NAME=$(basename "$1") make_script_build "$1" 01_p
	sed -i "s/\"collector\":\"scripted\"/\"collector\":\"$2\"/" "$1/manifest.json"
	cat >"$1/01_p" <<SCRIPT
#!/bin/sh
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_p","size":"%s","collector":"$2","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":$3,"major_collections":2},"memory":{"vm_hwm_bytes":$4}}' "\$1" >&3
SCRIPT
	seal_manifest "$1"
}
MIB=1048576
cbuild "$T/alpha" alpha 1000 $((8 * MIB))
cbuild "$T/beta" beta 1200 $((8 * MIB))
cbuild "$T/beta-fat" beta 1200 $((64 * MIB))
cbuild "$T/alpha2" alpha 1200 $((8 * MIB))

# Names differ, costs equal: the census difference is context, and nothing is worse.
expect_status 0 $AB "$T/alpha" "$T/beta"
expect_grep "^01_p +census\.alloc_bytes +1000 +1200 +\+200 .* context$" "$T/out"
expect_grep "^01_p +memory\.vm_hwm_bytes +8\.00 MiB +8\.00 MiB .* same$" "$T/out"
expect_grep "^verdict: no difference in costs; across designs, census counters are context" "$T/out"
# A planted cost still decides across designs.
expect_status 1 $AB "$T/alpha" "$T/beta-fat" --json "$T/fat.json"
expect_grep "^01_p +memory\.vm_hwm_bytes +8\.00 MiB +64\.00 MiB .* WORSE$" "$T/out"
expect_grep "^01_p +census\.alloc_bytes .* context$" "$T/out"
expect_grep "^verdict: FIX is WORSE on 1 cell; across designs, census counters are context" "$T/out"
expect_eq "$(jq -r '.comparison.outcome' "$T/fat.json")" worse "JSON outcome"
# One collector: a counter that differs is still a finding, and decides.
expect_status 1 $AB "$T/alpha" "$T/alpha2"
expect_grep "^01_p +census\.alloc_bytes +1000 +1200 +\+200 .* WORSE$" "$T/out"
expect_no_grep "across|context" "$T/out" "one design says nothing of designs"
# ... unless the user says the two are different designs.
expect_status 0 $AB "$T/alpha" "$T/alpha2" --across
expect_grep "across designs \(alpha vs alpha, --across\): census counters are context, only costs decide$" "$T/err"
expect_grep "^judged across designs \(--across\): census counters are context, only costs decide$" "$T/out"
expect_grep "^01_p +census\.alloc_bytes .* context$" "$T/out"
finish
