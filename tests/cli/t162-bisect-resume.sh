#!/bin/sh
# needs: valgrind
# Issue 28: a bisect is stored step by step. Stopped after two steps (a kill while the third
# commit builds), --resume goes on from there: it builds and measures only what it had not,
# and names the same commit. A finished bisect resumed prints its answer again and measures
# nothing; a bisect still running elsewhere is not taken over; one whose process is gone is.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/cli/bisect-repo.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BISECT_CACHE="$T/cache"

bisect_repo "$T/repo" || {
	fail "cannot make the repository"
	finish
}
C6=$(bisect_hash "$T/repo" 6)
# The build command counts its builds, and the fifth (the ends, two steps, then this one)
# waits while $T/hold exists, saying so in $T/held.
cat >"$T/build.sh" <<EOF2
#!/bin/sh
n=\$(cat "$T/builds" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"$T/builds"
echo "\$GCR_BISECT_COMMIT" >>"$T/built"
if [ -f "$T/hold" ] && [ \$n -eq 5 ]; then
	touch "$T/held"
	while [ -f "$T/hold" ]; do sleep 0.1; done
fi
exec make -s -C "\$GCR_BISECT_CHECKOUT" collector COLLECTOR_DIR="\$PWD/tinyms" OPT=-O0 \\
	OUT="\$GCR_BISECT_OUT" PROBE_SRCS="\$GCR_BISECT_CHECKOUT/probes/15_request_latency.c"
EOF2
touch "$T/hold"
"$GCR" bisect --build-cmd "sh $T/build.sh" --repo "$T/repo" --good "$(bisect_hash "$T/repo" 1)" \
	--bad "$(bisect_hash "$T/repo" 13)" --probe 15 --metric census.minor_collections \
	>"$T/first.out" 2>"$T/first.err" &
pid=$!
i=0
while [ ! -f "$T/held" ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect_eq "$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = 1")" 4 "the ends and two steps stored when it is stopped"
sessions=$(sql "SELECT count(*) FROM sessions")
kill -TERM $pid
wait $pid
expect_eq "$?" 2 "a bisect stopped exits 2"
rm -f "$T/hold"
expect_grep "^gcratchet bisect: bisect 1 interrupted after 2 steps \(what was measured is stored\); continue with: gcratchet bisect --resume 1$" "$T/first.err"
expect_eq "$(sql "SELECT status FROM bisects WHERE id = 1")" interrupted "stored as interrupted"
expect_eq "$(ls "$T/cache" | grep -c -e worktree -e '\.tmp\.')" 0 "the stopped build left no worktree or half a folder"
expect_eq "$(git -C "$T/repo" worktree list | wc -l)" 1 "no worktree is left registered"

# Resumed: the stored steps are shown, not measured again; the stopped build is made again.
expect_status 0 "$GCR" bisect --resume
cp "$T/out" "$T/resume.out"
expect_grep "^bisect 1: resuming: 4 steps stored$" "$T/resume.out"
expect_eq "$(grep -c ' (stored)  ' "$T/resume.out")" 4 "the four stored steps shown as stored"
expect_grep "^$C6 is the first bad commit$" "$T/resume.out"
expect_eq "$(sql "SELECT count(*) FROM bisect_steps WHERE bisect_id = 1 AND role = 'step'")" 4 "four steps in all"
expect_eq "$(sql "SELECT count(*) FROM sessions")" $((sessions + 2)) "only the two new steps measured"
expect_eq "$(cat "$T/builds")" 7 "after five builds, only the stopped commit and the last one built"
expect_eq "$(sort "$T/built" | uniq -d | wc -l)" 1 "one commit built twice: the one stopped mid-build"
expect_eq "$(sql "SELECT status || ' ' || first_bad FROM bisects WHERE id = 1")" "found $C6" "stored as found"

# A finished bisect: its answer again, from the store, nothing measured or built.
expect_status 0 "$GCR" bisect --resume 1 --json "$T/again.json"
expect_grep "^bisect 1: finished: 6 steps stored$" "$T/out"
expect_grep "^$C6 is the first bad commit$" "$T/out"
expect_eq "$(sql "SELECT count(*) FROM sessions")" $((sessions + 2)) "nothing measured again"
expect_eq "$(jq -r '.first_bad.commit' "$T/again.json")" "$C6" "the JSON of a finished bisect"

# Running elsewhere (a live pid) is refused; a process that is gone left it to be taken over.
sql "UPDATE bisects SET status = 'running', pid = $$ WHERE id = 1"
expect_status 2 "$GCR" bisect --resume 1
expect_grep "^gcratchet bisect: bisect 1 is still running \(pid $$\): let it finish or stop it first$" "$T/err"
sleep 0 &
gone=$!
wait $gone
sql "UPDATE bisects SET pid = $gone WHERE id = 1"
expect_status 0 "$GCR" bisect --resume
expect_grep "^bisect 1: resuming: 6 steps stored$" "$T/out"
expect_grep "^$C6 is the first bad commit$" "$T/out"

# What is searched cannot change on resume; with none to resume, it says so.
expect_status 2 "$GCR" bisect --resume --metric valgrind.ir
expect_grep "^gcratchet bisect: --resume continues a bisect as it was started: --metric cannot change it" "$T/err"
expect_status 2 "$GCR" bisect --resume --db "$T/empty.db"
expect_grep "holds no bisect to resume \(none running or interrupted\)$" "$T/err"
expect_status 2 "$GCR" bisect --resume 7
expect_grep "no bisect 7" "$T/err"
finish
