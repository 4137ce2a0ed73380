#!/bin/sh
# run.sh — the whole suite: unit tests (normal and sanitizer builds), the ABI conformance test
# on every collector, each libFuzzer harness for $GCR_FUZZ_SECONDS (default 5), the
# end-to-end CLI tests, and a set of them again with the sanitizer build of the CLI. Each
# part prints "<name>: N passed, N failed" (", N skipped" when it skipped checks the host
# cannot make: tests/cli/lib.sh's skip); this adds them up and ends with one line
# "N passed, N failed, N skipped". A part that skipped everything is "skip", not "ok".
# Parts run two at a time (GCR_TEST_JOBS, below), their results printed in order.
# Usage: tests/run.sh [--quick] [PATTERN]   (PATTERN: only the CLI tests whose file name
# contains it). --quick (make test-quick) is the developer's loop: the unit tests of build/
# and the CLI tests whose "# needs:" line (the second line of a test; tests/README.md) names
# none of valgrind, jvm, node, pg and asan (the sanitizer build); no sanitizer build, ABI test
# or fuzzer. It ends with the same line, and says how many CLI tests it left out.
set -u
cd "$(dirname "$0")/.." || exit 2
quick=
if [ "${1:-}" = --quick ]; then
	quick=yes
	shift
fi
pattern=${1:-}
# The CLI tests --quick leaves out, found by one grep (not a fork per test per pass of parts).
quick_out=
[ -n "$quick" ] && quick_out=$(grep -lE '^# needs:.*\b(valgrind|jvm|node|pg|asan)\b' tests/cli/t*.sh | tr '\n' ' ')
passed=0 failed=0 skipped=0
log=$(mktemp -d /tmp/gcratchet-tests.XXXXXX)
GCR_FUZZ_SECONDS=${GCR_FUZZ_SECONDS:-5}
export GCR_FUZZ_SECONDS
suite_start=$(date +%s)

tally() { # name, status, output file
	line=$(grep -E '^[^ ]*:? ?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$3" | tail -n 1)
	p=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i == "passed,") print $(i - 1) }')
	f=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^failed,?$/) print $(i - 1) }')
	s=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i == "skipped") print $(i - 1) }')
	p=${p:-0} f=${f:-0} s=${s:-0}
	# A test that died without a tally, or exited non-zero with none failed, counts as failed.
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	# One that tallied nothing at all, or ended 0 with no tally line, asserted nothing that
	# the suite can count: it cannot fail, so it fails (never "ok" with 0 passed).
	if [ $((p + f + s)) -eq 0 ]; then
		f=1
		if [ -n "$line" ]; then
			echo "$1: no check passed, failed or was skipped" >>"$3"
		else
			echo "$1: ended $2 with no tally line (\"N passed, N failed\")" >>"$3"
		fi
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $1 ($p passed, $f failed, $s skipped):"
		sed 's/^/    /' "$3" | tail -n 40
	elif [ "$p" -eq 0 ]; then
		# Skipped whole: not "ok", and why, in the test's own words.
		echo "skip $1 ($s skipped):"
		grep '^SKIPPED: ' "$3" | sed 's/^/    /' | head -n 5
	elif [ "$s" -ne 0 ]; then
		echo "ok   $1 ($p passed, $s skipped)"
		grep '^SKIPPED: ' "$3" | sed 's/^/    /' | head -n 5
	else
		echo "ok   $1 ($p passed)"
	fi
}

# No part may hang the suite: one that runs past GCR_TEST_TIMEOUT seconds (default 600; the
# slowest takes about a minute on a quiet 2-core VM) is ended and fails, named.
test_timeout=${GCR_TEST_TIMEOUT:-600}
# Parts run GCR_TEST_JOBS at a time (default 2; 1 runs them one after the other): each test
# has its own folder, database and bench lock (tests/cli/lib.sh), and most of a CLI test's
# time is spent waiting for processes it started. Their results are printed in the order
# they were started, each with its own seconds, whatever order they end in.
test_jobs=${GCR_TEST_JOBS:-2}
case $test_jobs in '' | *[!0-9]* | 0) test_jobs=1 ;; esac
queued=0 printed=0 running=0 cpu_total=0
# run_one N name command...: the part, timed; its status and seconds go to $log/N.status.
run_one() {
	n=$1 name=$2
	shift 2
	out="$log/$n.out"
	start=$(date +%s)
	timeout -k 10 "$test_timeout" "$@" >"$out" 2>&1 &
	echo $! >"$log/$n.pid"
	wait $!
	status=$?
	[ "$status" -eq 124 ] && echo "$name: ended after ${test_timeout}s (GCR_TEST_TIMEOUT)" >>"$out"
	# The CPU seconds (user + system) of the part and everything it waited for: the shell's
	# `times` prints its own line, then its children's ("0m1.230000s 0m0.450000s"); not in a
	# command substitution, whose subshell has no children yet.
	times >"$log/$n.times"
	cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.0f", t }' "$log/$n.times")
	echo "$status $(( $(date +%s) - start )) ${cpu:-0}" >"$log/$n.status.tmp"
	mv "$log/$n.status.tmp" "$log/$n.status"
}
# Prints every finished part whose turn has come; with "all", waits for the rest first.
drain() {
	while [ "$printed" -lt "$queued" ]; do
		n=$((printed + 1))
		if [ ! -f "$log/$n.status" ]; then
			[ "${1:-}" = all ] || return 0
			sleep 0.2
			continue
		fi
		read -r status secs cpu <"$log/$n.status"
		tally "$(cat "$log/$n.name") [${secs}s, cpu ${cpu}s]" "$status" "$log/$n.out"
		cpu_total=$((cpu_total + cpu))
		printed=$n
	done
}
# How many parts are still running (a part's status file is written when it ends).
count_running() {
	running=0
	k=$((printed + 1))
	while [ "$k" -le "$queued" ]; do
		[ -f "$log/$k.status" ] || running=$((running + 1))
		k=$((k + 1))
	done
}
# t032 holds bdwgc's valgrind Ir to 0.05% run to run (bdwgc reads the clock, and a loaded host
# moved it by 0.016% once), t051 catches a planted spin by its time: each runs with nothing
# beside it, as on the host its figures describe. The CLI tests that pin time by sleeps
# (pinned_host's bands) use a second of CPU in up to 20 s: they run beside each other, but
# beside nothing else. The tests that must see a planted time (t146's spread, t163's noisy
# bisect) plant CPU time (tests/cli/cpu_spin.c) and judge time.user_ns, which a loaded host
# barely moves, and run anywhere.
# The light ones wait, mostly, on a PostgreSQL server or a lock (a tenth of their time or
# less on CPU, with bounds that guard against a hang, not measured times): up to three run
# beside the quiet ones, which leave both cores idle, and they take no slot of GCR_TEST_JOBS.
alone_tests="t032 t051"
quiet_tests="t062 t078"
light_tests="t115 t103 t119 t101 t117 t118 t074"
light_jobs=3
# One job at a time means one: the light ones then wait their turn like any other.
[ "$test_jobs" -eq 1 ] && light_tests=
solo="" quiet_ids="" light_ids=""
# kind_of NAME: $kind is alone, quiet, light or "" (any part).
kind_of() {
	kind=
	case "$1" in cli/*) ;; *) return 0 ;; esac
	k=${1#cli/}
	k=${k%%-*}
	case " $alone_tests " in *" $k "*) kind=alone ;; esac
	case " $quiet_tests " in *" $k "*) kind=quiet ;; esac
	case " $light_tests " in *" $k "*) kind=light ;; esac
}
# count_ids IDS: how many of those parts are still running (into $n_running).
count_ids() {
	n_running=0
	for q in $1; do
		[ -f "$log/$q.status" ] || n_running=$((n_running + 1))
	done
}
# may_start KIND: whether a part of that kind may start now, with $running parts running.
may_start() {
	[ -n "$solo" ] && [ ! -f "$log/$solo.status" ] && return 1
	count_ids "$quiet_ids"
	quiet_running=$n_running
	count_ids "$light_ids"
	light_running=$n_running
	case $1 in
	alone) [ "$running" -eq 0 ] ;;
	quiet) [ "$running" -eq $((quiet_running + light_running)) ] ;;
	light) [ "$light_running" -lt "$light_jobs" ] ;;
	*) [ "$quiet_running" -eq 0 ] && [ $((running - light_running)) -lt "$test_jobs" ] ;;
	esac
}
run() { # name, command...
	kind_of "$1"
	drain
	count_running
	until may_start "$kind"; do
		sleep 0.2
		drain
		count_running
	done
	queued=$((queued + 1))
	echo "$1" >"$log/$queued.name"
	run_one "$queued" "$@" &
	solo=
	case $kind in
	alone) solo=$queued ;;
	quiet) quiet_ids="$quiet_ids $queued" ;;
	light) light_ids="$light_ids $queued" ;;
	esac
}
# Interrupted, the parts still running go too: each runs under timeout, in a process group of
# its own, which passes the signal on.
stop_parts() {
	trap - INT TERM
	for f in "$log"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	wait
	rm -rf "$log"
	exit 2
}
trap stop_parts INT TERM

# parts FN: calls FN NAME COMMAND... for every part of the suite (PATTERN: only the CLI tests
# whose file name contains it). It runs once for each name in $first below, so it forks
# nothing itself: basename's 200 forks a pass made that 8 CPU seconds.
parts() {
	if [ -z "$pattern" ]; then
		for t in build/tests/test_*; do
			"$1" "unit/${t##*/}" "$t"
		done
	fi
	if [ -z "$pattern" ] && [ -z "$quick" ]; then
		for t in build-asan/tests/test_*; do
			[ -x "$t" ] && "$1" "asan/${t##*/}" "$t"
		done
		# Every collector against the ABI's promises, plainly and under zeal; the precise ones
		# again under clang's sanitizers (tests/abi/run.sh --sanitize says which).
		"$1" "abi/conformance" sh tests/abi/run.sh
		"$1" "asan/abi-conformance" sh tests/abi/run.sh --sanitize epsilon marksweep
		# Each fuzzer (make fuzz-build) for a bounded time on its committed corpus.
		for t in build-fuzz/fuzz/fuzz_*; do
			t=${t##*/}
			[ -x "build-fuzz/fuzz/$t" ] && "$1" "fuzz/${t#fuzz_}" sh tests/fuzz/run.sh "${t#fuzz_}"
		done
	fi
	for t in tests/cli/t*.sh; do
		case "$t" in *"$pattern"*) ;; *) continue ;; esac
		case " $quick_out " in *" $t "*) continue ;; esac
		n=${t##*/}
		"$1" "cli/${n%.sh}" sh "$t"
	done
	# The CLI itself under AddressSanitizer, UBSan and LeakSanitizer (make asan): a leak or any
	# sanitizer report makes the command exit 23, which no test expects, and so fails it. A set
	# that drives every verb, kept to about half a minute: t123 runs each verb once on scripted
	# probes. The collectors and the launcher are build/'s (GCR_BUILD_ROOT): probes are not what
	# is tested.
	if [ -z "$pattern" ] && [ -z "$quick" ]; then
		if [ -x build-asan/gcratchet ]; then
			for n in $lsan_tests; do
				for t in tests/cli/"$n"-*.sh; do
					k=${t##*/}
					"$1" "lsan/${k%.sh}" env GCR="$PWD/build-asan/gcratchet" \
						GCR_BUILD_ROOT="$PWD/build" ASAN_OPTIONS=detect_leaks=1:exitcode=23 \
						UBSAN_OPTIONS=exitcode=23 sh "$t"
				done
			done
		else
			"$1" "lsan/cli" sh -c 'echo "lsan: build-asan/gcratchet is missing: make asan"; exit 1'
		fi
	fi
}
lsan_tests="t001 t012 t023 t024 t053 t056 t057 t060 t070 t071 t092 t099 t120 t121 t122 t123 t170 t174 t181"
# The order the parts start in: the CPU-bound suite ends when its last part does, so the ones
# that run alone go first, one after the other, then the quiet ones together (nothing else is
# running yet to wait for) with the light ones beside them, then the longest, by the CPU
# seconds of a suite run on this 2-core VM (tests/run.sh prints them: t022 163, t075 51,
# t096 45, t076 32, t105 27 ...), and the rest in their usual order. A part missing from these
# lists only starts later; a name that matches no part starts nothing.
first="$alone_tests $quiet_tests $light_tests cli/t022 cli/t075 cli/t096 cli/t076 cli/t105
	cli/t160 cli/t175 cli/t090 cli/t077 cli/t082 cli/t180 cli/t021 cli/t054 cli/t150 cli/t050
	cli/t107 cli/t040 cli/t108 cli/t177 cli/t151 abi/conformance"
started=" "
# run_once NAME COMMAND...: the part, unless it has started already.
run_once() {
	case " $started " in *" $1 "*) return 0 ;; esac
	started="$started$1 "
	run "$@"
}
# run_named NAME COMMAND...: the part, if NAME is $want's ("t032" is a CLI test's number,
# "cli/t022" a part's name up to its dash).
want=
run_named() {
	case $1 in "$want" | "$want"-* | cli/"$want"-*) run_once "$@" ;; esac
}
for want in $first; do parts run_named; done
parts run_once

drain all
wait
rm -rf "$log"
echo
if [ -n "$quick" ]; then
	set -- $quick_out
	echo "quick: left out $# CLI tests that need valgrind, jvm, node, pg or asan (make test runs them)"
fi
echo "suite: $(( $(date +%s) - suite_start ))s, the parts' CPU ${cpu_total}s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
