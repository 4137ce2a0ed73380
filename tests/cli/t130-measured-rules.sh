#!/bin/sh
# needs: valgrind
# Issue 24: rules measured, not declared. A build whose census counts jitter by +-1 (a JIT's
# stand-in) is pinned and ratcheted ten times without a false alarm; an exact cell written
# back by hand over its spread is refused by validate; the capabilities a census sends are
# recorded with the build; only declared knobs reach a probe, the rest are named once and
# change no figure; a knob the baseline was not pinned with makes check say so; a probe edited
# during a session fails its runs.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines" GCR_LOCK_FILE="$T/bench.lock"
B="$T/jit"
BUILD_NAME=jit make_script_build "$B" 01_jitter 02_steady
# 01's collection count is 4, 5 or 6, drawn per run; both say they are precise collectors.
for p in 01_jitter 02_steady; do
	cat >"$B/$p" <<SCRIPT
#!/bin/sh
gcs=4
if [ $p = 01_jitter ]; then gcs=\$((4 + \$(od -An -N1 -tu1 /dev/urandom) % 3)); fi
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","capabilities":["collects","precise"],"checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"major_collections":%s}}' "\$1" "\$gcs" >&3
SCRIPT
	chmod +x "$B/$p"
done
seal_manifest "$B"

# Pin measures three sessions in varied environments and bands the jitter by its spread.
expect_status 0 "$GCR" baseline pin --profile shared_ci --build "$B" --meters rusage,census
F="$T/baselines/shared_ci/scripted.json"
# A precise build's count that jitters is judged against its 15 pinning runs (issue 40): the
# override keeps the evidence, the band is the least shift worth reporting, not twice the spread.
expect_grep "^override 01_jitter census.major_collections: distribution, band [0-9.]+ \(runs [456] to [456] over 15 runs in 3 sessions\)" "$T/out"
expect_grep '"probe": "01_jitter", "metric": "census.major_collections", .*"n": 15, "sessions": 3' "$F"
expect_eq "$(jq -r '.rules["census.major_collections"].class' "$F")" exact "a precise build's counts are exact by rule"
expect_eq "$(jq -r '.overrides[] | select(.probe == "01_jitter" and .metric == "census.major_collections") | .class' "$F")" distribution \
	"the jittering cell is judged by its distribution, as pin measured it"
expect_eq "$(jq -r '.cells[] | select(.probe == "01_jitter" and .metric == "census.major_collections") | .runs | length' "$F")" 15 \
	"and keeps its 15 pinning runs"
expect_eq "$(jq -r '[.overrides[] | select(.probe == "02_steady")] | length' "$F")" 0 "the steady probe stays exact"
expect_eq "$(jq -c '.capabilities' "$F")" '["collects","precise"]' "the baseline records what the build said it does"
expect_eq "$(jq -c '.knobs' "$F")" '{}' "and the knobs it was pinned with"
expect_eq "$(sql "SELECT capabilities FROM builds WHERE name = 'jit'")" '["collects", "precise"]' \
	"the store records the census's capabilities with the build"
expect_status 0 "$GCR" baseline validate "$F"
# A re-pin keeps the accepted regressions of the file it replaces, for the cells it pins again.
jq '.ledger = [{"probe": "02_steady", "metric": "census.alloc_bytes", "old": 900, "new": 1000,
	"reason": "bigger objects", "date": "2026-12-01T00:00:00Z", "who": "t130"},
	{"probe": "09_gone", "metric": "census.alloc_bytes", "old": 1, "new": 2, "reason": "x",
	"date": "2026-12-01T00:00:00Z", "who": "t130"}]' "$F" >"$T/ledger.json"
jq '.ledger |= .[:1]' "$T/ledger.json" >"$T/re.json"
expect_status 0 "$GCR" baseline pin --profile shared_ci --build "$B" --session latest --out "$T/re.json"
expect_grep "^kept 1 ledger entry of the file it replaces" "$T/out"
expect_eq "$(jq -r '.ledger[0].reason' "$T/re.json")" "bigger objects" "the ledger survives the re-pin"

# Ten ratchets of the unchanged build: no false alarm.
alarms=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$GCR" ratchet --profile shared_ci --build "$B" >"$T/r.out" 2>&1 || alarms=$((alarms + 1))
done
expect_eq "$alarms" 0 "ratchets of the jittering build that did not pass"

# By hand, the jittering cell made exact again (its override gone): validate refuses it.
jq '.overrides = [.overrides[] | select(.probe != "01_jitter")]' "$F" >"$T/exact.json"
expect_status 2 "$GCR" baseline validate "$T/exact.json"
expect_grep "cells\[[0-9]+\] \(01_jitter census.major_collections\): class exact, but its 15 pinning runs differ \([456] to [456]\)" "$T/err"

# ---- Knobs: only declared ones reach a probe --------------------------------------------
# A stray GCR_* variable changes nothing and is named once; epsilon's Ir on probe 10 moved by
# +1.08% with sixteen of them before.
strays=$(awk 'BEGIN { for (i = 1; i <= 16; i++) printf "GCR_X%02d=1 ", i }')
if [ -x "$TOP/build/collectors/epsilon/10_large_objects" ] && command -v valgrind >/dev/null; then
	expect_status 0 "$GCR" measure --collector epsilon --probes 10 --size ci --rounds 1 --warmup 0 --meters rusage,census,valgrind
	plain=$("$GCR" export | jq '[.runs[] | select(.kind == "valgrind")][0].metrics["valgrind.ir"]')
	env $strays "$GCR" measure --collector epsilon --probes 10 --size ci --rounds 1 --warmup 0 \
		--meters rusage,census,valgrind >"$T/out" 2>"$T/err"
	expect_grep "not passed to the probes: GCR_X01, GCR_X02, .*GCR_X16 \(no build of this session declares them as a knob" "$T/err"
	expect_eq "$(grep -c 'not passed to the probes' "$T/err")" 1 "said once"
	stray=$("$GCR" export | jq '[.runs[] | select(.kind == "valgrind")][0].metrics["valgrind.ir"]')
	expect_eq "$stray" "$plain" "epsilon's Ir on probe 10 with sixteen stray GCR_ variables"
else
	fail "epsilon's build or valgrind is missing: run make"
fi

# A knob the build declares reaches it and is recorded with the arm; one it does not is refused.
expect_status 2 "$GCR" measure --collector gen --probes 01 --knob GCR_NURSRY_KB=64
expect_grep "--knob GCR_NURSRY_KB=64: build gen does not read GCR_NURSRY_KB \(the knobs its manifest declares: .*GCR_NURSERY_KB" "$T/err"
expect_status 0 "$GCR" measure --collector gen --probes 01 --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session latest --out "$T/gen.json"
expect_eq "$(jq -c '.knobs' "$T/gen.json")" '{}' "gen pinned without knobs"
GCR_NURSERY_KB=2048 expect_status 0 "$GCR" measure --collector gen --probes 01 --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_eq "$("$GCR" export | jq -c '.arms[0].knobs')" '{"GCR_NURSERY_KB":"2048"}' "the knob from the environment is recorded with the arm"
expect_status 2 "$GCR" check --profile shared_ci --collector gen --baseline "$T/gen.json"
expect_grep "^COULD NOT JUDGE: the probes ran with other knobs than the baseline was pinned with: GCR_NURSERY_KB=2048 \(pinned without it\)" "$T/out"

# ---- A probe edited while the session runs ----------------------------------------------
E="$T/edits"
make_script_build "$E" 01_edits 02_fine
# The probe appends a line to its own file when it runs: what runs next is other bytes.
cat >>"$E/01_edits" <<SCRIPT
echo "# edited" >>"$E/01_edits"
SCRIPT
seal_manifest "$E"
expect_status 2 "$GCR" measure --build "$E" --rounds 3 --warmup 0 --meters rusage,census
n=$(sql "SELECT COUNT(*) FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.id = (SELECT MAX(id) FROM sessions) AND r.probe = '01_edits' AND r.status = 'failed' AND r.detail LIKE '%changed during the session%'")
expect_eq "$n" 3 "every run of the probe that changed is failed"
n=$(sql "SELECT COUNT(*) FROM runs WHERE session_id = (SELECT MAX(id) FROM sessions) AND probe = '02_fine' AND status = 'ok'")
expect_eq "$n" 3 "the other probe's runs are measured"
finish
