#!/bin/sh
# needs: asan
# Failure at the store's seam (issue 25, item 23), as SQLite tests itself: the engine that
# fails its Nth operation (harness/store_fault.c, compiled into build-asan/gcratchet only) in
# front of SQLite, and measure, push (SQLite to SQLite), baseline pin and export of a small
# session with each of their operations failing in turn, once. Every one either completes, or
# fails with exit 2 and a message naming the database and the fault; every database stays
# sound (PRAGMA integrity_check) and the sessions stored before are row for row as they were.
# Then the same with the fault lasting (a disk gone for good: N+) for measure. Runs under the
# sanitizers, so a failure path that leaks or misuses memory fails here too.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
GCRA=${GCR_ASAN:-$TOP/build-asan/gcratchet}
if [ ! -x "$GCRA" ]; then
	fail "$GCRA is missing: make asan"
	finish
fi
# The sanitizer build's own launcher and collectors are not needed: build/'s serve.
export GCR_BUILD_ROOT="$TOP/build"
B="$T/scripted"
make_script_build "$B" 01_steady
M="measure --build $B --size ci --rounds 1 --warmup 0 --meters rusage,census"
FLEET="$T/fleet.db"

# The store before any fault: session 1 measured and pushed, session 2 measured, not pushed.
# shellcheck disable=SC2086 # $M is words
expect_status 0 "$GCRA" $M
expect_status 0 "$GCRA" baseline pin --profile shared_ci --collector scripted --session 1
expect_status 0 "$GCRA" push --to "$FLEET" --session 1
# shellcheck disable=SC2086
expect_status 0 "$GCRA" $M
sqlite3 "$GCR_DB" ".backup '$T/pristine.db'"
sqlite3 "$FLEET" ".backup '$T/pristine-fleet.db'"

# rows DB SESSIONS: every row of those sessions, their runs and their samples, in order.
rows() {
	sqlite3 -batch "$1" "SELECT * FROM sessions WHERE id IN ($2) ORDER BY id;
		SELECT * FROM session_builds WHERE session_id IN ($2) ORDER BY 1, 2;
		SELECT * FROM runs WHERE session_id IN ($2) ORDER BY id;
		SELECT x.* FROM samples x JOIN runs r ON r.id = x.run_id
		WHERE r.session_id IN ($2) ORDER BY 1, 2;
		SELECT count(*) FROM builds; SELECT count(*) FROM hosts"
}
rows "$T/pristine.db" 1,2 >"$T/before"
rows "$T/pristine-fleet.db" 1 >"$T/before-fleet"
restore() {
	rm -f "$GCR_DB" "$GCR_DB-wal" "$GCR_DB-shm" "$FLEET" "$FLEET-wal" "$FLEET-shm" "$T/x.json" \
		"$T/pin.json"
	cp "$T/pristine.db" "$GCR_DB"
	cp "$T/pristine-fleet.db" "$FLEET"
}
sound() { # DB
	[ "$(sqlite3 "$1" 'PRAGMA integrity_check')" = ok ]
}

# faults VERB FAULT-SUFFIX ARGS...: the verb over every N; what it must leave is checked by
# the verb's own case below. One line per N that went wrong; one pass per N that did not.
faults() {
	verb=$1 suffix=$2
	shift 2
	restore
	GCR_TEST_STORE_FAULT=0 GCR_TEST_STORE_OPS="$T/ops" "$GCRA" "$@" >"$T/out" 2>"$T/err"
	total=$(cat "$T/ops" 2>/dev/null || echo 0)
	if [ "$total" -lt 5 ]; then
		fail "$verb: only '$total' store operations counted"
		return
	fi
	n=1 completed=0 failed=0
	while [ "$n" -le "$total" ]; do
		restore
		GCR_TEST_STORE_FAULT="$n$suffix" "$GCRA" "$@" >"$T/out" 2>"$T/err"
		got=$? why=
		case "$got" in
		0) completed=$((completed + 1)) ;;
		2)
			failed=$((failed + 1))
			grep -Eq "^gcratchet ${verb%% *}: .*(results|fleet)\.db.*: injected fault: operation $n \(" "$T/err" ||
				why="exit 2 without a message naming the database and the fault"
			;;
		*) why="exit $got" ;;
		esac
		[ -z "$why" ] && ! sound "$GCR_DB" && why="results.db fails integrity_check"
		[ -z "$why" ] && ! sound "$FLEET" && why="fleet.db fails integrity_check"
		[ -z "$why" ] && [ "$(rows "$GCR_DB" 1,2)" != "$(cat "$T/before")" ] &&
			why="sessions 1 and 2 changed in results.db"
		[ -z "$why" ] && [ "$(rows "$FLEET" 1)" != "$(cat "$T/before-fleet")" ] &&
			why="session 1 changed in fleet.db"
		[ -z "$why" ] && why=$(after "$verb" "$got")
		if [ -n "$why" ]; then
			fail "$verb with operation $n$suffix of $total failing: $why"
			sed 's/^/  stderr: /' "$T/err" | tail -n 6 >&2
		else
			pass
		fi
		n=$((n + 1))
	done
	# A fault that never took effect would make every N a pass.
	[ "$failed" -gt 0 ] || fail "$verb: no injected fault made it fail"
	echo "$verb ($suffix): $total operations: $completed completed, $failed failed cleanly"
}

# after VERB STATUS: what the verb left, beyond the earlier sessions; empty when right.
after() {
	case "$1:$2" in
	measure:0)
		[ "$(sql "SELECT status || ' ' || (SELECT count(*) FROM runs WHERE session_id = s.id)
			FROM sessions s WHERE id = 3")" = "complete 1" ] || echo "completed, but session 3 is not whole"
		;;
	measure:2) ;;
	push:0)
		uuid=$(sql "SELECT uuid FROM sessions WHERE id = 2")
		[ "$(sqlite3 "$FLEET" "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id
			WHERE s.uuid = '$uuid'")" = "$(sql "SELECT count(*) FROM runs WHERE session_id = 2")" ] ||
			echo "completed, but session 2 is not whole in the fleet"
		;;
	push:2)
		[ "$(sqlite3 "$FLEET" "SELECT count(*) FROM sessions")" = 1 ] ||
			echo "failed, but left part of session 2 in the fleet"
		;;
	"baseline pin:0")
		"$GCR" baseline validate "$T/pin.json" >/dev/null 2>&1 || echo "completed, but pin.json does not validate"
		;;
	"baseline pin:2" | export:2)
		[ -e "$T/pin.json" ] || [ -e "$T/x.json" ] && echo "failed, but wrote its output"
		ls "$T" | grep -q '\.tmp\.' && echo "failed, but left a temporary file"
		;;
	export:0)
		jq -e '.runs | length == 1' "$T/x.json" >/dev/null 2>&1 || echo "completed, but x.json is not the session"
		;;
	esac
}

# shellcheck disable=SC2086
faults measure "" $M
faults push "" push --to "$FLEET" --session 2
faults "baseline pin" "" baseline pin --profile shared_ci --collector scripted --session 1 \
	--out "$T/pin.json"
faults export "" export --session 1 --out "$T/x.json"
# A store gone for good from the Nth operation on: the session ends as it can, says why.
# shellcheck disable=SC2086
faults measure + $M
finish
