#!/bin/sh
# measure fills the database: one row per run with its samples, warm-ups marked, builds
# interleaved and reversed every other round, and a seed that repeats the probe order.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$GCR" measure --collector epsilon,marksweep --probes 01,2 --size ci \
	--rounds 2 --warmup 1 --meters rusage,census --seed 42
expect_grep "seed 42" "$T/out"
expect_eq "$(sql "SELECT schema_version FROM (SELECT value AS schema_version FROM meta WHERE key='schema_version')")" 1 "schema version"
expect_eq "$(sql "SELECT status || ' ' || seed || ' ' || size || ' ' || rounds || ' ' || warmup FROM sessions")" "complete 42 ci 2 1" "session row"
expect_eq "$(sql "SELECT COUNT(*) FROM builds")" 2 "builds"
expect_eq "$(sql "SELECT COUNT(*) FROM runs")" 12 "3 rounds x 2 probes x 2 builds"
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE warmup=1")" 4 "warm-up runs marked"
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE status='ok' AND checksum IS NOT NULL")" 12 "all ok with checksums"
expect_eq "$(sql "SELECT COUNT(DISTINCT probe || checksum) FROM runs")" 2 "one checksum per probe on both collectors"
expect_eq "$(sql "SELECT COUNT(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.run_id=r.id AND s.metric='census.alloc_bytes')")" 0 "every run has its census"
expect_eq "$(sql "SELECT COUNT(*) FROM samples WHERE metric IN ('time.wall_ns','rss.peak_bytes') AND value > 0")" 24 "wall and RSS of every run"
expect_eq "$(sql "SELECT COUNT(*) FROM hosts")" 1 "host recorded"
# Builds back to back for each probe, order reversed on alternate rounds (ABBA).
orders=$(sql "SELECT r.round || ':' || group_concat(b.name, ',') FROM (SELECT * FROM runs ORDER BY id) r JOIN builds b ON b.id=r.build_id GROUP BY r.round, r.probe ORDER BY MIN(r.id)")
echo "$orders" >"$T/orders"
expect_grep "^1:epsilon,marksweep$" "$T/orders" "round 1 runs the builds in order"
expect_grep "^2:marksweep,epsilon$" "$T/orders" "round 2 runs them reversed"
expect_grep "^3:epsilon,marksweep$" "$T/orders" "round 3 in order again"
expect_no_grep "^2:epsilon,marksweep$" "$T/orders"

# The same seed gives the same probe order; the order is recorded per round.
order1=$(sql "SELECT group_concat(probe, ',') FROM (SELECT probe FROM runs WHERE session_id=1 AND build_id=1 ORDER BY id)")
expect_status 0 "$GCR" measure --collector epsilon,marksweep --probes 01,2 --size ci \
	--rounds 2 --warmup 1 --meters rusage,census --seed 42
order2=$(sql "SELECT group_concat(probe, ',') FROM (SELECT probe FROM runs WHERE session_id=2 AND build_id=1 ORDER BY id)")
expect_eq "$order2" "$order1" "same seed, same order"
expect_eq "$(sql "SELECT COUNT(*) FROM builds")" 2 "a build measured twice is one build"

expect_status 0 "$GCR" list sessions
expect_grep "^1 +.* complete +ci .*epsilon,marksweep" "$T/out"
expect_status 0 "$GCR" list collectors
expect_grep "^marksweep +marksweep +1\.0" "$T/out"
expect_status 0 "$GCR" list probes
expect_grep "^01_nursery_churn +.*marksweep" "$T/out"
finish
