#!/bin/sh
# measure fills the database: one row per run with its samples, warm-ups marked, builds
# interleaved and reversed every other round, and a seed that repeats the probe order.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

expect_status 0 "$GCR" measure --collector epsilon,marksweep --probes 01,2 --size ci \
	--rounds 2 --warmup 1 --meters rusage,census --seed 42
expect_grep "seed 42" "$T/out"
# The schema itself is the store's: only its version is read with sqlite3.
expect_eq "$(sql "SELECT value FROM meta WHERE key='schema_version'")" 9 "schema version"
expect_eq "$(exported 1 '.session | "\(.status) \(.seed) \(.size) \(.rounds) \(.warmup)"')" "complete 42 ci 2 1" "session row"
expect_eq "$(exported 1 '.builds | length')" 2 "builds"
expect_eq "$(exported 1 '.runs | length')" 12 "3 rounds x 2 probes x 2 builds"
expect_eq "$(exported 1 '[.runs[] | select(.warmup)] | length')" 4 "warm-up runs marked"
expect_eq "$(exported 1 '[.runs[] | select(.status == "ok" and .checksum != null)] | length')" 12 "all ok with checksums"
expect_eq "$(exported 1 '[.runs[] | .probe + .checksum] | unique | length')" 2 "one checksum per probe on both collectors"
expect_eq "$(exported 1 '[.runs[] | select(.samples["census.alloc_bytes"] == null)] | length')" 0 "every run has its census"
expect_eq "$(exported 1 '[.runs[].samples | to_entries[] | select((.key == "time.wall_ns" or .key == "rss.peak_bytes") and .value > 0)] | length')" 24 "wall and RSS of every run"
expect_eq "$(exported 1 '.host | (.fingerprint != null and (.facts | type) == "object")')" true "host recorded"
# Builds back to back for each probe, order reversed on alternate rounds (ABBA).
orders=$(exported 1 '.runs | sort_by(.id) | group_by([.round, .probe]) | sort_by(.[0].id) | .[] | "\(.[0].round):\(map(.build) | join(","))"')
echo "$orders" >"$T/orders"
expect_grep "^1:epsilon,marksweep$" "$T/orders" "round 1 runs the builds in order"
expect_grep "^2:marksweep,epsilon$" "$T/orders" "round 2 runs them reversed"
expect_grep "^3:epsilon,marksweep$" "$T/orders" "round 3 in order again"
expect_no_grep "^2:epsilon,marksweep$" "$T/orders"

# The same seed gives the same probe order; the order is recorded per round.
order1=$(exported 1 '[.runs | sort_by(.id)[] | select(.build == "epsilon") | .probe] | join(",")')
expect_eq "$(echo "$order1" | awk -F, '{ print NF }')" 6 "the order of 3 rounds x 2 probes"
expect_status 0 "$GCR" measure --collector epsilon,marksweep --probes 01,2 --size ci \
	--rounds 2 --warmup 1 --meters rusage,census --seed 42
order2=$(exported 2 '[.runs | sort_by(.id)[] | select(.build == "epsilon") | .probe] | join(",")')
expect_eq "$order2" "$order1" "same seed, same order"
expect_eq "$(exported 2 '[.builds[].id] | join(",")')" "$(exported 1 '[.builds[].id] | join(",")')" "a build measured twice is one build"

expect_status 0 "$GCR" list sessions
expect_grep "^1 +.* complete +ci .*epsilon,marksweep" "$T/out"
expect_status 0 "$GCR" list collectors
expect_grep "^marksweep +marksweep +1\.0" "$T/out"
expect_status 0 "$GCR" list probes
expect_grep "^01_nursery_churn +.*marksweep" "$T/out"
finish
