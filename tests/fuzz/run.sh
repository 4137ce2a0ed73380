#!/bin/sh
# run.sh [-t SECONDS] [-o DIR] [TARGET...] — runs libFuzzer harnesses (build-fuzz/fuzz/fuzz_<target>,
# from `make fuzz-build`) for a bounded time each, seeded from tests/fuzz/corpus/<target>/ with
# tests/fuzz/<target>.dict, and prints "fuzz/<target>: 1 passed, 0 failed" or "... 0 passed,
# 1 failed" with the input that failed; ends with "N passed, N failed". Default: every target.
#   -t SECONDS  how long each runs (default $GCR_FUZZ_SECONDS, else 20)
#   -o DIR      new inputs go to DIR/<target>/ and are kept for the next run (make fuzz);
#               otherwise to a scratch folder. The committed corpus is only read, never grown.
# Each run prints libFuzzer's seed; GCR_FUZZ_SEED=N repeats it (as far as a run bounded by
# time can be repeated: a slower machine runs fewer inputs of the same sequence).
# A failing input is saved as build-fuzz/crashes/<target>/crash-<sha1> (tests/fuzz/README.md).
set -u
cd "$(dirname "$0")/../.."
seconds=${GCR_FUZZ_SECONDS:-20}
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
	# -close_fd_mask=3: the cli harness prints every usage error; a sanitizer's report still
	# reaches the log. -timeout and -rss_limit_mb make a hang or a runaway allocation a failure.
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$crashes/" ${dict:+-dict="$dict"} \
		${GCR_FUZZ_SEED:+-seed="$GCR_FUZZ_SEED"} "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	seed=$(sed -n 's/^INFO: Seed: *//p' "$log")
	if [ "$status" -eq 0 ]; then
		echo "fuzz/$t: ${runs:-?} inputs in ${seconds}s, seed ${seed:-?}, no crash"
		echo "fuzz/$t: 1 passed, 0 failed"
		passed=$((passed + 1))
	else
		echo "fuzz/$t: FAILED (exit $status), seed ${seed:-?}:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: |.*runtime error|    #[0-9]+ )' "$log" |
			grep -v -e 'in fuzzer::' -e 'in __libc_start' -e 'in main ' -e 'in _start ' |
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
