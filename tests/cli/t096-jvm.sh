#!/bin/sh
# needs: valgrind jvm
# The JVM's collectors as build folders (docs/jvm.md): `make jvm` builds them; measure runs
# the Java probes on jvm-serial and jvm-g1 with the C probes' checksums, a census from the
# JVM's own beans, a pause log from its own GC log (none on jvm-epsilon), collections by cause
# from the beans' notifications, and 15's latency section; an A/A of jvm-serial is quiet on
# every census counter; check of the session against jvm-serial's and jvm-g1's committed
# shared_ci baselines passes. Needs
# OpenJDK 17 (scripts/setup.sh --test installs it): without java the test fails, saying so, rather
# than skipping.
. "$(dirname "$0")/lib.sh"
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	fail "java and javac are missing: the JVM builds need OpenJDK 17; run scripts/setup.sh --test (as root it installs openjdk-17-jdk-headless)"
	finish
fi

# Four of the six, to keep the test short (`make jvm` alone builds all six), into this test's
# own build root: folders left in build/ by an earlier make must not stand in for them.
J=$T/build/collectors
if make -s -C "$TOP" jvm B="$T/build" JVM_COLLECTORS="serial g1 epsilon zgc" >"$T/make.log" 2>&1; then pass; else
	fail "make jvm"
	tail -n 20 "$T/make.log" >&2
	finish
fi
for c in serial g1; do
	m=$J/jvm-$c/manifest.json
	expect_eq "$(jq -r '"\(.protocol) \(.collector) \(.probes | length)"' "$m")" "census jvm-$c 6" "jvm-$c manifest"
	# Each probe's sha256 in the manifest is the wrapper's own.
	for p in $(jq -r '.probes[].name' "$m"); do
		expect_eq "$(jq -r --arg p "$p" '.probes[] | select(.name == $p) | .sha256' "$m")" \
			"$(sha256sum "$J/jvm-$c/$p" | cut -d' ' -f1)" "jvm-$c $p sha256"
	done
done

# One round on both builds, the meters the JVM builds are measured with (no valgrind: Ir of a
# JVM is neither cheap nor repeatable, docs/jvm.md).
expect_status 0 "$GCR" measure --build "$J/jvm-serial" --build "$J/jvm-g1" --size ci --rounds 1 \
	--warmup 0 --meters rusage,census --seed 96
expect_eq "$(exported 1 '[.runs[] | select(.status != "ok")] | length')" 0 "every JVM run ok"
# The checksums are the C probes' (the C builds print them).
for p in 01_nursery_churn 02_survivor_promotion 05_binary_trees 11_collect_at_depth 12_large_live_set 15_request_latency; do
	want=$("$TOP/build/collectors/gen/$p" ci | sed -n 's/^checksum //p')
	expect_eq "$(exported 1 "[.runs[] | select(.probe == \"$p\") | .checksum] | unique | join(\",\")")" \
		"$want" "$p checksum on jvm-serial and jvm-g1 equals the C probe's"
done
# The census is the JVM's: collection counts from the beans, the fixed 64 MiB ci heap
# committed (Serial counts one survivor space out: 61.9 MiB), the premise judged, and no
# counter the beans do not give.
q='[.runs[] | select(.probe == "01_nursery_churn") | .samples]'
exported 1 "$q | map(\"\(.\"census.minor_collections\") \(.\"census.major_collections\")\") | .[]" >"$T/counts"
expect_grep '^[1-9][0-9]* 1$' "$T/counts" "minor collections during the run and the final full one"
expect_eq "$(exported 1 "$q | map(.\"census.heap_committed_peak_bytes\" >= 60 * 1048576 and .\"census.heap_committed_peak_bytes\" <= 64 * 1048576) | all")" true "heap committed: the -Xms64m heap"
expect_eq "$(exported 1 "$q | map(has(\"census.promoted_objects\") or has(\"census.freed_bytes\")) | any")" false "no counter the beans lack"
expect_eq "$(exported 1 '[.runs[] | .premise | startswith("met: ")] | all')" true "every premise met"
# 15 times every request (JvmCensus.latencyRecord): the latency section, as the C runtime's.
# Each request's metered latency is at least its service time, so every quantile is too.
q='[.runs[] | select(.build == "jvm-serial" and .probe == "15_request_latency") | .samples]'
expect_eq "$(exported 1 "$q | map(.\"latency.requests\" == 50000 and .\"latency.metered_p99_ns\" >= .\"latency.simple_p99_ns\") | (length > 0 and all)")" \
	true "jvm-serial 15 at ci: latency of 50000 requests, metered p99 >= simple p99"
# The pause log (JvmPauseLog): one pause per collection of the beans, the final one included
# (on G1 in a run with no concurrent cycle, as at ci), to the microsecond -Xlog:gc prints.
q='[.runs[] | select(.build == "jvm-serial" or .build == "jvm-g1") | .samples]'
expect_eq "$(exported 1 "$q | map(.\"census.pause_count\" == .\"census.minor_collections\" + .\"census.major_collections\") | all")" \
	true "pause_count = minor + major collections on jvm-serial and jvm-g1"
expect_eq "$(exported 1 "$q | map(.\"census.mmu_10ms\" >= 0 and .\"census.mmu_10ms\" <= 1) | all")" true \
	"mmu_10ms from 0 to 1"
expect_eq "$(exported 1 "$q | map((.\"census.pause_p99_ns\" // -1) % 1000 == 0) | all")" true \
	"pause p99 a whole number of microseconds (the log's ms to 3 decimals)"
expect_eq "$(exported 1 "$q | map(.\"census.pause_total_ns\" % 1000000 != 0) | any")" true \
	"pause totals no longer whole milliseconds (the beans' resolution)"
# Collections by cause (JvmTriggers): each collection the two counts count, once, under its
# notification's cause mapped to the protocol's names, all ten sent. The final System.gc() is
# explicit; at ci the run's own collections are allocation (eden full, G1's evacuation pause).
tsum='[to_entries[] | select(.key | startswith("census.trigger_")) | .value] | add'
expect_eq "$(exported 1 "$q | map(. as \$s | ($tsum) == \$s.\"census.minor_collections\" + \$s.\"census.major_collections\") | all")" \
	true "triggers add up to minor + major collections on jvm-serial and jvm-g1"
expect_eq "$(exported 1 "$q | map(.\"census.trigger_explicit\" >= 1 and .\"census.trigger_allocation\" >= 1) | all")" \
	true "the final System.gc() is explicit, the run's own collections allocation"
expect_eq "$(exported 1 '[.runs[] | .samples | keys[] | select(startswith("census.trigger_"))] | unique | length')" \
	10 "all ten trigger names sent"
# Epsilon never collects: no pause log, so no pause figures (absent, never zero).
expect_status 0 "$GCR" measure --build "$J/jvm-epsilon" --probes 01 --size ci --rounds 1 \
	--warmup 0 --meters rusage,census --seed 98
expect_eq "$(exported 2 '[.runs[] | .samples | keys[] | select(test("^census[.](pause_(count|span|max|p[0-9]|hist)|mmu_)"))] | length')" \
	0 "jvm-epsilon has no pause figures"
expect_eq "$(exported 2 "[.runs[] | .samples | $tsum] | unique | join(\",\")")" 0 \
	"jvm-epsilon's triggers: all zero, for it never collects"

# Default meters: the manifest leaves valgrind off, says why, and the session measures the rest.
expect_status 0 "$GCR" measure --build "$J/jvm-serial" --probes 01 --size ci --rounds 1 --warmup 0 \
	--seed 97
expect_grep 'valgrind meter off: the manifest of jvm-serial says: a JVM under valgrind' "$T/err" \
	"a default session says the JVM build leaves valgrind off, and why"
expect_eq "$(jq -r '.meters_off.valgrind | length > 0' "$J/jvm-serial/manifest.json")" true \
	"the JVM manifest leaves valgrind off with a reason"

# A/A: jvm-serial against itself; its census counters are deterministic, so none may differ.
# 1 only when a noisy (time or memory) cell was flagged by chance; never a census counter.
# The pause log's count is as exact here, but info (not judged) in every comparison.
expect_ab_outcome "$T/aa.json" "$GCR" ab "$J/jvm-serial" "$J/jvm-serial" --probes 01,12 --rounds 3 \
	--size ci --meters rusage,census --seed 960 --json "$T/aa.json"
expect_grep "^  census: [0-9]+ deterministic counters compared exactly, all equal" "$T/out"
expect_eq "$(jq '[.comparison.cells[] | select(.metric | startswith("census.")) | select(.deterministic and (.verdict == "better" or .verdict == "worse"))] | length' "$T/aa.json")" 0 "an A/A census counter reported as a difference"
expect_eq "$(jq -r '.comparison.identity.failed' "$T/aa.json")" false "A/A identity"

# The committed baselines judge a fresh session: the census counters they gate hold exactly.
for c in jvm-serial jvm-g1; do
	expect_status 0 "$GCR" check --all --profile shared_ci --collector $c --session 1
	expect_grep "^01_nursery_churn +census.alloc_bytes .* ok$" "$T/out" "$c: alloc_bytes gated and ok"
	expect_grep "^verdict: ok " "$T/out" "$c passes its baseline"
	# The suite shows a failed test's last lines; the cells that were not ok come first.
	grep -E ' (REGRESSED|COULD NOT JUDGE|INERT)' "$T/out" | sed "s/^/  $c: /" >&2 || :
done

# ZGC's ci heap is 32 MiB, half the others': JDK 17's ZGC starts cycles by clock-driven
# heuristics until the heap fills, and a 64 MiB heap outlasted 02's 52.8 MB and 12's churn, so
# about half the ratchets ran one of them with no collection (premise not met: REGRESSED on
# unchanged code). At 32 MiB both must collect; its committed baseline passes.
expect_status 0 env GCR_DB="$T/zgc.db" "$GCR" ratchet --build "$J/jvm-zgc"
expect_grep "^verdict: ok " "$T/out" "jvm-zgc passes its baseline"
expect_eq "$(GCR_DB="$T/zgc.db" "$GCR" export | jq '[.runs[] | .premise | startswith("met: ")] | all')" true "every premise met on jvm-zgc"
# 15 runs in 16 MiB on every collector but Epsilon (jvm/build.sh), should the baseline hold it.
expect_eq "$(GCR_DB="$T/zgc.db" "$GCR" export | jq '[.runs[] | .samples["census.heap_committed_peak_bytes"] == (if .probe == "15_request_latency" then 16 else 32 end) * 1048576] | all')" true "jvm-zgc's ci heap is 32 MiB (16 for 15)"

# The ABI's heap limit: GCR_HEAP_MAX_MB is -Xmx, and an OutOfMemoryError is heap exhausted
# (status 3), stored as such, so minheap finds a JVM probe's minimum heap instead of 1 MiB.
expect_status 0 "$GCR" minheap --build "$J/jvm-serial" --probes 12 --size ci --repeats 1
mb=$(sql "SELECT min_heap_mb FROM minheap WHERE outcome = 'found'")
expect_eq "$([ "${mb:-0}" -ge 4 ] && [ "$mb" -le 64 ] && echo between)" between \
	"12's minimum heap on jvm-serial at ci ($mb MiB) between 4 and 64 MiB (live set ~10 MB)"
# Below it the session could not be judged (2), as for a C collector (t097), never a crash.
expect_status 2 "$GCR" measure --build "$J/jvm-serial" --probes 12 --size ci --rounds 1 \
	--warmup 0 --meters rusage,census --knob GCR_HEAP_MAX_MB=$((mb - 1))
expect_grep "12_large_live_set +jvm-serial +heap exhausted +exited 3: 12_large_live_set: heap exhausted" \
	"$T/out" "a run below the minimum is heap exhausted"
expect_eq "$(sql "SELECT status FROM runs WHERE session_id = (SELECT max(id) FROM sessions)")" \
	heap_exhausted "stored as heap_exhausted, not a failure"
GCR_HEAP_MAX_MB=1 "$J/jvm-g1/01_nursery_churn" ci >/dev/null 2>"$T/err" 3>/dev/null
expect_eq "$?" 3 "jvm-g1 under its smallest startable heap: status 3"
expect_grep "^jvm-g1: heap exhausted: the VM does not start with a heap under 3 MiB" "$T/err"
GCR_HEAP_MAX_MB=abc "$J/jvm-g1/01_nursery_churn" ci >/dev/null 2>"$T/err" 3>/dev/null
expect_eq "$?" 2 "a bad GCR_HEAP_MAX_MB is a knob error"
expect_grep "GCR_HEAP_MAX_MB='abc': expected a whole number of MiB from 1 to 1048576" "$T/err"
finish
