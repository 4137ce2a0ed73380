#!/bin/sh
# run.sh [COLLECTOR...] — builds and runs the ABI conformance test on each collector (default:
# every folder under collectors/ with a collector.mk), once plainly and once under GCR_ZEAL=7,
# and ends with "N passed, N failed" (exit 1 if any failed).
#   ABI_OUT  where builds and logs go (default build/abi: build/abi/<collector>/...)
#   ABI_OPT  compile and link options instead of -O2 -g, e.g. for the sanitizer run:
#            ABI_OUT=build/abi-asan ABI_OPT='-O1 -g -fsanitize=address,undefined' tests/abi/run.sh
set -u
here=$(dirname "$0")
root=$here/../..
out=${ABI_OUT:-build/abi}
if [ $# -eq 0 ]; then
	for d in "$root"/collectors/*/collector.mk; do
		set -- "$@" "$(basename "$(dirname "$d")")"
	done
fi
passed=0 failed=0
for name in "$@"; do
	dir=$out/$name
	mkdir -p "$dir"
	if ! "$here/build.sh" "$name" "$dir/abi_conformance" ${ABI_OPT:+"OPT=$ABI_OPT"} \
		>"$dir/build.log" 2>&1; then
		echo "FAIL $name: build (see $dir/build.log)"
		failed=$((failed + 1))
		continue
	fi
	for zeal in "" 7; do
		label="$name${zeal:+ GCR_ZEAL=$zeal}"
		log=$dir/run${zeal:+-zeal$zeal}.log
		if GCR_ZEAL=$zeal "$dir/abi_conformance" >"$log" 2>&1; then
			echo "ok   $label: $(tail -n 1 "$log")"
			passed=$((passed + 1))
		else
			echo "FAIL $label:"
			sed 's/^/    /' "$log"
			failed=$((failed + 1))
		fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
