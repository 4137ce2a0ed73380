#!/bin/sh
# needs: valgrind
# compare A B (issue 43, item 3): two stored results judged as ab judges its arms, with no run
# made. An ab session split in two stored sessions (BASE's arm in one, FIX's in the other) must
# give ab's cells and verdicts exactly, and compare N N of the ab session the same; different
# hosts or harness builds are said plainly and still compared; an unknown session, an arm not
# found, sessions with no probe in common and a baseline file that does not parse are refused
# with a message naming it, exit 2. A baseline file is a side too: its medians pair with rounds.
. "$(dirname "$0")/lib.sh"

expect_status 1 "$GCR" ab gen marksweep --probes 01,05 --rounds 6 --size ci \
	--meters rusage,census,valgrind --seed 202 --json "$T/ab.json"
runs=$(sql "SELECT COUNT(*) FROM runs")

# The same session, two of its arms: what ab printed.
expect_status 1 "$GCR" compare 1 1 --json "$T/same.json" --md "$T/same.md" --html "$T/same.html"
expect_grep "^gcratchet compare: FIX is WORSE on [0-9]+ cells: marksweep vs gen \(6 of 6 rounds\)$" "$T/out"
expect_grep "^gcratchet compare: BASE is arm \"gen\" of session 1's 2" "$T/err"
for f in same.md same.html; do
	[ -s "$T/$f" ] && pass || fail "compare --${f#same.} wrote nothing"
done

# cells JSON_A JSON_B: every cell (its figures, statistics and verdict), the counts, the
# outcome and where the instructions moved, equal.
cells() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p))["comparison"] for p in sys.argv[1:3])
keys = ["cells", "counts", "outcome", "identity", "where", "fdr", "rounds_complete"]
bad = [k for k in keys if a.get(k) != b.get(k)]
print("same" if not bad and a["cells"] else "differ: " + " ".join(bad))
PY
}
expect_eq "$(cells "$T/ab.json" "$T/same.json")" same "compare 1 1 against ab's JSON"

# Split the ab session in two stored sessions: FIX's arm and its runs move to session 2.
sql "INSERT INTO sessions(id, host_id, command, started_at, finished_at, status, seed, size,
	rounds, warmup, probes, meters, load_before, load_after, harness_version, facts, pid,
	boot_id, uuid)
	SELECT 2, host_id, command, started_at || '.5', finished_at, status, seed, size, rounds,
	warmup, probes, meters, load_before, load_after, harness_version, facts, pid + 1, boot_id,
	'00000000-0000-4000-8000-000000000202' FROM sessions WHERE id = 1;
	INSERT INTO session_builds(session_id, position, build_id, label, knobs)
	SELECT 2, 0, build_id, label, knobs FROM session_builds WHERE session_id = 1 AND position = 1;
	UPDATE runs SET session_id = 2, arm = 0 WHERE session_id = 1 AND arm = 1;
	DELETE FROM session_builds WHERE session_id = 1 AND position = 1;"
expect_eq "$(sql "SELECT COUNT(DISTINCT session_id) || ' ' || COUNT(*) FROM runs")" "2 $runs" \
	"the split: two sessions, every run kept"
expect_status 1 "$GCR" compare 1 2 --json "$T/split.json"
expect_eq "$(cells "$T/ab.json" "$T/split.json")" same "compare of the two sessions against ab's JSON"
expect_grep "^gcratchet compare: BASE gen from session 1 \(complete, .*, size ci, 6 rounds, host [^)]+\)$" "$T/out"
expect_grep "^gcratchet compare: FIX marksweep from session 2 \(complete, " "$T/out"
expect_no_grep "DIFFERENT" "$T/out" "one host and one harness said to differ"
expect_eq "$(cat "$T/err")" "" "nothing on stderr for two one-arm sessions"
# Its comment and page say where each side came from, not one session's interleaving.
expect_status 1 "$GCR" compare 1 2 --md "$T/split.md" --html "$T/split.html"
expect_grep "^### gcratchet compare: FIX is WORSE" "$T/split.md" "the comment is compare's"
expect_grep "^FIX marksweep from session 2 \(complete, " "$T/split.md" "the comment names FIX's session"
expect_no_grep "interleaved ABBA" "$T/split.md" "two sessions are not said to be interleaved"
expect_grep "<h1>gcratchet compare: gen vs marksweep</h1>" "$T/split.html"
expect_grep "FIX marksweep from session 2 \(complete, " "$T/split.html" "the page names FIX's session"
expect_no_grep "interleaved ABBA" "$T/split.html" "nor on the page"
expect_status 1 "$GCR" compare 1 latest
expect_grep "^gcratchet compare: FIX marksweep from session 2 " "$T/out"

# A baseline file as one side: pinned from BASE's session, it is no different from it; against
# FIX's session it is what ab said of FIX. Its medians pair with every round.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session 1 --out "$T/gen-pin.json"
expect_status 0 "$GCR" compare "$T/gen-pin.json" 1
expect_grep "^gcratchet compare: no difference: gen vs gen \(pinned\) \(6 of 6 rounds\)$" "$T/out"
expect_grep "^gcratchet compare: BASE gen \(pinned\) from baseline $T/gen-pin.json \(pinned " "$T/out"
expect_grep "medians, not runs: each round pairs with the pinned median" "$T/out"
expect_grep "^  01_nursery_churn +checksum 0x[0-9a-f]{16} in both$" "$T/out"
expect_status 1 "$GCR" compare "$T/gen-pin.json" 2 --md "$T/pin2.md"
expect_grep "^gcratchet compare: FIX is WORSE on [0-9]+ cells: marksweep vs gen \(pinned\) \(6 of 6 rounds\)$" "$T/out"
expect_grep "^  worse: Ir \+[0-9.]+% on 2 probes" "$T/out"
expect_eq "$(jq -r '.comparison.cells[] | select(.probe == "01_nursery_churn" and .metric == "valgrind.ir") | .verdict' "$T/ab.json")" \
	worse "ab judged Ir worse"
expect_grep "^  valgrind\.ir .* WORSE$" "$T/out"
[ -s "$T/pin2.md" ] && pass || fail "compare --md against a baseline wrote nothing"
printf '{\n  "format": "gcratchet-baseline",\n  "version": 1,\n  "profile": \n}\n' >"$T/bad.json"
expect_status 2 "$GCR" compare 1 "$T/bad.json"
expect_grep "^gcratchet compare: B: $T/bad.json:5:1: not valid JSON" "$T/err"
expect_status 2 "$GCR" compare "$T/gen-pin.json" 1 --json "$T/no.json"
expect_grep "^gcratchet compare: --json: A is a baseline file, whose pinned cells are no stored session" "$T/err"
[ -e "$T/no.json" ] && fail "compare --json against a baseline wrote a file" || pass
expect_status 2 "$GCR" compare "$T/gen-pin.json" "$T/gen-pin.json"
expect_grep "A and B are both baseline files" "$T/err"
expect_status 2 "$GCR" compare "$T/gen-pin.json" 1 --base gen
expect_grep "^gcratchet compare: --base gen: A is a baseline file, which has one arm" "$T/err"

# Another host, another harness: said plainly, and compared all the same.
sql "INSERT INTO hosts(id, fingerprint, hostname, facts) SELECT 2, 'f00df00df00df00d', 'other',
	facts FROM hosts WHERE id = 1;
	UPDATE sessions SET host_id = 2, harness_version = 'gcratchet 0.0.9' WHERE id = 2;"
expect_status 1 "$GCR" compare 1 2 --json "$T/hosts.json"
expect_grep "^gcratchet compare: MEASURED ON DIFFERENT HOSTS: [^ ]+ \([0-9a-f]+\), other \(f00df00df00df00d\)" "$T/out"
expect_grep "^gcratchet compare: MEASURED BY DIFFERENT BUILDS OF THE HARNESS: gcratchet [0-9.]+, gcratchet 0\.0\.9" "$T/out"
expect_eq "$(cells "$T/ab.json" "$T/hosts.json")" same "the cells, another host or not"
expect_eq "$(awk 'length($0) > 120' "$T/out" | wc -l)" 0 "compare's lines over 120 columns"

# Errors: each named, exit 2.
expect_status 2 "$GCR" compare 1 99
expect_grep "^gcratchet compare: B 99: .*no session 99" "$T/err"
expect_status 2 "$GCR" compare 1 2 --fix nosuch
expect_grep "^gcratchet compare: --fix nosuch: session 2 has no arm labelled \"nosuch\" \(its arms: \"marksweep\"\)" "$T/err"
expect_status 2 "$GCR" compare 1
expect_grep "expected two stored results, A and B, got 1 argument" "$T/err"
expect_status 2 "$GCR" compare 2 2
expect_grep "session 2 measured one build \(marksweep\)" "$T/err"
expect_status 2 "$GCR" compare 1 0
expect_grep "^gcratchet compare: B" "$T/err"
expect_status 0 "$GCR" measure --collector gen --probes 02 --rounds 1 --warmup 0 --size ci \
	--meters rusage,census
expect_status 2 "$GCR" compare 1 3
expect_grep "^gcratchet compare: session 1 and session 3 have no probe in common \(01_nursery_churn,05_binary_trees; 02_survivor_promotion\)" "$T/err"
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE session_id IN (1, 2)")" "$runs" "compare measured nothing"
finish
