#!/bin/sh
# run.sh [-t SECONDS] [-o DIR] [TARGET...] — runs the libFuzzer harnesses of `make fuzz-build`
# (build-fuzz/fuzz/fuzz_<target>) for a bounded time each, seeded from tests/fuzz/corpus/<target>/
# with tests/fuzz/<target>.dict, and prints "fuzz/<target>: 1 passed, 0 failed" or "... 0 passed,
# 1 failed" with the input that failed; ends with "N passed, N failed". Default: every target.
#   -t SECONDS  how long each runs (default $GCR_FUZZ_SECONDS, else 15)
#   -o DIR      new inputs go to DIR/<target>/ and are kept for the next run (make fuzz);
#               otherwise to a scratch folder. The committed corpus is only read, never grown.
# Each run prints libFuzzer's seed; GCR_FUZZ_SEED=N repeats it (as far as a run bounded by
# time can be repeated: a slower machine runs fewer inputs of the same sequence).
# A failing input is saved as build-fuzz/crashes/<target>/crash-<sha1> (tests/fuzz/README.md).
# A finding at the same place as one of tests/fuzz/crashes/<target>/ (parked, not yet fixed)
# is listed as known and does not fail the run.
set -u
cd "$(dirname "$0")/../.."
seconds=${GCR_FUZZ_SECONDS:-15}
keep=""
while getopts t:o: flag; do
	case $flag in
	t) seconds=$OPTARG ;;
	o) keep=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		t=$(basename "$f" .c)
		set -- "$@" "${t#fuzz_}"
	done
fi

# UBSan's reports name the function and the line only with a stack trace.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS
passed=0 failed=0
scratch=$(mktemp -d /tmp/gcratchet-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# The place a finding's log points at: the first "SUMMARY:" line's file:line (a sanitizer's,
# or FUZZ_FAIL's). Empty when it names none (a leak, a timeout): such a finding is never
# taken for a known one.
place() { # log
	grep -E '^SUMMARY: .*\.[ch]:[0-9]+' "$1" | head -n 1 | grep -oE '[^ ]+\.[ch]:[0-9]+' | head -n 1
}

# The places of the target's parked reproducers (tests/fuzz/crashes/<target>/), one a line;
# notes the ones that no longer fail, which belong in the corpus now.
known_places() { # target bin
	for f in tests/fuzz/crashes/$1/*; do
		[ -f "$f" ] || continue
		if "$2" "$f" >"$scratch/known.log" 2>&1; then
			echo "fuzz/$1: $f no longer fails: move it to tests/fuzz/corpus/$1/" >&2
		else
			place "$scratch/known.log"
		fi
	done
}

for t in "$@"; do
	bin=build-fuzz/fuzz/fuzz_$t
	crashes=build-fuzz/crashes/$t
	work=${keep:+$keep/$t}
	work=${work:-$scratch/$t}
	log=$scratch/$t.log
	mkdir -p "$work" "$crashes"
	if [ ! -x "$bin" ]; then
		echo "fuzz/$t: $bin is not built (make fuzz-build)"
		echo "fuzz/$t: 0 passed, 1 failed"
		failed=$((failed + 1))
		continue
	fi
	dict=tests/fuzz/$t.dict
	[ -f "$dict" ] || dict=""
	# A finding that a parked reproducer already shows is reported but does not fail the run,
	# which goes on, with a new seed, for the time left: a known bug in someone else's code
	# must not hide new ones, nor fail every `make test` until it is fixed.
	deadline=$(($(date +%s) + seconds))
	left=$seconds runs=0 seeds="" known="" status=0
	while [ "$left" -gt 0 ]; do
		# -close_fd_mask=3: the cli harness prints every usage error; the sanitizers' and
		# FUZZ_FAIL's reports still reach the log. -timeout and -rss_limit_mb make a hang or
		# a runaway allocation a finding.
		"$bin" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
			-print_final_stats=1 -artifact_prefix="$crashes/" ${dict:+-dict="$dict"} \
			${GCR_FUZZ_SEED:+-seed="$GCR_FUZZ_SEED"} "$work" "tests/fuzz/corpus/$t" \
			>"$log" 2>&1
		status=$?
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		runs=$((runs + ${n:-0}))
		seeds="$seeds${seeds:+,}$(sed -n 's/^INFO: Seed: *//p' "$log")"
		[ "$status" -eq 0 ] && break
		at=$(place "$log")
		[ -n "$at" ] || break
		[ -n "${places+set}" ] || places=$(known_places "$t" "$bin")
		printf '%s\n' "$places" | grep -qxF "$at" || break
		known="$known${known:+, }$at"
		rm -f "$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")"
		status=0
		left=$((deadline - $(date +%s)))
	done
	unset places
	if [ "$status" -eq 0 ]; then
		echo "fuzz/$t: $runs inputs in ${seconds}s, seed $seeds, no new finding"
		[ -z "$known" ] || echo "fuzz/$t: known findings, parked in tests/fuzz/crashes/$t/: $known"
		echo "fuzz/$t: 1 passed, 0 failed"
		passed=$((passed + 1))
	else
		echo "fuzz/$t: FAILED (exit $status), seed ${seeds##*,}:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|    #[0-9]+ )' "$log" |
			grep -v -e 'in fuzzer::' -e 'in __libc_start' -e 'in main ' -e 'in _start ' \
				-e 'in __sanitizer_' -e 'libc\.so' -e 'in raise ' -e 'in abort ' \
				-e 'in __pthread_kill' -e 'in fuzz_fail ' |
			head -n 25 | sed 's/^/    /'
		input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		echo "    reproduce: $bin ${input:-(no input saved: see libFuzzer's output)}"
		if [ -z "$input" ]; then
			tail -n 15 "$log" | sed 's/^/    /'
		fi
		echo "fuzz/$t: 0 passed, 1 failed"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
