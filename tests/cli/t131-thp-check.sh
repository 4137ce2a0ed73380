#!/bin/sh
# Issue 31 item 2: a baseline records the THP condition its cells were pinned under, and check
# of a session measured under another (--thp host against a default-pinned baseline) says so
# on its first lines, with every RSS cell not comparable and nothing else touched.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
run() { "$GCR" measure --collector gen --probes 10 --size ci --rounds 1 --warmup 0 --meters rusage,census "$@"; }
expect_status 0 run
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector gen --session latest --out "$T/gen.json"
expect_eq "$(jq -r '.thp.condition' "$T/gen.json")" off "pinned with THP off, the default"
expect_status 0 "$GCR" check --profile shared_ci --collector gen --baseline "$T/gen.json"
expect_no_grep "transparent huge pages" "$T/out"
expect_status 0 run --thp host
expect_status 2 "$GCR" check --profile shared_ci --collector gen --baseline "$T/gen.json" --all
expect_grep "^STALE: the baseline was pinned with transparent huge pages off, this session ran with THP host \(enabled [a-z]+" "$T/out"
expect_grep "^10_large_objects +rss\.peak_bytes .*COULD NOT JUDGE: not comparable: the baseline was pinned with transparent huge pages off" "$T/out"
expect_grep "^10_large_objects +census\.alloc_bytes .* ok$" "$T/out"
# A baseline that records no condition (pinned before it was recorded) compares none.
jq 'del(.thp)' "$T/gen.json" >"$T/old.json"
expect_status 0 "$GCR" check --profile shared_ci --collector gen --baseline "$T/old.json"
finish
