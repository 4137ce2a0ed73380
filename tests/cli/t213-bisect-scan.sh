#!/bin/sh
# Issue 44: a range scan (bisect --all) names every change point of a figure in a range, each
# with its commit, way and size, in fewer measurements than commits, and says how much of the
# ends' move they explain. The history: 20 commits of bisect-repo.sh's scripted probes whose
# figure moves three times, up at c5 (+20%), down at c11 (-15%, back below where it began) and
# a small step up at c16 (+2%, past a 1% threshold). On an exact figure (census.alloc_bytes)
# and on a noisy one (time.user_ns, planted CPU time, paired runs). A plain bisect of the same
# range names one commit and says it is only part of the move, and where else its steps saw one.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

build_cpu_spin

S=$T/scripted
script_repo "$S"
for k in $(seq 1 20); do
	a=1000 ms=100
	[ "$k" -ge 5 ] && a=1200 ms=160
	[ "$k" -ge 11 ] && a=1020 ms=110
	[ "$k" -ge 16 ] && a=1040 ms=130
	script_commit "$S" "$k" "alloc-01_sleepy.txt=$a" "spin-01_sleepy.txt=$ms"
done
for k in 1 4 5 10 11 15 16 20; do eval "S$k=$(bisect_hash "$S" $k)"; done
short() { echo "$1" | cut -c1-7; }

# Exact: one run of each commit measured, three changes and no other.
expect_status 0 "$GCR" bisect --all --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric census.alloc_bytes --threshold 1% --json "$T/exact.json"
cp "$T/out" "$T/exact.out"
expect_grep "^bisect 1: every change of census\.alloc_bytes of 01_sleepy at size ci, from $(short "$S1") to $(short "$S20") in .*: 18 commits between, first split in 4 stretches$" "$T/exact.out"
expect_grep "^census\.alloc_bytes between $(short "$S1") and $(short "$S20"): 3 changes found$" "$T/exact.out"
expect_grep "^  up   $S5 c5: " "$T/exact.out"
expect_grep "^  down $S11 c11: " "$T/exact.out"
expect_grep "^  up   $S16 c16: " "$T/exact.out"
expect_grep "^       01_sleepy census\.alloc_bytes: 1000 B? ?-> 1200 B? ?\(\+20\.00%\)$" "$T/exact.out"
expect_grep "^  01_sleepy: the changes found add up to \+40 B? ?of the ends' \+40 B? ?\(100% of the move\)$" "$T/exact.out"
expect_eq "$(jq -r '[.status, (.scan.changes | map(.commit[0:7] + " " + .direction + " " + .kind) | join(","))] | join(" ")' "$T/exact.json")" \
	"found $(short "$S5") up change,$(short "$S11") down change,$(short "$S16") up change" \
	"the JSON names the three changes, their way and kind"
measured=$(jq '.scan.measured' "$T/exact.json")
expect_eq "$([ "$measured" -lt 20 ] && echo fewer)" fewer "fewer commits measured ($measured) than the 20 of the range"
expect_eq "$(jq '.scan.explained["01_sleepy"] | [.ends, .found, .pct] | map(tostring) | join(" ")' -r "$T/exact.json")" "40 40 100" \
	"the JSON says the changes explain all of the ends' move"
expect_eq "$(jq '[.steps[] | select(.role == "step")] | length' "$T/exact.json")" "$((measured - 2))" \
	"one stored step per commit measured between the ends"

# --segments as many as the stretches measures every commit, and finds the same three.
expect_status 0 "$GCR" bisect --all --segments 19 --build-cmd "sh build.sh" --repo "$S" --good "$S1" \
	--bad "$S20" --probe 01 --metric census.alloc_bytes --threshold 1% --json "$T/every.json"
expect_eq "$(jq -r '[.scan.measured, (.scan.changes | map(.commit[0:7]) | join(","))] | map(tostring) | join(" ")' "$T/every.json")" \
	"20 $(short "$S5"),$(short "$S11"),$(short "$S16")" "every commit measured, the same three changes"

# Noisy: CPU time (+60% at c5, -31% at c11, +18% at c16, past a 10% threshold), each commit
# paired with its measured neighbours in one session: the same three changes, and no other.
expect_status 0 "$GCR" bisect --all --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric time.user_ns --threshold 10% --warmup 0 --rounds 8 --max-rounds 16 --json "$T/noisy.json"
cp "$T/out" "$T/noisy.out"
expect_grep "^paired: each commit runs interleaved with the measured commits before and after it, 8 rounds at a time up to 16; a stretch moved when time\.user_ns moved beyond 10%" "$T/noisy.out"
expect_grep "^time\.user_ns between $(short "$S1") and $(short "$S20"): 3 changes found$" "$T/noisy.out"
expect_grep "^       01_sleepy time\.user_ns: \+[0-9.]+ ms median delta \(\+[0-9.]+%\)$" "$T/noisy.out"
expect_eq "$(jq -r '[.mode, .status, (.scan.changes | map(.commit[0:7] + " " + .direction) | join(","))] | join(" ")' "$T/noisy.json")" \
	"paired found $(short "$S5") up,$(short "$S11") down,$(short "$S16") up" \
	"paired: the same three changes, their ways"
measured=$(jq '.scan.measured' "$T/noisy.json")
expect_eq "$([ "$measured" -lt 20 ] && echo fewer)" fewer "fewer commits measured ($measured) than the 20 of the range"
# Each measurement is one session of three arms: the commit between its neighbours.
ids=$(jq -r '[.steps[] | select(.role == "step") | .sessions[]] | map(tostring) | join(",")' "$T/noisy.json")
expect_eq "$(sql "SELECT count(DISTINCT session_id) FROM session_builds WHERE session_id IN ($ids)") $(sql "SELECT count(*) FROM (SELECT session_id FROM session_builds WHERE session_id IN ($ids) GROUP BY session_id HAVING count(*) != 3)")" \
	"$(echo "$ids" | tr ',' '\n' | sort -u | wc -l) 0" \
	"every session of the scan's steps has three arms"

# Stopped while pass 3 builds, the scan resumes where it stood: the same three changes, and no
# commit built twice but the one whose build was cut short.
cat >"$T/hold-build.sh" <<EOF2
n=\$(cat "$T/builds" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"$T/builds"
if [ -f "$T/hold" ] && [ \$n -eq 6 ]; then
	touch "$T/held"
	while [ -f "$T/hold" ]; do sleep 0.1; done
fi
exec sh build.sh
EOF2
touch "$T/hold"
"$GCR" bisect --all --build-cmd "sh $T/hold-build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric census.alloc_bytes --threshold 1% >"$T/first.out" 2>"$T/first.err" &
pid=$!
await 120 test -f "$T/held" || echo "the scan never reached its sixth build" >&2
id=$(sql "SELECT max(id) FROM bisects")
expect_eq "$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = $id")" 5 "the ends and passes 1-2's three commits stored when it is stopped"
kill -TERM $pid
wait $pid
expect_eq "$?" 2 "a scan stopped exits 2"
rm -f "$T/hold"
expect_status 0 "$GCR" bisect --resume "$id" --json "$T/resumed.json"
expect_grep "^bisect $id: resuming: 5 steps stored$" "$T/out"
expect_eq "$(jq -r '[.scan.measured, (.scan.changes | map(.commit[0:7]) | join(","))] | map(tostring) | join(" ")' "$T/resumed.json")" \
	"$(jq -r '[.scan.measured, (.scan.changes | map(.commit[0:7]) | join(","))] | map(tostring) | join(" ")' "$T/exact.json")" \
	"resumed, the same commits measured and the same three changes as the scan not stopped"
expect_eq "$(cat "$T/builds")" "$(($(jq .scan.measured "$T/exact.json") + 1))" \
	"each commit measured built once, and the build the stop cut short once more"

# A plain bisect of the same range names c5 and says it is not the whole story: c5 alone is 500%
# of the ends' +4%, and its steps saw the figure move back down after it, with the bisect that
# finds that move (census.alloc_bytes is better lower: a fall is found with --improved).
expect_status 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric census.alloc_bytes --threshold 1% --json "$T/plain.json"
cp "$T/out" "$T/plain.out"
expect_grep "^$S5 is the first bad commit$" "$T/plain.out"
expect_grep "^    it is 500% of 01_sleepy's move between the ends; the steps saw it move elsewhere too:$" "$T/plain.out"
expect_grep "^      [0-9a-f]{7}\.\.[0-9a-f]{7}: -[0-9.]+%: bisect again with --good [0-9a-f]{7} --bad [0-9a-f]{7} --improved$" "$T/plain.out"
expect_grep "^    every change of the range: the same bisect with --all$" "$T/plain.out"
expect_eq "$(jq -r '.first_bad.figures["01_sleepy"] | [.share, .part, (.elsewhere | length), (.elsewhere[0].delta_pct < 0)] | map(tostring) | join(" ")' "$T/plain.json")" \
	"5 true 1 true" "the JSON: its share of the move, only part of it, and the fall its steps saw after it"

# A commit whose run crashes only with address randomisation on (c4, the first pass's commit)
# is a skip that says so, run once more with it off; the scan measures another commit of the
# stretch instead and still finds the one change (c6).
C=$T/crashy
script_repo "$C"
for k in 1 2 3 4 5 6 7 8; do
	a=1000 crash=0
	[ "$k" -ge 6 ] && a=1100
	[ "$k" = 4 ] && crash=aslr
	script_commit "$C" "$k" "alloc-01_sleepy.txt=$a" "crash-01_sleepy.txt=$crash"
done
expect_status 0 "$GCR" bisect --all --build-cmd "sh build.sh" --repo "$C" --good "$(bisect_hash "$C" 1)" \
	--bad "$(bisect_hash "$C" 8)" --probe 01 --metric census.alloc_bytes --threshold 1% --json "$T/crashy.json"
cp "$T/out" "$T/crashy.out"
expect_grep "^       skipped: 01_sleepy crashed: .*; run once more with address randomisation off, it did not crash: the crash depends on the address layout, and --no-aslr runs every probe so$" \
	"$T/crashy.out" "the crash at c4 is checked with ASLR off and said to depend on the layout"
expect_eq "$(jq -r '[.status, (.scan.changes | map(.subject[0:3] + " " + .kind) | join(",")), .scan.skipped] | map(tostring) | join(" ")' "$T/crashy.json")" \
	"found c6: change 1" "the one change found around the skip"

# Every JSON written is valid against docs/schema/gcratchet-bisect.json.
need_jsonschema
"$PY" "$TOP/tests/cli/schema-check.py" "$TOP/docs/schema" "$T/exact.json" "$T/noisy.json" \
	"$T/every.json" "$T/resumed.json" "$T/plain.json" "$T/crashy.json" >"$T/schema.out" 2>&1
expect_eq "$?" 0 "each scan's JSON is valid against its schema"
expect_eq "$(grep -c ': ok gcratchet-bisect$' "$T/schema.out")" 6 "each of the six checked"

# Bad uses: --segments without --all, --all with --improved.
expect_status 2 "$GCR" bisect --segments 3 --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric census.alloc_bytes
expect_grep "segments shapes a range scan: give --all with it" "$T/err"
expect_status 2 "$GCR" bisect --all --improved --build-cmd "sh build.sh" --repo "$S" --good "$S1" --bad "$S20" \
	--probe 01 --metric census.alloc_bytes
expect_grep "\-\-all finds every change, up and down" "$T/err"
finish
