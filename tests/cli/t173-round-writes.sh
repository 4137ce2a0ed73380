#!/bin/sh
# A session writes its runs together, not one by one (issue 29, item 10; docs/storage.md): a
# measure killed with SIGKILL during a long run keeps every run before it that took 100 ms or
# more (each is written at once, with those kept before it) and every short run that ended
# more than a second before it began; the killed session reads as abandoned. One interrupted
# (SIGINT twice) keeps every run it finished and the run in progress, and so does one stopped
# by one SIGINT half way through a round; a failing run is written as failed like any other.
. "$(dirname "$0")/lib.sh"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
# Rounds 1 and 2 take 0.15 s a run, so each is written when it ends; 01's third run (round 3)
# sleeps a minute, 02's takes a few milliseconds.
printf '0.15\n0.15\n60\n' >"$B/sleep.01_steady"
printf '0.15\n0.15\n0\n' >"$B/sleep.02_other"

await_turn() { # n: until 01 has started its nth run
	i=0
	while [ "$(cat "$B/turn.01_steady" 2>/dev/null)" != "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

"$GCR" measure --build "$B" --size ci --rounds 4 --warmup 0 --meters rusage,census \
	--timeout 0 >"$T/killed.out" 2>&1 &
mpid=$!
await_turn 3
kill -KILL "$mpid"
wait "$mpid" 2>/dev/null
pkill -KILL -f "$B/01_steady" 2>/dev/null
expect_eq "$(sql "SELECT count(*) FROM runs WHERE round <= 2 AND status = 'ok'")" 4 \
	"the runs of the two finished rounds (100 ms or more each) are stored"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE round = 3 AND probe = '01_steady'")" 0 \
	"the run killed with the session is not"
expect_status 0 "$GCR" list sessions
expect_grep "^1 .* abandoned " "$T/out" "the killed session reads as abandoned"

# Two SIGINTs during round 3's long run: what finished is written, that run as interrupted.
rm -f "$B/turn.01_steady"
"$GCR" measure --build "$B" --size ci --rounds 4 --warmup 0 --meters rusage,census \
	--timeout 0 >"$T/int.out" 2>&1 &
mpid=$!
await_turn 3
sleep 0.3
kill -INT "$mpid"
sleep 0.3
kill -INT "$mpid"
wait "$mpid"
expect_eq "$?" 2 "exit status after two SIGINTs"
expect_eq "$(sql "SELECT status FROM sessions WHERE id = 2")" interrupted "the session's status"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE session_id = 2 AND round <= 2 AND status = 'ok'")" 4 \
	"the finished rounds are stored"
expect_eq "$(sql "SELECT status FROM runs WHERE session_id = 2 AND round = 3 AND probe = '01_steady'")" \
	interrupted "the run in progress, as interrupted"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE session_id = 2 AND round = 4")" 0 \
	"no run of a round not begun"

# A run that fails is stored as failed, among the rest of its round.
rm -f "$B/sleep.01_steady" "$B/turn.01_steady" "$B/sleep.02_other" "$B/turn.02_other"
echo fail >"$B/mode.02_other"
expect_status 2 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 1 --meters rusage,census
expect_eq "$(sql "SELECT group_concat(probe || ':' || status, ',') FROM (SELECT probe, status FROM runs WHERE session_id = 3 ORDER BY probe, seq)")" \
	"01_steady:ok,01_steady:ok,01_steady:ok,01_steady:ok,02_other:failed,02_other:failed,02_other:failed,02_other:failed" \
	"every run of every round, in order"
expect_eq "$(sql "SELECT count(DISTINCT seq) FROM runs WHERE session_id = 3")" 8 "each with its own seq"

# One SIGINT half way through round 2 (02's second run sends it): the session stops after
# that run, and every run it reports is stored, those of round 2 before the stop too.
B2="$T/three"
make_script_build "$B2" 01_a 02_b 03_c
sed -i "2i while [ ! -s '$T/m.pid' ]; do sleep 0.01; done; k=\$(cat '$T/b.turn' 2>/dev/null || echo 0); echo \$((k + 1)) >'$T/b.turn'; [ \"\$k\" = 1 ] && kill -INT \$(cat '$T/m.pid')" "$B2/02_b"
seal_manifest "$B2"
"$GCR" measure --build "$B2" --size ci --rounds 3 --warmup 0 --meters rusage,census \
	--seed 7 >"$T/one.out" 2>&1 &
echo $! >"$T/m.pid"
wait "$(cat "$T/m.pid")"
expect_eq "$?" 2 "exit status after one SIGINT"
said=$(sed -n 's/^session 4: \([0-9]*\) runs.*INTERRUPTED.*/\1/p' "$T/one.out")
expect_eq "$(sql "SELECT count(*) FROM runs WHERE session_id = 4")" "${said:-?}" \
	"every run the session reports is stored"
expect_eq "$(sql "SELECT status FROM runs WHERE session_id = 4 AND round = 2 AND probe = '02_b'")" ok \
	"the run that was running when the SIGINT came"
expect_eq "$(sql "SELECT count(*) > 3 FROM runs WHERE session_id = 4")" 1 "runs of round 2 are among them"

# Short runs are written once the oldest has waited a second: killed during a long run after
# 59 runs of 30 ms (at least 1.77 s, however fast the harness is around them), a session keeps every run that ended more than a second before the long
# one began (a 0.5 s margin for a busy host), and not necessarily the last second's.
B3="$T/ticks"
make_script_build "$B3" 01_tick
sed -i '/^case "\$mode" in/i date +%s.%N >>"'"$B3"'/ends"' "$B3/01_tick"
seal_manifest "$B3"
{ i=0; while [ $i -lt 59 ]; do echo 0.03; i=$((i + 1)); done; echo 60; } >"$B3/sleep.01_tick"
"$GCR" measure --build "$B3" --size ci --rounds 80 --warmup 0 --meters rusage,census \
	--timeout 0 >"$T/ticks.out" 2>&1 &
mpid=$!
i=0
while [ "$(cat "$B3/turn.01_tick" 2>/dev/null)" != 60 ] && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
hang=$(date +%s.%N)
kill -KILL "$mpid"
wait "$mpid" 2>/dev/null
pkill -KILL -f "$B3/01_tick" 2>/dev/null
stored=$(sql "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.command LIKE '%ticks%'")
old=$(awk -v h="$hang" '$1 < h - 1.5 { n++ } END { print n + 0 }' "$B3/ends")
expect_eq "$(wc -l <"$B3/ends" | tr -d ' ')" 59 "59 short runs ended before the long one"
if [ "$old" -ge 1 ] && [ "$stored" -ge "$old" ]; then pass; else
	fail "runs that ended more than a second before the kill are stored: $stored stored, $old ended 1.5 s before it"
fi
finish
