#!/bin/sh
# A session writes its runs a round at a time (issue 29, item 10; docs/storage.md): a
# measure killed with SIGKILL in its third round keeps every run of the first two, which read
# as one abandoned session; one interrupted (SIGINT twice) keeps every run it finished, the
# run of the round in progress too, and so does one stopped by one SIGINT half way through a
# round; a failing run is written as failed like any other.
. "$(dirname "$0")/lib.sh"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
# 01's third run (round 3) sleeps a minute; the others take a few milliseconds.
printf '0\n0\n60\n' >"$B/sleep.01_steady"

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
	"the runs of the two finished rounds are stored"
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
rm -f "$B/sleep.01_steady" "$B/turn.01_steady"
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
finish
