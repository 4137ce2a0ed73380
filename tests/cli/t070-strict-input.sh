#!/bin/sh
# needs: valgrind
# Never ok by accident (issue 10): input the harness cannot honour is refused, exit 2, with
# the file and line:column or the JSON path. Baselines with trailing text, a duplicate key,
# numbers out of range or values nothing can meet; censuses with trailing text, a duplicate
# key, another probe's or size's name, or more bytes than the runner keeps; manifests likewise;
# and a baseline write killed mid-way leaves nothing behind after the next one.
. "$(dirname "$0")/lib.sh"
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady
F="$T/baselines/shared_ci/scripted.json"

# 01_steady again, with census modes of its own: $B/mode says which census it writes.
{
	printf '#!/bin/sh\nd=%s\n' "$B"
	cat <<'SCRIPT'
mode=$(cat "$d/mode" 2>/dev/null || echo ok)
alloc=$(cat "$d/alloc" 2>/dev/null || echo 1000)
census() { # probe size
	printf '{"format":"gcr-census","version":1,"probe":"%s","size":"%s","collector":"scripted","checksum":"0x00000000000000aa","census":{"alloc_bytes":%s,"major_collections":2}}' "$1" "$2" "$alloc"
}
echo "checksum 0x00000000000000aa"
case "$mode" in
ok) census 01_steady "$1" >&3 ;;
trailing) { census 01_steady "$1"; printf ' garbage'; } >&3 ;;
twice) { census 01_steady "$1"; census 01_steady "$1"; } >&3 ;;
dupkey) census 01_steady "$1" | sed 's/"census":{/"census":{"alloc_bytes":1,/' >&3 ;;
otherprobe) census 02_survivor_promotion "$1" >&3 ;;
othersize) census 01_steady large >&3 ;;
huge) { printf '{"format":"gcr-census","pad":"'; head -c 4200000 /dev/zero | tr '\0' x; printf '"}'; } >&3 ;;
esac
SCRIPT
} >"$B/01_steady"
seal_manifest "$B"
m() { "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census >"$T/out" 2>"$T/err"; }
last_run() { sql "SELECT status || ': ' || COALESCE(detail, '') FROM runs ORDER BY id DESC LIMIT 1"; }

expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
cp "$F" "$T/good.json"

# bad SED-EXPRESSION EXPECTED-MESSAGE: the edited baseline fails validate and check, exit 2.
bad() {
	sed "$1" "$T/good.json" >"$F"
	expect_status 2 "$GCR" baseline validate "$F"
	expect_grep "$2" "$T/err"
	expect_status 2 "$GCR" check --profile shared_ci --collector scripted
	expect_grep "$2" "$T/err"
}

# Item 1: the end of input. Two copies of a baseline, or garbage after it.
cat "$T/good.json" "$T/good.json" >"$F"
lines=$(wc -l <"$T/good.json")
expect_status 2 "$GCR" baseline validate "$F"
expect_grep "scripted.json:$((lines + 1)):1: not valid JSON: text after the end of the value" "$T/err"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted
bad '$s/}/} garbage/' 'scripted.json:[0-9]+:3: not valid JSON: text after the end'

# Item 2: a second rule for census.alloc_bytes, ungated, put first: check used to take it and
# call an 11% regression "info", exit 0.
sed 's/"rules": {/&\n    "census.alloc_bytes": {"gated": false, "direction": "increase", "band_pct": 0, "band_abs": 0},/' \
	"$T/good.json" >"$F"
echo 1110 >"$B/alloc"
m
rm "$B/alloc"
expect_status 2 "$GCR" check --profile shared_ci --collector scripted
expect_grep 'scripted.json:[0-9]+:5: rules\."census\.alloc_bytes": duplicate key \(first at line' "$T/err"
expect_status 2 "$GCR" baseline validate "$F"
# The same on the committed gen baseline, named as the issue names it.
mkdir -p "$T/baselines/shared_ci"
sed 's/"rules": {/&\n    "valgrind.ir": {"gated": false, "direction": "increase", "band_pct": 1, "band_abs": 0},/' \
	"$TOP/baselines/shared_ci/gen.json" >"$T/baselines/shared_ci/gen.json"
(cd "$T" && "$GCR" baseline validate baselines/shared_ci/gen.json >"$T/out" 2>"$T/err")
expect_eq "$?" 2 "validate of gen.json with a duplicate rule"
expect_grep '^gcratchet baseline: baselines/shared_ci/gen\.json:[0-9]+:5: rules\."valgrind\.ir": duplicate key' "$T/err"
# With the one rule, the same session is what it is: a regression, exit 1.
cp "$T/good.json" "$F"
expect_status 1 "$GCR" check --profile shared_ci --collector scripted
expect_grep 'census\.alloc_bytes +1000 +1110 +\+11\.00% .* REGRESSED' "$T/out"

# Item 5: numbers are exact integers, range-checked before conversion.
bad 's/"n": [0-9]*\([,}]\)/"n": 1e300\1/' 'cells\[0\]\.n: must be an integer from 1 to 2\^53-1, got 1e\+300'
bad 's/"n": [0-9]*\([,}]\)/"n": 1.5\1/' 'cells\[0\]\.n: must be an integer from 1 to 2\^53-1, got 1\.5'
bad 's/"session": [0-9]*/"session": 1e300/' 'scripted.json: session: must be an integer from 1 to 2\^53-1'
bad 's/"repeats": [0-9]*/"repeats": 1e300/' 'scripted.json: repeats: must be an integer from 1 to 2\^53-1'
bad 's/"n": [0-9]*\([,}]\)/"n": 1e999\1/' 'scripted.json:[0-9]+:[0-9]+: not valid JSON: 1e999 is beyond the range of a double'
# update used to write n as -9223372036854775808; now it refuses, and the file is untouched.
sed 's/"n": [0-9]*\([,}]\)/"n": 1e300\1/' "$T/good.json" >"$F"
cp "$F" "$T/before.json"
expect_status 2 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
expect_grep 'cells\[0\]\.n: must be an integer' "$T/err"
if cmp -s "$F" "$T/before.json"; then pass; else fail "a refused update changed the file"; fi

# Item 6: values that nothing can meet.
bad 's/"checksum": "0x[0-9a-f]*"/"checksum": "garbage"/' \
	'scripted.json: probes\."01_steady"\.checksum: must be "0x" and 16 lowercase hex digits, not "garbage"'
bad 's/"size": "ci"/"size": "huge"/' 'scripted.json: size: must be ci, default, large or n=N1,N2'
bad 's/"meters": \[[^]]*\]/"meters": ["rusage", "telepathy"]/' \
	'scripted.json: meters\[1\]: unknown meter "telepathy" \(known: rusage, census, perf, valgrind, cachesim\)'
bad 's/"repeats": [0-9]*/"repeats": 0/' 'scripted.json: repeats: must be an integer from 1'
bad 's/"repeats": [0-9]*/"repeats": -3/' 'scripted.json: repeats: must be an integer from 1'
bad 's/"ledger": \[\]/"ledger": [{"probe": "09_gone", "metric": "census.alloc_bytes", "old": 1, "new": 2, "reason": "r", "date": "2026-11-30T00:00:00Z", "who": "w"}]/' \
	'scripted.json: ledger\[0\]: 09_gone census.alloc_bytes is not a cell pinned in "cells"'
bad 's/"overrides": \[\]/"overrides": [{"probe": "01_steady", "metric": "census.alloc_bytes", "band_pct": 1, "band_abs": 0, "rationale": "r", "evidence": {"runs": 1e300, "spread_pct": 1}}]/' \
	'scripted.json: overrides\[0\]\.evidence\.runs: must be an integer from 2 to 2\^53-1'
bad 's/"census.alloc_bytes", "median"/"census.alloc_bytes", "median": 1, "median"/' \
	'scripted.json:[0-9]+:[0-9]+: cells\[[0-9]+\]\.median: duplicate key'
cp "$T/good.json" "$F"

# Items 1, 2 and 7 on the census pipe: each run is bad_census with a precise message.
census_case() { # mode expected-detail
	echo "$1" >"$B/mode"
	m
	expect_eq "$?" 2 "measure exit with a $1 census"
	expect_grep "$2" "$T/out"
	expect_eq "$(last_run | grep -Ec "^bad_census: $2")" 1 "stored status and detail of a $1 census: $(last_run | cut -c 1-200)"
}
census_case trailing 'census:1:[0-9]+: not valid JSON: text after the end of the value'
census_case twice 'census:1:[0-9]+: not valid JSON: text after the end of the value'
census_case dupkey 'census:1:[0-9]+: census\.alloc_bytes: duplicate key'
census_case otherprobe 'census names probe "02_survivor_promotion" but 01_steady was run'
census_case othersize 'census names size "large" but ci was run'
census_case huge 'census is larger than the 4 MiB cap \(got 4200[0-9]+ bytes\)'
rm "$B/mode"

# Manifests: the same reader.
cp "$B/manifest.json" "$T/manifest.good"
printf ' garbage' >>"$B/manifest.json"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep 'manifest\.json:[0-9]+:[0-9]+: not valid JSON: text after the end' "$T/err"
sed 's/"name":"scripted",/"name":"scripted","name":"other",/' "$T/manifest.good" >"$B/manifest.json"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep 'manifest\.json:1:[0-9]+: name: duplicate key' "$T/err"
sed 's/"abi":1,/"abi":1.5,/' "$T/manifest.good" >"$B/manifest.json"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep 'manifest\.json: abi: must be a non-negative integer below 2\^53, got 1\.5' "$T/err"
cp "$T/manifest.good" "$B/manifest.json"

# Item 10: a temporary file from a writer that was killed goes with the next write.
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo 'half a baseline' >"$F.tmp.$dead"
echo 900 >"$B/alloc"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
expect_grep 'tightened 01_steady census.alloc_bytes: 1000 -> 900' "$T/out"
if [ -e "$F.tmp.$dead" ]; then fail "the stale $F.tmp.$dead is still there"; else pass; fi
expect_eq "$(ls "$T/baselines/shared_ci" | grep -c tmp)" 0 "temporary files left in baselines/shared_ci"
expect_status 0 "$GCR" baseline validate "$F"
# A live writer's temporary file is not touched.
echo 'being written' >"$F.tmp.$$"
echo 800 >"$B/alloc"
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline update --profile shared_ci --collector scripted --session latest
expect_eq "$(cat "$F.tmp.$$" 2>/dev/null)" "being written" "a live writer's temporary file"
rm -f "$F.tmp.$$"
finish
