#!/bin/sh
# gcratchet minheap (issue 13): one row per probe and collector in the table, the JSON and the
# store; the answer is a real boundary: the probe run directly at 90% of it exits 3 with
# "heap exhausted", at 110% exits 0 with the checksum it prints without a limit. A run that
# exhausts its heap is stored and shown as "heap exhausted", not as a crash or a failure.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/lock"

expect_status 0 "$GCR" minheap --collector gen --collector marksweep --collector bdwgc \
	--probes 05,12 --size ci --out "$T/mh.json"
cp "$T/out" "$T/table"
for c in gen marksweep bdwgc; do
	for p in 05_binary_trees 12_large_live_set; do
		expect_grep "^$c +$p +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ " "$T/table" "a row for $c $p"
	done
done
expect_eq "$(grep -c '_' "$T/table")" 6 "six rows, nothing else with a probe name"
expect_eq "$(sql "SELECT count(*) FROM minheap WHERE outcome = 'found' AND min_heap_mb > 0")" \
	6 "six answers stored"

# Each answer from the JSON, then the probe binary itself at 90% and 110% of it.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "gcratchet-minheap" and d["size"] == "ci", d
for r in d["results"]:
    assert r["outcome"] == "found" and r["min_heap_mb"] >= 1 and r["step_mb"] >= 1, r
    assert r["fails_at_mb"] < r["min_heap_mb"] and r["runs"] >= 3, r
    print(r["build"], r["probe"], r["min_heap_mb"], r["checksum"])' "$T/mh.json" >"$T/rows" 2>&1
expect_eq "$(wc -l <"$T/rows")" 6 "six results in the JSON"
while read -r c p mb sum; do
	low=$((mb * 9 / 10))
	high=$(((mb * 11 + 9) / 10))
	exe="$TOP/build/collectors/$c/$p"
	if [ "$low" -ge 1 ] && [ "$low" -lt "$mb" ]; then
		GCR_HEAP_MAX_MB=$low expect_status 3 "$exe" ci
		expect_grep "^$c: heap exhausted: .*GCR_HEAP_MAX_MB=$low\)" "$T/err" \
			"$c $p exhausts at 90% ($low MiB of $mb)"
		expect_no_grep "checksum" "$T/out" "$c $p prints no checksum at 90%"
	else
		fail "$c $p: a minimum of $mb MiB leaves no 90% to try"
	fi
	GCR_HEAP_MAX_MB=$high expect_status 0 "$exe" ci
	expect_grep "^checksum $sum\$" "$T/out" "$c $p completes at 110% ($high MiB of $mb)"
done <"$T/rows"

# measure with a limit too small: the run is heap_exhausted in the store, "heap exhausted" on
# screen, and the session could not be judged (2), never a crash.
expect_status 2 "$GCR" measure --collector marksweep --probes 12 --size ci --rounds 1 \
	--warmup 0 --meters rusage,census --knob GCR_HEAP_MAX_MB=2
expect_grep "12_large_live_set +marksweep +heap exhausted +exited 3: marksweep: heap exhausted" \
	"$T/out" "measure shows the run as heap exhausted"
expect_eq "$(sql "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" heap_exhausted \
	"the store keeps heap_exhausted"

# Options: minheap takes the shared ones it uses and refuses the rest.
expect_status 2 "$GCR" minheap --collector marksweep --repeats 0
expect_grep "minheap: --repeats must be 1 to 100, got 0" "$T/err" "--repeats is bounded"
expect_status 2 "$GCR" minheap --collector marksweep --rounds 3
expect_grep "rounds" "$T/err" "--rounds means nothing to a search"
expect_status 2 "$GCR" minheap --collector marksweep --timeout abc
expect_grep "--timeout must be" "$T/err" "--timeout goes through the shared parser"

# A build that ignores GCR_HEAP_MAX_MB completes at any limit: its "minimum" would be the
# search's floor, 1 MiB. Its census gives it away (100 MiB committed under a limit of a quarter of that): the
# search fails saying so, and check cannot judge the cell, rather than pinning 1 MiB.
B="$T/ignores"
make_script_build "$B" 01_nolimit
cat >"$B/01_nolimit" <<'SCRIPT'
#!/bin/sh
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_nolimit","size":"ci","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"heap_committed_peak_bytes":104857600}}' >&3
SCRIPT
seal_manifest "$B"
expect_status 2 "$GCR" minheap --build "$B" --probes 01 --size ci --repeats 1
expect_grep "01_nolimit .*at [0-9]+ MiB the run committed 100.0 MiB: the build ignores GCR_HEAP_MAX_MB" \
	"$T/out" "a build that ignores the limit is named"
expect_eq "$(sql "SELECT outcome FROM minheap m JOIN builds b ON b.id = m.build_id WHERE b.name = 'scripted'")" \
	failed "stored as a failed search, not a 1 MiB minimum"

# A minimum above the unlimited peak (a Go port at GOGC=100: 12 MiB against a 10.8 MiB peak):
# the limit at which it failed already held the whole peak its census reported, so the row
# says so, and docs/sweeps.md says why that happens. A build whose failed limit is below its
# peak gets no such note.
B="$T/soft"
make_script_build "$B" 01_softlimit 02_hardlimit
for p in 01_softlimit:11324620 02_hardlimit:13107200; do
	cat >"$B/${p%%:*}" <<SCRIPT
#!/bin/sh
if [ -n "\${GCR_HEAP_MAX_MB:-}" ] && [ "\$GCR_HEAP_MAX_MB" -lt 12 ]; then
	echo "scripted: heap exhausted: the runtime's own memory does not fit" >&2
	exit 3
fi
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"${p%%:*}","size":"ci","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"heap_committed_peak_bytes":${p#*:}}}' >&3
SCRIPT
done
seal_manifest "$B"
expect_status 0 "$GCR" minheap --build "$B" --probes 01,02 --size ci --repeats 1
expect_grep "^scripted +01_softlimit +12 +11 +1 +[0-9]+ +10.8  fails at or above the unlimited peak$" \
	"$T/out" "a minimum whose failed limit held the unlimited peak is noted"
expect_grep "^scripted +02_hardlimit +12 +11 +1 +[0-9]+ +12.5\$" "$T/out" \
	"a failed limit below the unlimited peak is no surprise: no note"
finish
