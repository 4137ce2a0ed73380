#!/bin/sh
# A malformed baseline makes check and validate exit 2 with the file, the line or field, and
# what was expected.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_steady
export GCR_BASELINE_DIR="$T/baselines"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
F="$T/baselines/shared_ci/scripted.json"
expect_status 0 "$GCR" baseline validate --profile shared_ci --collector scripted
expect_grep "^ok: .*scripted.json" "$T/out"
cp "$F" "$T/good.json"

# edit SED-EXPRESSION EXPECTED-MESSAGE
edit() {
	sed "$1" "$T/good.json" >"$F"
	expect_status 2 "$GCR" check --profile shared_ci --collector scripted
	expect_grep "$2" "$T/err"
	expect_status 2 "$GCR" baseline validate "$F"
	expect_grep "$2" "$T/err"
}
edit 's/\("rss.peak_bytes": {[^}]*"band_pct": \)[0-9.]*/\1-2/' 'scripted.json: rules."rss.peak_bytes".band_pct: must be >= 0'
edit 's/"census.alloc_bytes": {/"census.alloc_furlongs": {/' 'rules."census.alloc_furlongs": unknown metric'
edit 's/"direction": "increase"/"direction": "upward"/' 'direction: must be "increase", "decrease" or "either"'
edit '/"rss.peak_bytes": {"gated"/d' 'cells\[[0-9]+\]: metric "rss.peak_bytes" has no entry in "rules"'
edit 's/"version": 1/"version": 9/' 'scripted.json: version: must be 1'
edit '3s/.*/  "profile" "shared_ci",/' 'scripted.json:3:[0-9]+: not valid JSON'
edit 's/"median": 1000,/"median": "lots",/' 'cells\[[0-9]+\].median: must be a number'
: >"$F"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted
expect_grep "scripted.json:1:1: not valid JSON" "$T/err"
cp "$T/good.json" "$F"
expect_status 0 "$GCR" check --profile shared_ci --collector scripted
expect_status 2 "$GCR" check --profile shared_ci --collector scripted --session 999
expect_grep "no session 999" "$T/err"
# A profile file that names another profile is refused.
sed 's/"profile": "shared_ci"/"profile": "pinned_host"/' "$T/good.json" >"$F"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted
expect_grep 'profile is "pinned_host", not "shared_ci"' "$T/err"
# A gated cell whose own pinned runs already spread beyond its band would fail on the runs it
# was pinned from: validate refuses it, naming the cell, its spread and its allowance.
python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
c = next(c for c in b["cells"] if c["metric"] == "census.alloc_bytes")
c["max"] = c["median"] + 1
json.dump(b, open(sys.argv[2], "w"), indent=1)' "$TOP/baselines/shared_ci/gen.json" "$T/spread.json"
expect_status 2 "$GCR" baseline validate "$T/spread.json"
expect_grep 'spread.json: cells\[[0-9]+\] \([0-9a-z_]+ census.alloc_bytes\): class exact, but its [0-9]+ pinning runs differ \([0-9]+ to [0-9]+\)' "$T/err"
expect_status 0 "$GCR" baseline validate "$TOP/baselines/shared_ci/gen.json"
finish
