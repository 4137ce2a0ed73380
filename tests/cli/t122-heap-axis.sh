#!/bin/sh
# The heap axis under hostile use (issue 25). Item 19: minheap's run "without a limit" inherited
# GCR_HEAP_MAX_MB from the environment (so a search with it exported failed, or found a
# minimum below the real one), and `minheap --knob GCR_HEAP_MAX_MB=5` was silently overridden:
# the variable is cleared for every run of a search, and the knob is refused, naming it.
# Item 20: an interrupted sweep's Markdown did not say it was interrupted, and a sweep killed
# with SIGKILL (its session then abandoned) was reported as an A/B of its first two arms: every
# format says the status, and a sweep is reported as a sweep whatever its status.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
B="$T/scripted"
make_script_build "$B" 01_steady
# 01_steady honours the heap limit of gcr.h: it needs 4 MiB, and notes the limit of each run.
# $B/slow makes each run sleep that long, so a sweep can be stopped in the middle.
cat >"$B/01_steady" <<SCRIPT
#!/bin/sh
echo "\${GCR_HEAP_MAX_MB:-none}" >>"$B/limits"
[ -f "$B/slow" ] && sleep "\$(cat "$B/slow")"
if [ -n "\${GCR_HEAP_MAX_MB:-}" ] && [ "\$GCR_HEAP_MAX_MB" -lt 4 ]; then
	echo "gcr: heap exhausted" >&2
	exit 3
fi
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_steady","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"major_collections":2,"heap_committed_peak_bytes":3145728}}' "\$1" >&3
SCRIPT
seal_manifest "$B"
MH="minheap --build $B --probes 01 --size ci --repeats 1"

# ---- Item 19 ------------------------------------------------------------------------------
# shellcheck disable=SC2086 # $MH is words
expect_status 0 env GCR_HEAP_MAX_MB=2 "$GCR" $MH
expect_grep "^scripted +01_steady +4 " "$T/out" "the minimum is found with the variable exported"
expect_grep "note: GCR_HEAP_MAX_MB=2 in the environment is not passed on" "$T/err"
expect_eq "$(head -n 1 "$B/limits")" none "the run without a limit has none"
expect_no_grep "^2$" "$B/limits" "no run had the environment's limit"
expect_eq "$(sql "SELECT outcome || ' ' || min_heap_mb FROM minheap")" "found 4" "stored"
# Passed on by name, it is cleared all the same.
rm "$B/limits"
# shellcheck disable=SC2086
expect_status 0 env GCR_HEAP_MAX_MB=2 "$GCR" $MH --pass-env GCR_HEAP_MAX_MB
expect_eq "$(head -n 1 "$B/limits")" none "--pass-env does not bring it back"
# The search's own knob is refused, naming it; nothing runs.
rm "$B/limits"
# shellcheck disable=SC2086
expect_status 2 "$GCR" $MH --knob GCR_HEAP_MAX_MB=5
expect_grep "^gcratchet minheap: --knob GCR_HEAP_MAX_MB=5: minheap searches GCR_HEAP_MAX_MB itself" \
	"$T/err"
[ -e "$B/limits" ] && fail "a refused search ran the probe"
# Other knobs still reach every run.
# shellcheck disable=SC2086
expect_status 0 "$GCR" $MH --knob GCR_HEAP_MB=8
# A sweep's own search of the minimum (no stored answer in a new database) likewise.
rm -f "$B/limits"
expect_status 0 env GCR_HEAP_MAX_MB=2 GCR_DB="$T/sweep-env.db" "$GCR" sweep --build "$B" \
	--probes 01 --factors 1,2 --repeats 1 --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep "^reference minimum of 01_steady: 4 MiB" "$T/out" "the sweep's search too"

# ---- Item 20 ------------------------------------------------------------------------------
# sweep_bg: a sweep of 2 factors x 2 rounds in the background, each run 1 s long; waits for its
# first run to be stored, then sends $1 and waits for the sweep to end.
sweep_bg() {
	echo 1 >"$B/slow"
	"$GCR" sweep --build "$B" --probes 01 --factors 1,2 --repeats 1 --size ci --rounds 2 \
		--warmup 0 --meters rusage,census >"$T/bg.out" 2>"$T/bg.err" &
	pid=$!
	i=0
	while [ "$(sql "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id
		WHERE s.command LIKE '%sweep%' AND s.status = 'running'" 2>/dev/null)" != 1 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "-$1" "$pid"
	wait "$pid"
	rm "$B/slow"
	sql "SELECT MAX(id) FROM sessions"
}
# report_all SESSION: the three formats of a report of SESSION, as a sweep.
report_all() {
	expect_status 0 "$GCR" report --session "$1" --md "$T/$1.md" --json "$T/$1.json" --html "$T/$1.html"
	expect_grep "sweep session $1" "$T/out" "session $1 is reported as a sweep"
	expect_grep "^## Heap-size sweep: session $1, " "$T/$1.md" "Markdown: a sweep"
	expect_no_grep "^## A/B" "$T/$1.md" "not an A/B"
}

s=$(sweep_bg INT)
expect_eq "$(sql "SELECT status FROM sessions WHERE id = $s")" interrupted "SIGINT: interrupted"
expect_grep "INTERRUPTED" "$T/bg.out" "the sweep says so itself"
expect_grep "^## Heap-size sweep: session $s, .*, status interrupted$" "$T/bg.out" \
	"the sweep's own table says the status"
expect_grep "^\*\*The sweep is interrupted:\*\* its figures are of the runs it stored" "$T/bg.out"
report_all "$s"
expect_grep "status interrupted$" "$T/$s.md" "Markdown: interrupted"
expect_grep "^\*\*The sweep is interrupted:\*\*" "$T/$s.md"
expect_eq "$(jq -r .status "$T/$s.json")" interrupted "JSON: interrupted"
expect_grep "<strong>The sweep is interrupted:</strong>" "$T/$s.html" "HTML: interrupted"

s=$(sweep_bg KILL 2>/dev/null)
expect_eq "$(sql "SELECT status FROM sessions WHERE id = $s")" running "SIGKILL: left running"
expect_eq "$(sql "SELECT count(*) FROM sweep_cells WHERE session_id = $s")" 2 \
	"the cells were stored with the first run"
report_all "$s"
expect_grep "status abandoned$" "$T/$s.md" "Markdown: abandoned (its pid is gone)"
expect_grep "^\*\*The sweep is abandoned:\*\*" "$T/$s.md"
expect_eq "$(jq -r .status "$T/$s.json")" abandoned "JSON: abandoned"
expect_eq "$(jq -r .format "$T/$s.json")" gcratchet-sweep "JSON: a sweep"
expect_grep "<strong>The sweep is abandoned:</strong>" "$T/$s.html" "HTML: abandoned"
# A complete sweep says it is complete, and nothing more.
expect_status 0 "$GCR" sweep --build "$B" --probes 01 --factors 1,2 --repeats 1 --size ci \
	--rounds 1 --warmup 0 --meters rusage,census
s=$(sql "SELECT MAX(id) FROM sessions")
report_all "$s"
expect_grep "status complete$" "$T/$s.md"
expect_no_grep "The sweep is" "$T/$s.md"
finish
