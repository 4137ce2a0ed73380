#!/bin/sh
# Every probe prints the same checksum on every shipped collector, and again under GCR_ZEAL=1
# (a collection at every allocation) on the precise collectors: the suite's own correctness
# oracle. marksweep collects every 7th allocation on 03, 06 and 15 (zeal_of, below): their
# live set is filled first whatever --iterations says, and a full collection at each of those
# allocations took 30 of this test's 40 CPU seconds (4.2, 11.8, 13.8 s; 0.7, 1.9, 1.9 at 7).
# Their loops allocate 4, 3 and 6 or 7 objects a round (the census's alloc_objects at
# --iterations 2000, 2001, 2002), none a multiple of 7: each allocation site is still
# collected at, every 7th round.
# A moving or precise collector that loses or fails to update a root makes a probe abort or
# print another checksum, and this test names the probe and collector.
# Each probe runs with a small --iterations count (below), so that marksweep collecting at
# every allocation still finishes; a different count must give a different checksum, so that
# agreement is not vacuous. The checksums are printed as a table.
# GCR_TEST_COLLECTORS=DIR tests the collector build folders under DIR instead of
# $TOP/build/collectors (for example builds made with collectors/build.mk OUT=...).
. "$(dirname "$0")/lib.sh"

DIR=${GCR_TEST_COLLECTORS:-$TOP/build/collectors}
SHIPPED="epsilon marksweep gen bdwgc bdwgc-incremental"
PRECISE="marksweep gen"

# Iterations per probe: what one run at every collection per allocation can afford. A new
# probe needs a line here; the test fails until it has one.
iterations_of() {
	case $1 in
	01_nursery_churn) echo 5000 ;;
	02_survivor_promotion) echo 2000 ;;
	03_cross_gen_writes) echo 2000 ;;
	04_deep_stack_garbage) echo 2 ;;
	05_binary_trees) echo 10 ;; # the maximum tree depth
	06_fragmentation) echo 2000 ;;
	07_array_growth) echo 5000 ;;
	08_hash_side_tables) echo 5000 ;;
	09_weak_finalize) echo 2000 ;;
	10_large_objects) echo 10 ;;
	11_collect_at_depth) echo 1 ;;
	12_large_live_set) echo 1000 ;;
	13_memory_return) echo 1 ;; # MiB of small objects
	14_grow_then_churn) echo 2000 ;;
	15_request_latency) echo 2000 ;;
	*) echo "" ;;
	esac
}

# zeal_of COLLECTOR PROBE: the GCR_ZEAL it runs under (gen collects at every allocation of
# every probe, minor collections being cheap).
zeal_of() {
	case $1:$2 in
	marksweep:03_cross_gen_writes | marksweep:06_fragmentation | marksweep:15_request_latency) echo 7 ;;
	*) echo 1 ;;
	esac
}

# run_probe BINARY ITERATIONS [ENV...]: prints the checksum, or FAILED (with why on stderr).
run_probe() {
	bin=$1 n=$2
	shift 2
	env "$@" "$bin" --iterations "$n" >"$T/run.out" 2>"$T/run.err"
	st=$?
	sum=$(sed -n 's/^checksum \(0x[0-9a-f]\{16\}\)$/\1/p' "$T/run.out")
	if [ "$st" -ne 0 ] || [ -z "$sum" ]; then
		echo "$bin --iterations $n $*: exit $st" >&2
		sed 's/^/  stderr: /' "$T/run.err" | tail -n 5 >&2
		echo FAILED
		return
	fi
	echo "$sum"
}

collectors=
for c in $SHIPPED; do
	[ -f "$DIR/$c/manifest.json" ] && collectors="$collectors $c"
done
zeal=
for c in $PRECISE; do
	case " $collectors " in *" $c "*) zeal="$zeal $c" ;; esac
done
set -- $collectors
if [ $# -lt 2 ]; then
	fail "fewer than two collector builds under $DIR (found:$collectors): run make first"
	finish
fi
ref_collector=$1
echo "collectors:$collectors; under GCR_ZEAL (1, or zeal_of's):$zeal"

probes=
for src in "$TOP"/probes/[0-9][0-9]_*.c; do
	probes="$probes $(basename "$src" .c)"
done

table="$T/table"
{
	printf '%-24s %6s' probe iter
	for c in $collectors; do printf ' %-18s' "$c"; done
	for c in $zeal; do printf ' %-18s' "$c+zeal"; done
	printf '\n'
} >"$table"

for p in $probes; do
	n=$(iterations_of "$p")
	if [ -z "$n" ]; then
		fail "$p has no iteration count in $(basename "$0"): add it to iterations_of"
		continue
	fi
	cells=
	ref=
	bad=0
	for c in $collectors; do
		if [ ! -x "$DIR/$c/$p" ]; then
			fail "$DIR/$c/$p is not built"
			cells="$cells missing"
			bad=1
			continue
		fi
		sum=$(run_probe "$DIR/$c/$p" "$n")
		cells="$cells $sum"
		if [ "$sum" = FAILED ]; then
			fail "$p failed on $c"
			bad=1
		elif [ -z "$ref" ]; then
			ref=$sum ref_from=$c
		elif [ "$sum" != "$ref" ]; then
			fail "$p: $c prints $sum, $ref_from prints $ref"
			bad=1
		fi
	done
	for c in $zeal; do
		[ -x "$DIR/$c/$p" ] || continue
		z=$(zeal_of "$c" "$p")
		sum=$(run_probe "$DIR/$c/$p" "$n" GCR_ZEAL="$z")
		cells="$cells $sum"
		if [ "$sum" = FAILED ]; then
			fail "$p failed on $c under GCR_ZEAL=$z"
			bad=1
		elif [ -n "$ref" ] && [ "$sum" != "$ref" ]; then
			fail "$p: $c under GCR_ZEAL=$z prints $sum, $ref_from prints $ref"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ] && pass
	{
		printf '%-24s %6s' "$p" "$n"
		printf ' %-18s' $cells
		printf '\n'
	} >>"$table"

	# The checksum must depend on the work done, or agreement would prove nothing.
	if [ -n "$ref" ] && [ -x "$DIR/$ref_collector/$p" ]; then
		other=$(run_probe "$DIR/$ref_collector/$p" $((n + 1)))
		if [ "$other" = FAILED ] || [ "$other" = "$ref" ]; then
			fail "$p: --iterations $((n + 1)) prints $other, the same as --iterations $n"
		else
			pass
		fi
	fi
done

cat "$table"
finish
