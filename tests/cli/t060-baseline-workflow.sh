#!/bin/sh
# The ratchet moves one way: update tightens an improved cell on its own, refuses to loosen a
# regressed one without --accept, and records an accepted one in the ledger with its reason.
# check: liveness, staleness (and --strict), drift attribution with --base, JUnit XML.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines" GCR_WHO="Ada Tester"
B="$T/scripted"
make_script_build "$B" 01_steady
F="$T/baselines/shared_ci/scripted.json"
m() { expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census; }

m
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
expect_grep '"census.alloc_bytes", "median": 1000' "$F"

# Improvement: tightened without being asked.
echo 900 >"$B/alloc.01_steady"
m
expect_status 0 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
expect_grep "tightened 01_steady census.alloc_bytes: 1000 -> 900" "$T/out"
expect_grep '"census.alloc_bytes", "median": 900' "$F"

# Regression: refused, and the file is untouched.
cp "$F" "$T/before.json"
echo 1100 >"$B/alloc.01_steady"
m
expect_status 1 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
expect_grep "01_steady census.alloc_bytes regressed: 900 -> 1100" "$T/err"
expect_grep 'refusing to loosen 1 regressed cell without --accept "reason"' "$T/err"
if cmp -s "$F" "$T/before.json"; then pass; else fail "a refused update changed the file"; fi
expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session latest --ref http://x
expect_grep "--ref goes with --accept" "$T/err"

# Accepted: loosened, with a ledger entry carrying the reason, the link, the date and who.
expect_status 0 "$GCR" baseline update --profile shared_ci --collector scripted --session latest \
	--accept "object headers grew by one word for the new barrier" --ref https://example.invalid/pr/7
expect_grep "loosened  01_steady census.alloc_bytes: 900 -> 1100" "$T/out"
python3 - "$F" >"$T/py" 2>&1 <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
(entry,) = b["ledger"]
assert entry["probe"] == "01_steady" and entry["metric"] == "census.alloc_bytes", entry
assert entry["old"] == 900 and entry["new"] == 1100, entry
assert entry["reason"] == "object headers grew by one word for the new barrier", entry
assert entry["ref"] == "https://example.invalid/pr/7" and entry["who"] == "Ada Tester", entry
assert entry["date"].endswith("Z"), entry
PY
expect_eq "$?" 0 "ledger entry"
cat "$T/py"
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted
expect_status 0 "$GCR" baseline validate "$F"

# Liveness: a counter that falls to zero regresses, although lower is "better".
echo 0 >"$B/gcs.01_steady"
m
expect_status 1 "$GCR" check --all --profile shared_ci --collector scripted
expect_grep "census.major_collections .* REGRESSED: was 2, now 0: the probe no longer causes this" "$T/out"
rm "$B/gcs.01_steady"
m

# Staleness: a baseline from another host alike in every fact its gated figures depend on
# (another VM of the same kind) is not stale; --strict still exits 2 on any other host. One
# whose host differs in such a fact says so on the first line (t201 has the rest).
sed 's/"fingerprint": "[0-9a-f]*"/"fingerprint": "0000000000000000"/; s/"hostname": "[^"]*"/"hostname": "elsewhere"/' "$F" >"$T/stale.json"
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted --baseline "$T/stale.json"
expect_no_grep "STALE" "$T/out"
expect_status 2 "$GCR" check --all --profile shared_ci --collector scripted --baseline "$T/stale.json" --strict
expect_grep "^STALE: another host than the pin's \(elsewhere 0000000000000000 at the pin, .*--strict: exit 2" "$T/out"
sed 's/"page_size": [0-9]*/"page_size": 65536/' "$T/stale.json" >"$T/stale-page.json"
expect_status 0 "$GCR" check --all --profile shared_ci --collector scripted --baseline "$T/stale-page.json"
expect_eq "$(head -n 1 "$T/out" | cut -c1-52)" "STALE: the host differs from the pin's in what gated" "first line"
expect_grep "^STALE: .*page size: 65536 -> " "$T/out"
sed 's/"version": "1.0", "git_commit"/"version": "0.9", "git_commit"/' "$F" >"$T/old.json"
expect_status 2 "$GCR" check --all --profile shared_ci --collector scripted --baseline "$T/old.json" --strict
expect_grep "^STALE: the baseline was pinned on scripted 0.9; this session measured version 1.0" "$T/out"

# Drift attribution: the base build, measured in the same session, already shows part of it.
BASE="$T/base"
BUILD_NAME=scripted-base make_script_build "$BASE" 01_steady
echo 1200 >"$BASE/alloc.01_steady"
echo 1300 >"$B/alloc.01_steady"
expect_status 0 "$GCR" measure --build "$BASE" --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census
expect_status 1 "$GCR" check --all --profile shared_ci --collector scripted --build scripted --base scripted-base
expect_grep "census.alloc_bytes .* REGRESSED: 200 B past the allowance; of \+200, \+100 is already in base scripted-base \(drift since the pin\), \+100 is the change" "$T/out"

# JUnit XML that a standard parser reads: one testcase per cell, the regression a failure.
expect_status 1 "$GCR" check --profile shared_ci --collector scripted --build scripted --format junit
python3 - "$T/out" >"$T/py" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
print(len(cases), "testcases; failures:", failed)
assert int(suite.get("tests")) == len(cases) > 0
assert ("01_steady", "census.alloc_bytes") in failed
assert int(suite.get("failures")) == len(failed)
PY
expect_eq "$?" 0 "JUnit XML parses"
cat "$T/py"

# $GITHUB_STEP_SUMMARY gets the Markdown table.
GITHUB_STEP_SUMMARY="$T/summary.md" expect_status 1 "$GCR" check --all --profile shared_ci --collector scripted --build scripted
expect_grep "^\| 01_steady \| census.alloc_bytes \|.*REGRESSED" "$T/summary.md"

# Overrides need evidence.
python3 - "$F" "$T/override.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["overrides"] = [{"probe": "01_steady", "metric": "rss.peak_bytes", "band_pct": 50, "band_abs": 0,
                   "rationale": "noisy"}]
json.dump(b, open(sys.argv[2], "w"), indent=1)
PY
expect_status 2 "$GCR" baseline validate "$T/override.json"
expect_grep 'overrides\[0\].evidence: is missing: an override needs the runs and observed spread' "$T/err"
sed -i 's/"rationale": "noisy"/"rationale": "noisy", "evidence": {"runs": 20, "spread_pct": 31.5}/' "$T/override.json"
expect_status 0 "$GCR" baseline validate "$T/override.json"
finish
