#!/bin/sh
# needs: jvm
# The JVM builds' pause figures are the JVM's own (issue 27 item 2, docs/jvm.md "The pause
# log"): from one run, the census's pause total and max against a second -Xlog:gc output of
# that same run, within 1%, on Serial, Parallel and G1 for 01, 05 and 12; ZGC's and
# Shenandoah's pauses from their logged pauses (they had none before: the beans' whole
# milliseconds read 0); the run's own log file is removed after it. Needs OpenJDK 17: without
# java the test fails, saying so (as t096).
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	fail "java and javac are missing: the JVM builds need OpenJDK 17; run scripts/setup.sh (as root it installs openjdk-17-jdk-headless)"
	finish
fi
J=$T/build/collectors
if make -s -C "$TOP" jvm B="$T/build" JVM_COLLECTORS="serial parallel g1 zgc shenandoah" \
	>"$T/make.log" 2>&1; then pass; else
	fail "make jvm"
	tail -n 20 "$T/make.log" >&2
	finish
fi

# compare BUILD PROBE TAGS [window]: runs PROBE of a copy of BUILD whose wrapper also writes
# -Xlog:TAGS to a file of the test's, then holds the census's figures to that log's "Pause"
# lines: all of them, or with "window" a run of consecutive ones. The census keeps the pauses
# that start inside the run (docs/jvm.md); a concurrent collector's cycle can start before the
# census does, or after the final collection returned (ZGC: 9 of the log's 10 or 12 pauses in
# four runs of six here), and those are the log's first or last lines.
compare() {
	b=$1 p=$2 tags=$3 window=${4:-}
	d=$T/x-$b
	[ -d "$d" ] || cp -R "$J/$b" "$d"
	cp "$J/$b/$p" "$d/$p"
	sed -i "s| -cp \"| -Xlog:$tags:file=$T/xlog.$b.$p:uptime:filecount=0 -cp \"|" "$d/$p"
	mkdir -p "$T/cwd"
	(cd "$T/cwd" && GCR_CENSUS_FD=3 "$d/$p" ci >/dev/null 3>"$T/census.$b.$p" 2>"$T/err.$b.$p")
	expect_eq "$?" 0 "$b $p ran"
	expect_eq "$(ls "$T/cwd" | wc -l)" 0 "$b $p: the run's own GC log is removed"
	ct=$(jq '.census.pause_total_ns' "$T/census.$b.$p")
	cm=$(jq '.census.pause_max_ns' "$T/census.$b.$p")
	cn=$(jq '.pauses.count' "$T/census.$b.$p")
	expect_eq "$(jq '.pauses.wall_total_ns == .census.pause_total_ns and .pauses.wall_max_ns == .census.pause_max_ns and (.capabilities | index("pause_log") != null)' "$T/census.$b.$p")" \
		true "$b $p: the pauses section's total and max are the census's"
	line=$(awk -v ct="$ct" -v cm="$cm" -v cn="$cn" -v window="$window" '
		function held(from, to,   k) {
			s = 0; m = 0
			for (k = from; k <= to; k++) { s += d[k]; if (d[k] > m) m = d[k] }
			return ct / 1e6 >= s * 0.99 && ct / 1e6 <= s * 1.01 &&
			       cm / 1e6 >= m * 0.99 && cm / 1e6 <= m * 1.01
		}
		/ Pause / { v = $NF; sub(/ms$/, "", v); d[++n] = v + 0 }
		END {
			ok = n > 0 && cn > 0 && (window == "" ? n == cn && held(1, n) : 0)
			for (i = 1; window != "" && !ok && i + cn - 1 <= n; i++)
				ok = held(i, i + cn - 1)
			if (!ok) held(1, n)
			printf "%s census %d pauses, %.3f ms, max %.3f ms; -Xlog %d pauses, %.3f ms, max %.3f ms%s\n",
				ok ? "ok" : "DIFFER", cn, ct / 1e6, cm / 1e6, n, s, m,
				ok && window != "" ? " (consecutive in the log)" : ""
		}' "$T/xlog.$b.$p")
	echo "$b $p: $line"
	case $line in
	ok*) pass ;;
	*) fail "$b $p: the census's pauses against -Xlog:$tags of the same run: $line" ;;
	esac
}

for b in jvm-serial jvm-parallel jvm-g1; do
	for p in 01_nursery_churn 05_binary_trees 12_large_live_set; do
		compare "$b" "$p" gc
	done
done
# ZGC logs its pauses under gc+phases, Shenandoah under gc; both now have pause figures.
compare jvm-zgc 12_large_live_set gc+phases window
compare jvm-shenandoah 12_large_live_set gc window
expect_eq "$(jq '.pauses.count >= 3 and .pauses.wall_max_ns > 0 and (.pauses.mmu | has("1ms"))' "$T/census.jvm-zgc.12_large_live_set")" \
	true "jvm-zgc: its cycles' pauses, to the microsecond, with MMU at 1 ms"
finish
