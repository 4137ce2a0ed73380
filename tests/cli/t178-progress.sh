#!/bin/sh
# needs: valgrind
# Issue 29 item 3: progress goes to stderr, never stdout: a status line redrawn in place on a
# terminal, plain lines (the first, the last, at most one every 5 s) elsewhere and under
# NO_COLOR or TERM=dumb. The first Ctrl-C says at once what it keeps and that a second stops the
# running probe, and the time left is no longer shown; the second stops it. Valgrind's own
# messages (cachegrind's "warning: L3 cache found ..." on this kind of host) are never stored
# or shown as a probe's stderr.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"

B="$T/scripted"
make_script_build "$B" 01_fast 02_slow 03_vghang
# Every run of 02_slow takes a second: time to interrupt it mid-run.
echo 1 >"$B/sleep.02_slow"
# Ok when timed; under valgrind (its preload is in the environment) it hangs.
cat >"$B/03_vghang" <<SCRIPT
#!/bin/sh
case "\${LD_PRELOAD:-}" in
*vgpreload*) echo "probe: about to hang" >&2; sleep 300 & echo \$! >"$B/pid.vghang"; wait ;;
esac
echo "checksum 0x00000000000000aa"
SCRIPT
seal_manifest "$B"
M="--build $B --size ci --warmup 0 --timeout 0"

# ---- Not a terminal: stdout has the runs and the result, stderr a few progress lines ------
expect_status 0 "$GCR" measure $M --probes 01_fast --rounds 40 --meters rusage,census
expect_grep "^session 1: 40 runs, 0 failed" "$T/out"
expect_no_grep " left|$(printf '\r')|$(printf '\033')" "$T/out" "no progress on stdout"
expect_no_grep "^gcratchet measure: \[" "$T/out" "no status line on stdout"
expect_grep "^gcratchet measure: \[  1/40\] round 1/40  01_fast on scripted  (~[0-9ms]+|<1s) left$" "$T/err"
expect_grep "^gcratchet measure: \[ 40/40\] round 40/40  01_fast on scripted$" "$T/err"
lines=$(grep -c "^gcratchet measure: \[" "$T/err")
[ "$lines" -ge 2 ] && [ "$lines" -lt 20 ] && pass ||
	fail "40 fast runs gave $lines progress lines, not a few (rate-limited)"
expect_no_grep "$(printf '\r')|$(printf '\033')" "$T/err" "plain lines off a terminal"

# ---- A terminal (script(1) gives a pty): the line is redrawn, unless NO_COLOR or TERM=dumb -
if command -v script >/dev/null 2>&1; then
	run="$GCR measure $M --probes 01_fast --rounds 3 --meters rusage,census >$T/tty.out"
	script -qec "$run" /dev/null >"$T/tty" 2>&1
	expect_grep "$(printf '\r')\[  2/3\] round 2/3  01_fast on scripted  (~[0-9ms]+|<1s) left$(printf '\033')\[K" "$T/tty"
	expect_no_grep "^gcratchet measure: \[" "$T/tty" "a terminal gets the redrawn line"
	expect_no_grep " left|$(printf '\033')" "$T/tty.out" "stdout to a file stays clean"
	NO_COLOR=1 script -qec "$run" /dev/null >"$T/tty" 2>&1
	expect_grep "^gcratchet measure: \[  1/3\] round 1/3" "$T/tty"
	expect_no_grep "$(printf '\033')" "$T/tty" "NO_COLOR: no control sequences"
	TERM=dumb script -qec "$run" /dev/null >"$T/tty" 2>&1
	expect_grep "^gcratchet measure: \[  3/3\] round 3/3" "$T/tty"
	expect_no_grep "$(printf '\033')" "$T/tty" "TERM=dumb: no control sequences"
fi

alive() { kill -0 "$1" 2>/dev/null; }
gone() { ! alive "$1"; }
runs_started() { [ "$(grep -c '^\[' "$T/m.out" 2>/dev/null)" -ge "$1" ] || gone "$mpid"; }
last_session() { sql "SELECT MAX(id) FROM sessions"; }

# ---- One Ctrl-C: said at once; the running run finishes and is kept with those before it -----
"$GCR" measure $M --probes 02_slow --rounds 20 --meters rusage,census >"$T/m.out" 2>"$T/m.err" &
mpid=$!
await 120 runs_started 2
kill -INT "$mpid"
await 10 grep -q "interrupted" "$T/m.err"
expect_grep "^gcratchet measure: interrupted: finishing the running probe, which is stored too; the [0-9]+ runs? stored so far (is|are) kept; press Ctrl-C again to stop it now$" "$T/m.err"
if await 10 gone "$mpid"; then
	wait "$mpid"
	expect_eq "$?" 2 "exit status of an interrupted measure"
else
	fail "measure still running 10 s after one Ctrl-C"
	kill -KILL "$mpid"
fi
said=$(sed -n 's/.* the \([0-9]*\) runs\{0,1\} stored so far.*/\1/p' "$T/m.err")
stored=$(sql "SELECT COUNT(*) FROM runs WHERE session_id=$(last_session) AND status='ok'")
# The run going when the signal came is stored too (none, if it came between two runs).
[ "$stored" -eq "$said" ] || [ "$stored" -eq $((said + 1)) ] && pass ||
	fail "the notice said $said runs were stored, then $stored ok runs are kept"
expect_eq "$(sql "SELECT status FROM sessions WHERE id=$(last_session)")" interrupted "session status"
expect_grep "INTERRUPTED \(finished runs are kept\)" "$T/m.out"
sed -n '/interrupted: finishing/,$p' "$T/m.err" >"$T/after"
expect_no_grep " left" "$T/after" "no time left is shown once interrupted"

# ---- Valgrind's chatter is its own: never a probe's stderr -------------------------------
expect_status 0 "$GCR" measure $M --probes 01_fast --rounds 1 --meters valgrind,cachesim
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE session_id=$(last_session) AND kind='valgrind' AND status='ok'")" 1 "the valgrind run"
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE session_id=$(last_session) AND (stderr_tail LIKE '%warning:%' OR stderr_tail LIKE '%==%==%' OR stderr_tail LIKE '%--%--%')")" 0 \
	"no valgrind message in a stored stderr"

# ---- Two Ctrl-Cs while a probe hangs under valgrind: killed, stored as interrupted, and what
# valgrind said is not shown as the probe's stderr ------------------------------------------
"$GCR" measure $M --probes 03_vghang --rounds 1 --meters valgrind,cachesim >"$T/m.out" 2>"$T/m.err" &
mpid=$!
await 120 test -s "$B/pid.vghang" -o ! -d "/proc/$mpid"
kill -INT "$mpid"
await 10 grep -q "interrupted" "$T/m.err"
kill -INT "$mpid"
if await 10 gone "$mpid"; then
	wait "$mpid"
	expect_eq "$?" 2 "exit status after two Ctrl-Cs"
else
	fail "measure still running 10 s after the second Ctrl-C"
	kill -KILL "$mpid"
fi
hung=$(cat "$B/pid.vghang" 2>/dev/null)
[ -n "$hung" ] && alive "$hung" && kill -KILL "$hung"
expect_grep "^gcratchet measure: interrupted: finishing the running probe, which is stored too; the 1 run stored so far is kept; press Ctrl-C again" "$T/m.err"
expect_grep "^gcratchet measure: interrupted again: stopping the running probe now \(stored as interrupted\)" "$T/m.err"
expect_eq "$(sql "SELECT group_concat(kind || ':' || status, ',') FROM (SELECT kind, status FROM runs WHERE session_id=$(last_session) ORDER BY seq)")" \
	"timed:ok,valgrind:interrupted" "runs stored"
expect_grep "valgrind +03_vghang .* interrupted +killed by a second interrupt" "$T/m.out"
expect_no_grep "warning: L3|==[0-9]+==|--[0-9]+--" "$T/m.out" "valgrind's messages are not the probe's stderr"
expect_eq "$(sql "SELECT stderr_tail FROM runs WHERE session_id=$(last_session) AND kind='valgrind'")" \
	"probe: about to hang" "the probe's stderr is what it printed"
finish
