#!/bin/sh
# No probe outlives its session: a killed harness takes its launcher and the running probe
# with it, a daemon a probe leaves behind (even in a session of its own) is killed and the run
# says so, and a second Ctrl-C stops a hung probe at once, keeping every finished run.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_sleeper 02_leaky 03_stubborn
mpid='' launcher=''

# daemon NAME — shell lines that start `sleep 300` in a session of its own and wait (briefly)
# until it is there: a daemon still starting up would be in the probe's group, no escapee.
daemon() {
	cat <<LINES
setsid sh -c 'echo \$\$ >"$B/pid.$1"; exec sleep 300' &
i=0
while [ ! -s "$B/pid.$1" ] && [ \$i -lt 500 ]; do sleep 0.01; i=\$((i + 1)); done
LINES
}

# Sleeps with a child in its own process group and a daemon in a session of its own.
cat >"$B/01_sleeper" <<SCRIPT
#!/bin/sh
$(daemon sleeper-daemon)
sleep 300 &
echo \$! >"$B/pid.sleeper-child"
echo \$\$ >"$B/pid.sleeper"
wait
SCRIPT
# Leaves a daemon behind and exits 0: a probe that leaks processes.
cat >"$B/02_leaky" <<SCRIPT
#!/bin/sh
$(daemon leaky-daemon)
echo "checksum 0x00000000000000aa"
SCRIPT
# Fine the first time; every later run hangs.
cat >"$B/03_stubborn" <<SCRIPT
#!/bin/sh
if [ -e "$B/ran.stubborn" ]; then
	sleep 300 &
	echo \$! >"$B/pid.stubborn-child"
	echo \$\$ >"$B/pid.stubborn"
	wait
fi
: >"$B/ran.stubborn"
echo "checksum 0x00000000000000aa"
SCRIPT
seal_manifest "$B"

# alive PID — it runs (a zombie has ended; only its parent's wait is missing).
alive() {
	state=$(sed -n 's/.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}
gone() {
	for p in "$@"; do
		if alive "$p"; then return 1; fi
	done
}
pidof_file() { cat "$B/pid.$1" 2>/dev/null; }
# started NAME — the probe wrote its pid file, or measure ended without getting there.
started() { [ -s "$B/pid.$1" ] || ! alive "$mpid"; }
# Kills a process this test started (only if its command line still says so: pids are reused).
kill_ours() {
	[ -n "$1" ] && alive "$1" || return 0
	case "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" in
	*sleep* | *"$T"* | *gcratchet*) kill -KILL "$1" 2>/dev/null ;;
	esac
}
cleanup() {
	kill_ours "$mpid"
	kill_ours "$launcher"
	for f in "$B"/pid.*; do
		[ -r "$f" ] && kill_ours "$(cat "$f")"
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
M="--build $B --size ci --warmup 0 --meters rusage,census --timeout 0"
# A measure waiting for the host-wide bench lock may take a while to start its probe.
START_S=120

# 1. SIGKILL of measure while the probe sleeps with no time limit: within a few seconds no
# launcher, probe, child or daemon is left.
"$GCR" measure $M --probes 01 --rounds 1 >"$T/m1.out" 2>&1 &
mpid=$!
await $START_S started sleeper
expect_eq "$(pidof_file sleeper | grep -c .)" 1 "the sleeper started"
probe=$(pidof_file sleeper)
launcher=$(sed -n 's/.*) . \([0-9]*\) .*/\1/p' "/proc/$probe/stat" 2>/dev/null)
case "$(tr '\0' ' ' <"/proc/$launcher/cmdline" 2>/dev/null)" in
*gcratchet-launch*) pass ;;
*) fail "the sleeper's parent $launcher is not gcratchet-launch" ;;
esac
kill -KILL "$mpid"
wait "$mpid" 2>/dev/null
if await 10 gone "$launcher" "$probe" "$(pidof_file sleeper-child)" "$(pidof_file sleeper-daemon)"; then
	pass
else
	fail "left running 5 s after measure was killed:$(for p in "$launcher" "$probe" \
		"$(pidof_file sleeper-child)" "$(pidof_file sleeper-daemon)"; do
		alive "$p" && printf ' %s' "$(tr '\0' ' ' <"/proc/$p/cmdline")"
	done)"
fi
kill_ours "$launcher"

# 2. A probe that exits 0 leaving a daemon in a session of its own: the daemon is killed before
# measure ends, and the run (still ok) says so.
expect_status 0 "$GCR" measure $M --probes 02 --rounds 1
daemon=$(pidof_file leaky-daemon)
if [ -n "$daemon" ] && await 10 gone "$daemon"; then pass; else
	fail "the leaky probe's daemon ($daemon) outlived the session"
fi
expect_grep "warning: killed 1 leftover process$" "$T/out"
expect_eq "$(sql "SELECT status || ': ' || detail FROM runs WHERE session_id=(SELECT MAX(id) FROM sessions)")" \
	"ok: killed 1 leftover process" "the leaky run"

# 3. Two SIGINTs while a probe hangs with no time limit: measure kills it, stores it as
# interrupted (not as a probe failure), keeps the run before it, and exits 2 promptly.
"$GCR" measure $M --probes 03 --rounds 2 >"$T/m3.out" 2>&1 &
mpid=$!
await $START_S started stubborn
expect_eq "$(pidof_file stubborn | grep -c .)" 1 "the stubborn probe hung"
kill -INT "$mpid"
sleep 0.5
kill -INT "$mpid"
if await 10 gone "$mpid"; then
	wait "$mpid"
	expect_eq "$?" 2 "exit status of measure after two SIGINTs"
else
	fail "measure still running 10 s after the second SIGINT"
	kill_ours "$mpid"
	wait "$mpid"
fi
if await 10 gone "$(pidof_file stubborn)" "$(pidof_file stubborn-child)"; then pass; else
	fail "the hung probe outlived its session"
fi
expect_grep "interrupted +killed by a second interrupt" "$T/m3.out"
expect_grep "INTERRUPTED \(finished runs are kept\)" "$T/m3.out"
expect_eq "$(sql "SELECT status FROM sessions WHERE id=(SELECT MAX(id) FROM sessions)")" \
	interrupted "session status"
expect_eq "$(sql "SELECT group_concat(status, ',') FROM (SELECT status FROM runs WHERE session_id=(SELECT MAX(id) FROM sessions) ORDER BY seq)")" \
	"ok,interrupted" "runs stored"
finish
