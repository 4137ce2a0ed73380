#!/bin/sh
# THP as a controlled condition, measured (issue 31, docs/meters.md "Transparent huge pages"):
# a collector that asks for huge pages on its heap (gen built with GCR_PLANT_HUGEPAGE, which
# madvises every mapping MADV_HUGEPAGE) has the plain build's RSS cells under the default
# --thp off, and other ones under --thp host on a host whose THP mode is madvise or always.
# Elsewhere (never, or no THP) the second half is skipped, and the test says so.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
P=10_large_objects
build_variant gen-hugepage collectors/gen "$T/gen-hugepage" -DGCR_PLANT_HUGEPAGE $P

# medians SESSION METRIC — "PLAIN HUGE": each build's median of the metric, in bytes.
medians() {
	for b in gen gen-hugepage; do
		"$GCR" export --session "$1" | jq -r --arg b "$b" --arg m "$2" \
			'[.runs[] | select(.build == $b and .kind == "timed" and .status == "ok") | .samples[$m]] | sort | .[length / 2 | floor] | floor'
	done | tr '\n' ' '
}
# measure_thp COND — a session of both builds, interleaved, under --thp COND; its id in $s.
measure_thp() {
	expect_status 0 "$GCR" measure --collector gen --build "$T/gen-hugepage" --probes $P --size ci \
		--rounds 3 --warmup 0 --meters rusage,census --thp "$1"
	s=$("$GCR" export | jq -r .session.id)
}
MIB=1048576

# Under the default, the madvise is moot: THP is off for the probe's whole process.
measure_thp off
for m in rss.peak_bytes memory.rss_anon_bytes; do
	set -- $(medians "$s" $m)
	echo "--thp off  $m: plain $1, hugepage $2"
	d=$(($2 - $1))
	if [ "${d#-}" -lt $((MIB / 2)) ]; then pass; else
		fail "--thp off: $m of the hugepage build ($2) should be the plain build's ($1) within 0.5 MiB"
	fi
done

mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case "$mode" in
madvise | always)
	# The host's THP backs the madvised heap with 2 MiB pages: RssAnon at exit, after the
	# large objects are freed, keeps a huge page (0.25 MiB plain, 2.23 MiB hugepage here), and
	# the peak moves by a page too (14.0 against 16.0 MiB). The plain build, which madvises
	# nothing, stays as it was under off (in madvise mode; in always mode it moves too).
	measure_thp host
	for m in rss.peak_bytes memory.rss_anon_bytes; do
		set -- $(medians "$s" $m)
		echo "--thp host $m: plain $1, hugepage $2"
		if [ $(($2 - $1)) -ge $MIB ]; then pass; else
			fail "--thp host ($mode): $m of the hugepage build ($2) should exceed the plain build's ($1) by 1 MiB or more"
		fi
	done
	;;
*)
	skip "t126: the --thp host half: this host's THP mode is '${mode:-absent}' (/sys/kernel/mm/transparent_hugepage/enabled), so no probe gets huge pages; it needs madvise or always"
	;;
esac

finish
