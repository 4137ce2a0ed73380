#!/bin/sh
# run.sh — the whole suite: unit tests (normal and sanitizer builds), the ABI conformance test
# on every collector, each libFuzzer harness for $GCR_FUZZ_SECONDS (default 15), the
# end-to-end CLI tests, and a set of them again with the sanitizer build of the CLI. Each
# part prints "<name>: N passed, N failed"; this adds them up and ends with one line
# "N passed, N failed".
# Usage: tests/run.sh [PATTERN]   (runs only the CLI tests whose file name contains PATTERN)
set -u
cd "$(dirname "$0")/.."
pattern=${1:-}
passed=0 failed=0
log=$(mktemp -d /tmp/gcratchet-tests.XXXXXX)
suite_start=$(date +%s)

tally() { # name, status, output file
	line=$(grep -E '^[^ ]*:? ?[0-9]+ passed, [0-9]+ failed$' "$3" | tail -n 1)
	p=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i == "passed,") print $(i - 1) }')
	f=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i == "failed") print $(i - 1) }')
	p=${p:-0} f=${f:-0}
	# A test that died without a tally, or exited non-zero with none failed, counts as failed.
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ -z "$line" ] && [ "$2" -eq 0 ]; then p=1; fi
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $1 ($p passed, $f failed):"
		sed 's/^/    /' "$3" | tail -n 40
	else
		echo "ok   $1 ($p passed)"
	fi
}

# No part may hang the suite: one that runs past GCR_TEST_TIMEOUT seconds (default 600; the
# slowest takes under a minute on a quiet 2-core VM) is ended and fails, named.
test_timeout=${GCR_TEST_TIMEOUT:-600}
run() { # name, command...
	name=$1
	shift
	out="$log/$(echo "$name" | tr '/ ' '__').out"
	start=$(date +%s)
	timeout -k 10 "$test_timeout" "$@" >"$out" 2>&1
	status=$?
	[ "$status" -eq 124 ] && echo "$name: ended after ${test_timeout}s (GCR_TEST_TIMEOUT)" >>"$out"
	tally "$name [$(( $(date +%s) - start ))s]" "$status" "$out"
}

if [ -z "$pattern" ]; then
	for t in build/tests/test_*; do
		run "unit/$(basename "$t")" "$t"
	done
	for t in build-asan/tests/test_*; do
		[ -x "$t" ] && run "asan/$(basename "$t")" "$t"
	done
	# Every collector against the ABI's promises, plainly and under zeal; the precise ones
	# again under clang's sanitizers (tests/abi/run.sh --sanitize says which).
	run "abi/conformance" sh tests/abi/run.sh
	run "asan/abi-conformance" sh tests/abi/run.sh --sanitize epsilon marksweep
	# Each fuzzer (make fuzz-build) for a bounded time on its committed corpus.
	for t in build-fuzz/fuzz/fuzz_*; do
		t=$(basename "$t")
		[ -x "build-fuzz/fuzz/$t" ] && run "fuzz/${t#fuzz_}" sh tests/fuzz/run.sh "${t#fuzz_}"
	done
fi
for t in tests/cli/t*.sh; do
	case "$t" in *"$pattern"*) ;; *) continue ;; esac
	run "cli/$(basename "$t" .sh)" sh "$t"
done
# The CLI itself under AddressSanitizer, UBSan and LeakSanitizer (make asan): a leak or any
# sanitizer report makes the command exit 23, which no test expects, and so fails it. A set that drives
# every verb, kept to about half a minute: t123 runs each verb once on scripted probes. The
# collectors and the launcher are build/'s (GCR_BUILD_ROOT): probes are not what is tested.
lsan_tests="t001 t012 t023 t024 t053 t056 t057 t060 t070 t071 t092 t099 t120 t121 t122 t123 t170 t174"
if [ -z "$pattern" ]; then
	if [ -x build-asan/gcratchet ]; then
		for n in $lsan_tests; do
			for t in tests/cli/"$n"-*.sh; do
				run "lsan/$(basename "$t" .sh)" env GCR="$PWD/build-asan/gcratchet" \
					GCR_BUILD_ROOT="$PWD/build" ASAN_OPTIONS=detect_leaks=1:exitcode=23 \
					UBSAN_OPTIONS=exitcode=23 sh "$t"
			done
		done
	else
		echo "lsan: build-asan/gcratchet is missing: make asan" >"$log/lsan.out"
		tally "lsan/cli" 1 "$log/lsan.out"
	fi
fi

rm -rf "$log"
echo
echo "suite: $(( $(date +%s) - suite_start ))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
