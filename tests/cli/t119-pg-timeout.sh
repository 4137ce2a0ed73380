#!/bin/sh
# needs: pg
# A PostgreSQL server that stops answering hangs nothing (issue 25, item 13). The test server's
# postmaster and backends are stopped (SIGSTOP) under a measure that is storing into it: the
# measure gives up within its statement timeout (set short in the URL's options) with a clear
# error, exit 2, and the bench lock is free again while the server is still stopped. A verb
# that connects to the stopped server gives up after connect_timeout. The bounds below are
# generous guards against a hang, not measured times.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
pg_start
B="$T/scripted"
make_script_build "$B" 01_steady
printf '1\n' >"$B/sleep.01_steady"
URL="$(pg_url stall)&options=-c%20statement_timeout%3D1s"
server_pids() {
	pm=$(head -n 1 "$PG_DIR/data/postmaster.pid")
	echo "$pm $(pgrep -P "$pm" | tr '\n' ' ')"
}
stopped=
stop_server() {
	stopped=$(server_pids)
	# shellcheck disable=SC2086
	kill -STOP $stopped
}
cont_server() {
	# shellcheck disable=SC2086
	[ -n "$stopped" ] && kill -CONT $stopped
	stopped=
}
# Whatever happens, the server goes on again, so that pg_stop can stop it.
trap 'cont_server; pg_stop; rm -rf "$T"' EXIT

# wait_gone PID SECONDS — 0 once PID has exited, 1 if it still runs after SECONDS.
wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ "$i" -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

"$GCR" measure --build "$B" --probes 01 --rounds 6 --warmup 0 --meters rusage,census \
	--db "$URL" >"$T/m.out" 2>"$T/m.err" &
measure=$!
i=0
while [ "$(pg_sql stall "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -lt 1 ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
stop_server
if wait_gone "$measure" 30; then
	pass
	wait "$measure"
	expect_eq "$?" 2 "measure's exit status with its store stopped"
else
	fail "measure still runs 30 s after its server stopped answering"
fi
expect_grep "storing (a run|runs): the server did not answer within 3 s \(statement_timeout 1000 ms" "$T/m.err" \
	"the error says which timeout expired"
expect_grep "runs stored so far are kept" "$T/m.err"
# The lock is free while the server is still stopped.
if flock -n "$GCR_LOCK_FILE" true; then pass; else fail "the bench lock is still held"; fi

# A verb that connects to the stopped server: connect_timeout, then a clear error.
expect_status 2 timeout 30 "$GCR" list sessions --db "$(pg_url stall)&connect_timeout=2"
expect_grep "cannot connect: the server did not answer within connect_timeout \(2 s" "$T/err"
expect_status 2 timeout 30 "$GCR" pull --from "$(pg_url stall)&connect_timeout=2" --db "$T/home.db"
expect_grep "cannot connect: the server did not answer within connect_timeout" "$T/err"
cont_server

# Once it answers again, what was stored is there, and the session reads as abandoned here.
expect_status 0 "$GCR" list sessions --db "$URL"
expect_grep "abandoned" "$T/out" "the session the store stopped under"
expect_eq "$([ "$(pg_sql stall "SELECT count(*) FROM runs")" -ge 1 ] && echo kept)" kept "the runs stored before"
finish
