#!/bin/sh
# A baseline cannot lie (issue 41, defects 9 and 10). One check of a file, wherever it is read:
# check, ratchet and baseline update refuse what `baseline validate` refuses, with its message
# naming the file and the cell (an exact cell whose pinning runs differ was judged by check
# although validate refused it). And a rule hand-edited looser than what pin writes for the
# file's profile and capabilities (exact -> band_pct 1000, gated false, direction decrease),
# with no override saying why, is refused by validate and so by check: check passed a +50%
# regression against each of those edits. An override with a rationale and the spread that
# justifies it stays a decision on the record; a tighter rule is always fine.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_steady
export GCR_BASELINE_DIR="$T/baselines"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
F="$T/baselines/shared_ci/scripted.json"
cp "$F" "$T/good.json"
expect_grep '"census.alloc_bytes": \{"gated": true, "direction": "increase", "band_pct": 0, "band_abs": 0, "class": "exact"\}' "$F"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted

# put SED-EXPRESSION: the pinned file, edited.
put() { sed "$1" "$T/good.json" >"$F"; }
# refused MESSAGE: validate, check, ratchet and update all exit 2 with the same message.
refused() {
	expect_status 2 "$GCR" baseline validate --profile shared_ci --collector scripted
	expect_grep "$1" "$T/err"
	expect_status 2 "$GCR" check --profile shared_ci --collector scripted
	expect_grep "^gcratchet check: .*$1" "$T/err"
	expect_status 2 "$GCR" ratchet --build "$B" --rounds 1
	expect_grep "^gcratchet ratchet: .*$1" "$T/err"
	expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
	expect_grep "^gcratchet baseline: .*$1" "$T/err"
	expect_eq "$(cmp -s "$F" "$T/edited.json" && echo same)" same "update left the refused file as it was"
}

# Defect 9: an exact cell whose pinning runs differ. validate refused it, check judged with it.
python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
c = next(c for c in b["cells"] if c["metric"] == "census.alloc_bytes")
c["max"] = c["median"] + 8
json.dump(b, open(sys.argv[2], "w"), indent=1)' "$T/good.json" "$F"
cp "$F" "$T/edited.json"
expect_eq "$(sql "SELECT count(*) FROM sessions")" 1 "one session measured"
refused 'scripted.json: cells\[[0-9]+\] \(01_steady census.alloc_bytes\): class exact, but its 3 pinning runs differ \(1000 to 1008\)'
expect_eq "$(sql "SELECT count(*) FROM sessions")" 1 "ratchet measured nothing against a refused baseline"

# Defect 10: the build now allocates 50% more; against the pinned file that is REGRESSED.
echo 1500 >"$B/alloc.01_steady"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 0 --meters rusage,census
cp "$T/good.json" "$F"
expect_status 1 "$GCR" check --profile shared_ci --collector scripted
expect_grep "^01_steady +census.alloc_bytes .*REGRESSED" "$T/out"
# Each hand edit of the rule passed validate, and check then passed the +50%.
rule='"census.alloc_bytes": {"gated": true, "direction": "increase", "band_pct": 0, "band_abs": 0, "class": "exact"}'
pin='pin writes \{"gated": true, "direction": "increase", "band_pct": 0, "band_abs": 0, "class": "exact"\}'
cell='cells\[[0-9]+\] \(01_steady census.alloc_bytes\) has no override saying why'
for edit in \
	'"band_pct": 1000, "band_abs": 0, "class": "banded"}|band_pct 1000 is wider than pin.s 0' \
	'"gated": false, "direction": "increase", "band_pct": 0, "band_abs": 0, "class": "info"}|not gated, where pin gates it' \
	'"gated": true, "direction": "decrease", "band_pct": 0, "band_abs": 0, "class": "exact"}|direction "decrease" stops watching the increase side pin watches'; do
	to=${edit%%|*} says=${edit#*|}
	case $to in
	'"band_pct"'*) to="\"gated\": true, \"direction\": \"increase\", $to" ;;
	esac
	put "s/$rule/\"census.alloc_bytes\": {$to/"
	cp "$F" "$T/edited.json"
	expect_grep "\"census.alloc_bytes\": \{$(printf '%s' "$to" | sed 's/[{}]/\\&/g')" "$F"
	refused "scripted.json: rules.\"census.alloc_bytes\": $says, and $cell: for profile shared_ci and capabilities unknown $pin"
done

# A wider band for the cell, decided on the record (an override, its rationale and the spread
# that justifies it), is judged as it says: the +50% is within 1000%.
python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
b["overrides"] = [{"probe": "01_steady", "metric": "census.alloc_bytes", "band_pct": 1000,
                   "band_abs": 0, "class": "banded", "rationale": "t186: the allocator moves",
                   "evidence": {"runs": 12, "spread_pct": 40}}]
json.dump(b, open(sys.argv[2], "w"), indent=1)' "$T/good.json" "$F"
expect_status 0 "$GCR" baseline validate --profile shared_ci --collector scripted
expect_status 0 "$GCR" check --profile shared_ci --collector scripted
# The same override whose evidence saw no spread is not a measured reason for a wider band.
sed -i 's/"spread_pct": 40/"spread_pct": 0/' "$F"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted
expect_grep 'scripted.json: overrides\[0\] \(01_steady census.alloc_bytes\): band_pct 1000 is wider than pin.s 0, but its evidence saw no spread \(12 runs, spread_pct 0\)' "$T/err"

# Tighter than pin is always fine: alloc_bytes watched both ways.
put "s/$rule/\"census.alloc_bytes\": {\"gated\": true, \"direction\": \"either\", \"band_pct\": 0, \"band_abs\": 0, \"class\": \"exact\"}/"
expect_grep '"census.alloc_bytes": \{"gated": true, "direction": "either"' "$F"
expect_status 0 "$GCR" baseline validate --profile shared_ci --collector scripted
finish
