#!/bin/sh
# The bench lock under hostile use (issue 25, items 7 to 10): a symbolic link, a hard link or a
# FIFO planted at the lock's path is refused and the file behind it left as it was; another
# user's lock file is shared, never truncated; a lock file removed while held does not let a
# second session in; a holder's note with control characters reaches the terminal escaped; and
# ratchet holds the lock from its measure to the end of its minimum-heap search.
. "$(dirname "$0")/lib.sh"
B="$T/scripted"
make_script_build "$B" 01_steady
L="$T/bench.lock"
export GCR_LOCK_FILE="$L"
m() { "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census "$@"; }
ESC=$(printf '\033')
BEL=$(printf '\007')

# A symbolic link to a file someone cares about: refused, the file untouched.
printf 'precious\nlines\n' >"$T/victim"
ln -s "$T/victim" "$L"
expect_status 2 m --lock-timeout 1
expect_grep "bench.lock: the bench lock is a symbolic link: refusing to follow it" "$T/err"
expect_eq "$(cat "$T/victim")" "$(printf 'precious\nlines')" "the link's target is untouched"
rm -f "$L"

# A hard link (a user can make one where fs.protected_hardlinks is 0): refused likewise.
ln "$T/victim" "$L"
expect_status 2 m --lock-timeout 1
expect_grep "the bench lock has 2 links .*refusing to write through it" "$T/err"
expect_eq "$(cat "$T/victim")" "$(printf 'precious\nlines')" "the linked file is untouched"
rm -f "$L"

# A FIFO: refused at once, not waited on.
mkfifo "$L"
expect_status 2 timeout 20 "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --lock-timeout 1
expect_grep "the bench lock is not a regular file" "$T/err"
rm -f "$L"
# A folder, the same.
mkdir "$L"
expect_status 2 m --lock-timeout 1
expect_grep "the bench lock is not a regular file" "$T/err"
rmdir "$L"

# Another user's lock file in a sticky folder is the lock all the same: it is shared (t074),
# and written over at its start, never truncated.
if [ "$(id -u)" -eq 0 ]; then
	S="$T/sticky"
	mkdir -m 1777 "$S"
	# A first line longer than the note the session writes over it.
	printf 'a note of theirs%100s\nand a second line they keep\n' "" >"$S/bench.lock"
	chmod 666 "$S/bench.lock"
	chown 65534:65534 "$S/bench.lock"
	export GCR_LOCK_FILE="$S/bench.lock"
	expect_status 0 m
	export GCR_LOCK_FILE="$L"
	expect_grep "^and a second line they keep$" "$S/bench.lock" "another user's lock file keeps its content"
	expect_eq "$(stat -c %u "$S/bench.lock")" 65534 "and its owner"
fi

# The lock file removed while a session holds it. The holder hangs in its run until --timeout.
H="$T/hang"
make_script_build "$H" 01_steady
echo hang >"$H/mode.01_steady"
"$GCR" measure --build "$H" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--timeout 6 --db "$T/holder.db" >"$T/holder.out" 2>&1 &
holder=$!
await_lock "$holder"
# A session already waiting on the file when it goes...
printf '3\n' >"$B/sleep.01_steady"
"$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--lock-timeout 30 --db "$T/waiter.db" >"$T/waiter.out" 2>&1 &
waiter=$!
if await 60 grep -q "waiting for the bench lock" "$T/waiter.out"; then pass; else
	fail "the second session did not wait for the bench lock"
fi
rm -f "$L"
# ... and one that comes after: it still finds the lock held, and measures nothing.
expect_status 2 m --lock-timeout 1 --db "$T/second.db"
expect_grep "bench lock .* is held by pid $holder \(its lock file was removed while it held it\)" "$T/err"
expect_eq "$(sqlite3 "$T/second.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" 0 \
	"the second session measured nothing beside the first"
# The waiter takes the lock on the file the path names when its turn comes, so a third
# session sees it held.
wait "$holder"
await_lock "$waiter" # its note in the file the path names
if flock -n "$L" true 2>/dev/null; then
	fail "the lock file at the path is not locked while the waiter measures"
else pass; fi
wait "$waiter"
expect_eq "$?" 0 "the waiter measured"
rm -f "$B/sleep.01_steady" "$B/turn.01_steady"

# The holder's note is anyone's to write: its control characters reach the terminal escaped.
rm -f "$L"
printf 'pid 1 \033]0;owned\007\033[2J since then\n' >"$L"
flock "$L" sleep 3 &
locker=$!
sleep 0.5
expect_status 2 m --lock-timeout 1
expect_grep "is held by pid 1 .*\]0;owned.*\[2J since then" "$T/err" "the note is shown"
expect_no_grep "$ESC|$BEL" "$T/err" "a control character of the note on the terminal"
wait "$locker"

# ratchet holds the lock from its measure through its minimum-heap search: a session waiting
# for it (flock here) gets it only once the search is stored.
rm -f "$L"
BL="$T/epsilon.json"
jq '.cells |= map(select(.probe == "01_nursery_churn"))
	| .probes |= with_entries(select(.key == "01_nursery_churn"))
	| if has("functions") then .functions |= with_entries(select(.key == "01_nursery_churn")) else . end
	| .overrides |= map(select(.probe == "01_nursery_churn"))' \
	"$TOP/baselines/shared_ci/epsilon.json" >"$BL"
"$GCR" ratchet --collector epsilon --baseline "$BL" --db "$T/ratchet.db" >"$T/ratchet.out" 2>&1 &
ratchet=$!
i=0
while flock -n "$L" true 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
flock "$L" sh -c "sqlite3 -cmd '.timeout 10000' '$T/ratchet.db' 'SELECT count(*) FROM minheap' >'$T/between'"
wait "$ratchet"
expect_eq "$?" 0 "ratchet ok"
expect_eq "$(cat "$T/between")" 1 "minimum heaps stored when another session got the lock"
finish
