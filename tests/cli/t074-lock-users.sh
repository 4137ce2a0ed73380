#!/bin/sh
# The bench lock is one file for every user of the host: a session run by another user after
# root must take it, not exit 2 with "Permission denied" because root's umask made it 0644.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	skip "t074: needs root and setpriv to act as another user"
	finish
fi
chmod 755 "$T"
S="$T/shared"
mkdir -m 1777 "$S"
B="$T/scripted"
make_script_build "$B" 01_steady
chmod -R a+rX "$B"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$@"; }

# Root measures first, with the restrictive umask a root shell usually has.
export GCR_LOCK_FILE="$S/bench.lock"
(umask 077 && "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$S/root.db" >"$T/root.out" 2>&1)
expect_eq "$?" 0 "root measures"
expect_eq "$(stat -c %a "$S/bench.lock")" 666 "the lock root created is open to every user"

expect_status 0 as_nobody "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$S/nobody.db" --lock-timeout 5
expect_no_grep "Permission denied" "$T/err"

# A lock file left 0644 by an older gcratchet still serialises sessions: another user locks
# it read-only instead of failing.
rm -f "$S/bench.lock"
(umask 022 && : >"$S/bench.lock")
chmod 644 "$S/bench.lock"
expect_status 0 as_nobody "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$S/nobody2.db" --lock-timeout 5
# ... and it still excludes: while root holds it, nobody waits and gives up.
echo hang >"$B/mode.01_steady"
"$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--timeout 4 --db "$S/root2.db" >"$T/hold.out" 2>&1 &
holder=$!
await_lock "$holder"
expect_status 2 as_nobody "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$S/nobody3.db" --lock-timeout 1
expect_grep "bench lock .* is held by" "$T/err"
wait "$holder"
finish
