#!/bin/sh
# run.sh [--sanitize] [COLLECTOR|FOLDER...] — builds and runs the ABI conformance test on each
# collector, once plainly and once under GCR_ZEAL=7, and ends with "N passed, N failed" (exit 1
# if any failed). An argument with a "/" is a collector's folder, anywhere (./mygc, /src/mygc:
# what `make abi-check COLLECTOR_DIR=DIR` passes); any other is a shipped collector's name. No
# argument: every folder under collectors/ with a collector.mk.
#   --sanitize  builds with clang's sanitizers as `make test` holds the shipped collectors to
#               (AddressSanitizer, UBSan with float-cast-overflow and -fsanitize=integer but
#               unsigned wrap-around, which collectors use on purpose: `p - base < size`,
#               `i-- > 0`), into build-asan/abi; SAN_CC (default clang) compiles
#   ABI_OUT  where builds and logs go (default build/abi: build/abi/<collector>/...)
#   ABI_OPT  compile and link options instead of -O2 -g (or the sanitizers' with --sanitize)
set -u
here=$(dirname "$0")
root=$here/../..
out=${ABI_OUT:-build/abi}
opt=${ABI_OPT:-}
cc= what=
if [ "${1:-}" = --sanitize ]; then
	shift
	out=${ABI_OUT:-build-asan/abi}
	opt=${ABI_OPT:-"-O1 -g -fno-omit-frame-pointer \
-fsanitize=address,undefined,float-cast-overflow,integer \
-fno-sanitize=unsigned-integer-overflow -fno-sanitize-recover=all"}
	cc=${SAN_CC:-clang}
	what=" (sanitizers)"
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "run.sh: --sanitize needs $cc: apt-get install clang libclang-rt-dev (or set SAN_CC)" >&2
		exit 2
	fi
fi
if [ $# -eq 0 ]; then
	for d in "$root"/collectors/*/collector.mk; do
		set -- "$@" "$(basename "$(dirname "$d")")"
	done
fi
passed=0 failed=0
for arg in "$@"; do
	case $arg in
	*/*)
		if [ ! -d "$arg" ]; then
			echo "FAIL $arg: no such folder"
			failed=$((failed + 1))
			continue
		fi
		name=$(basename "$(cd "$arg" && pwd)")
		folder=$arg ;;
	*)
		name=$arg
		folder= ;;
	esac
	dir=$out/$name
	mkdir -p "$dir"
	if ! "$here/build.sh" "$name" "$dir/abi_conformance" ${folder:+"COLLECTOR_DIR=$folder"} ${opt:+"OPT=$opt"} ${cc:+"CC=$cc"} \
		>"$dir/build.log" 2>&1; then
		echo "FAIL $name$what: build ($dir/build.log):"
		grep -E 'error|\*\*\*' "$dir/build.log" | head -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
		continue
	fi
	for zeal in "" 7; do
		label="$name$what${zeal:+ GCR_ZEAL=$zeal}"
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
