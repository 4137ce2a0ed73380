#!/bin/sh
# A Ctrl-C after the last run keeps the session complete (issue 43, item 8): every planned run
# stored is a complete session, which check judges, and stderr says the interrupt came late.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_held
# Run k holds (waits for $B/go) when $B/hold.k exists, after saying so in $B/held.
cat >"$B/01_held" <<SCRIPT
#!/bin/sh
k=\$(( \$(cat "$B/turn" 2>/dev/null || echo 0) + 1 ))
echo \$k >"$B/turn"
if [ -e "$B/hold.\$k" ]; then
	echo \$k >"$B/held"
	while [ ! -e "$B/go" ]; do sleep 0.05; done
fi
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_held","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000,"major_collections":2}}' "\$1" >&3
SCRIPT
seal_manifest "$B"
M="--build $B --probes 01 --size ci --warmup 0 --rounds 2 --meters rusage,census --timeout 0"
mpid=''
cleanup() {
	[ -n "$mpid" ] && kill -KILL "$mpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# held K — run K is waiting for $B/go, or measure ended without getting there.
held() { [ "$(cat "$B/held" 2>/dev/null)" = "$1" ] || ! kill -0 "$mpid" 2>/dev/null; }

# interrupt_at K [COMMAND...] — runs COMMAND (default: measure 2 rounds), one SIGINT while run
# K runs, then lets it finish; its output in $T/mK.out and .err, its exit status in $status.
interrupt_at() {
	k=$1
	shift
	rm -f "$B/turn" "$B/held" "$B/hold".* "$B/go"
	: >"$B/hold.$k"
	if [ $# -eq 0 ]; then set -- "$GCR" measure $M; fi
	"$@" >"$T/m$k.out" 2>"$T/m$k.err" &
	mpid=$!
	if await 120 held "$k"; then pass; else fail "run $k did not start within 120 s"; fi
	kill -INT "$mpid"
	# The notice is written at once by the handler: the interrupt was heard before the run ends.
	await 10 grep -q "interrupted: finishing the running probe" "$T/m$k.err"
	: >"$B/go"
	if await 60 sh -c "! kill -0 $mpid 2>/dev/null"; then
		wait "$mpid"
		status=$?
	else
		fail "$1 still running 60 s after run $k was let go"
		status=-1
	fi
	mpid=''
}
last_session() { sql "SELECT status FROM sessions WHERE id=(SELECT MAX(id) FROM sessions)"; }
last_runs() {
	sql "SELECT group_concat(status, ',') FROM (SELECT status FROM runs WHERE session_id=(SELECT MAX(id) FROM sessions) ORDER BY seq)"
}

# 1. Ctrl-C during the last run: both runs are stored, so the session is complete, measure
# exits 0, and stderr says why the interrupt changed nothing.
interrupt_at 2
expect_eq "$status" 0 "exit status of measure interrupted during its last run"
expect_eq "$(last_session)" complete "session status after a Ctrl-C during the last run"
expect_eq "$(last_runs)" "ok,ok" "runs stored"
expect_grep "the interrupt came after the last run: all 2 runs are stored, and session [0-9]+ is complete" "$T/m2.err"
expect_no_grep "INTERRUPTED" "$T/m2.out"
# A reading verb agrees: the session is listed complete.
expect_status 0 "$GCR" list sessions
expect_grep "complete" "$T/out"

# 2. Ctrl-C during the first of two runs: the second never runs, the session is interrupted.
interrupt_at 1
expect_eq "$status" 2 "exit status of measure interrupted before its last run"
expect_eq "$(last_session)" interrupted "session status after a Ctrl-C with a run to go"
expect_eq "$(last_runs)" "ok" "runs stored"
expect_grep "INTERRUPTED \(finished runs are kept\)" "$T/m1.out"
expect_no_grep "after the last run" "$T/m1.err"

# 3. A verb that measures on after a session stops there: pin's first of three sub-sessions
# (a warm-up and 5 rounds) interrupted during its last run is complete, and no second begins.
sessions=$(sql "SELECT COUNT(*) FROM sessions")
interrupt_at 6 "$GCR" baseline pin --profile shared_ci --build "$B" --meters rusage,census \
	--out "$T/pin.json"
expect_eq "$status" 2 "exit status of pin interrupted during its first sub-session's last run"
expect_grep "interrupted after sub-session 1 of 3 of --vary-env: nothing pinned" "$T/m6.err"
expect_eq "$(sql "SELECT COUNT(*) FROM sessions")" "$((sessions + 1))" "sessions pin began"
expect_eq "$(last_session)" complete "the sub-session's status"
if [ -e "$T/pin.json" ]; then fail "pin wrote a baseline after the interrupt"; else pass; fi
finish
