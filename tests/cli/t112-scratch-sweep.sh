#!/bin/sh
# needs: jvm
# Scratch folders (/tmp/gcratchet.XXXXXX) of sessions that are gone are removed by the next
# session (issue 25, item 5; harness/scratch.h): a killed session's, with what a crashed JVM
# or a probe left in it, and one a probe left a file in once its session has ended; never a
# running session's, another user's, one without an owner file, a link, or anything a link in
# a folder leads to. The JVM wrappers write a crash's report on stderr, not into the working
# directory (jvm/build.sh).
# Past its first check the test's sessions use a scratch root of their own (GCR_SCRATCH_ROOT):
# in /tmp, any other gcratchet session on the host (another test run, a user's measure) sweeps
# the folders of gone sessions this test plants and looks at, and once removed the killed
# session's folder before the test looked (issue 41). A session without the variable neither
# makes nor sweeps folders there.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
B="$T/scripted"
P=01_sweep112
make_script_build "$B" "$P"
# With $B/leave, the probe leaves a file in its working directory, the scratch folder; it
# writes that folder's path in $B/cwd.
sed -i "2i [ -f '$B/leave' ] && echo left >left-t112.txt; pwd >'$B/cwd'" "$B/$P"
seal_manifest "$B"
FAKES=
trap 'rm -rf "$T" $FAKES' EXIT
m() { expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census "$@"; }
holding() { # the scratch folders under $R holding $1, one a line
	for f in "$R"/gcratchet.*/"$1"; do [ -e "$f" ] || [ -L "$f" ] && dirname "$f"; done
}

# A session that ends leaves nothing, in /tmp when GCR_SCRATCH_ROOT is not set. (Another
# session can only remove what this one left: the check cannot fail for it.)
unset GCR_SCRATCH_ROOT
m
d=$(cat "$B/cwd")
expect_eq "$(dirname "$d")" /tmp "the scratch root without GCR_SCRATCH_ROOT"
[ -n "$d" ] && [ ! -e "$d" ] && pass || fail "the scratch folder $d is left by a session that ended"

# The rest in a root of the test's own: no other session on the host sweeps it.
R=$T/scratch
mkdir "$R"
export GCR_SCRATCH_ROOT="$R"
expect_status 2 env GCR_SCRATCH_ROOT=scratch "$GCR" measure --build "$B" --size ci --rounds 1 \
	--warmup 0 --meters rusage,census
expect_grep "GCR_SCRATCH_ROOT: must be an absolute path, got \"scratch\"" "$T/err"
m
expect_no_grep "not passed to the probes: .*GCR_SCRATCH_ROOT" "$T/err" "GCR_SCRATCH_ROOT is gcratchet's, not a knob"
expect_eq "$(dirname "$(cat "$B/cwd")")" "$R" "the scratch root GCR_SCRATCH_ROOT names"
expect_eq "$(ls -A "$R")" "" "scratch folders left in GCR_SCRATCH_ROOT by a session that ended"

# A killed session's folder stays while it runs, whatever other sessions do, and goes with the
# next session after it is gone: with a crashed JVM's report, a probe's files and folders in
# it, and links out of it that are not followed.
echo 30 >"$B/sleep.$P"
"$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census >"$T/bg" 2>&1 &
mpid=$!
await 10 test -f "$B/turn.$P" # until the probe sleeps: it counts its turn first
d=$(holding "$P")
[ -n "$d" ] && [ -d "$d" ] && pass || fail "the running session's scratch folder did not appear in $R"
rm "$B/sleep.$P"
expect_status 0 env GCR_LOCK_FILE="$T/other.lock" "$GCR" measure --build "$B" --size ci --rounds 1 \
	--warmup 0 --meters rusage,census --db "$T/other.db"
[ -d "$d" ] && pass || fail "another session removed a running session's scratch folder"
kill -9 "$mpid"
wait "$mpid" 2>/dev/null
[ -d "$d" ] || { fail "the killed session's folder is not there to sweep"; finish; }
echo "# A fatal error has been detected by the Java Runtime Environment" >"$d/hs_err_pid4242.log"
mkdir -p "$d/sub/deeper" "$T/outside"
echo probe >"$d/sub/deeper/file"
echo keep >"$T/outside/file"
ln -s "$T/outside" "$d/dirlink"
ln -s "$T/outside/file" "$d/filelink"
ln -s "$T/outside" "$d/sub/deeper/link"
# A session in /tmp sweeps /tmp only: the folder stays for a session of its root.
expect_status 0 env -u GCR_SCRATCH_ROOT GCR_LOCK_FILE="$T/other.lock" "$GCR" measure --build "$B" \
	--size ci --rounds 1 --warmup 0 --meters rusage,census --db "$T/other.db"
[ -d "$d" ] && pass || fail "a session without GCR_SCRATCH_ROOT swept $R"
m
[ ! -e "$d" ] && pass || fail "the killed session's scratch folder is still there: $(ls -A "$d" | tr '\n' ' ')"
expect_eq "$(cat "$T/outside/file" 2>&1)" keep "the file a link in the folder named"
expect_eq "$(ls "$T/outside")" file "the folder links in it named"

# A probe that leaves a file keeps its folder until its session is gone; then it goes too.
touch "$B/leave"
m
d=$(holding left-t112.txt)
[ -n "$d" ] && [ -f "$d/.gcratchet-owner" ] && pass || fail "no scratch folder kept with what the probe left"
rm "$B/leave"
m
[ -n "$d" ] && [ ! -e "$d" ] && pass || fail "the folder with what the probe left stays after its session"

# What the sweep must leave, and what it must take, planted in the root.
fake() { # VAR: a folder named as a scratch folder, its path in $VAR (and in FAKES, removed at exit)
	_f=$(mktemp -d "$R/gcratchet.XXXXXX")
	FAKES="$FAKES $_f"
	eval "$1=\$_f"
}
owner() { # folder pid start boot
	printf 'gcratchet-scratch 1\npid %s\nstart %s\nboot %s\n' "$2" "$3" "$4" >"$1/.gcratchet-owner"
	echo probe >"$1/left"
}
boot=$(cat /proc/sys/kernel/random/boot_id)
sh -c 'exit 0' &
dead=$!
wait "$dead"
# This shell's start, field 22 of /proc/PID/stat (the 20th after the command's parenthesis).
me=$(sed 's/.*) //' "/proc/$$/stat" | cut -d' ' -f20)
fake gone && owner "$gone" "$dead" 1 "$boot"
fake reused && owner "$reused" $$ $((me + 1)) "$boot"
fake reboot && owner "$reboot" $$ "$me" 00000000-0000-0000-0000-000000000000
fake live && owner "$live" $$ "$me" "$boot"
fake noowner && echo probe >"$noowner/left"
fake others && owner "$others" "$dead" 1 "$boot"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then chown -R nobody "$others"; fi
# A link named as a scratch folder, to a folder whose owner file names a dead process.
mkdir "$T/victim"
owner "$T/victim" "$dead" 1 "$boot"
link=$(mktemp -u "$R/gcratchet.XXXXXX")
ln -s "$T/victim" "$link"
FAKES="$FAKES $link"
# An owner file that is a link to one naming a dead process.
fake linked
printf 'gcratchet-scratch 1\npid %s\nstart 1\nboot %s\n' "$dead" "$boot" >"$T/owner-elsewhere"
ln -s "$T/owner-elsewhere" "$linked/.gcratchet-owner"
m
for f in gone reused reboot; do
	eval "d=\$$f"
	[ ! -e "$d" ] && pass || fail "the sweep left $d ($f)"
done
for f in live noowner linked; do
	eval "d=\$$f"
	[ -f "$d/left" ] || [ -L "$d/.gcratchet-owner" ] && pass || fail "the sweep removed $d ($f)"
done
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	[ -f "$others/left" ] && pass || fail "the sweep removed another user's folder"
fi
[ -L "$link" ] && [ -f "$T/victim/left" ] && [ -f "$T/victim/.gcratchet-owner" ] && pass ||
	fail "the sweep followed a link named as a scratch folder"

# A JVM that crashes writes its report on stderr and leaves no hs_err file where it ran.
if command -v javac >/dev/null 2>&1; then
	expect_status 0 sh "$TOP/jvm/build.sh" "$T/jb" serial
	mkdir "$T/cwd"
	(cd "$T/cwd" && exec "$T/jb/collectors/jvm-serial/12_large_live_set" large) >"$T/jout" 2>"$T/jerr" &
	jpid=$!
	sleep 1.5
	kill -SEGV "$jpid"
	wait "$jpid"
	expect_eq "$?" 134 "the crashed JVM's status (SIGABRT)"
	expect_eq "$(ls -A "$T/cwd")" "" "files a crashed JVM left in its working directory"
	expect_grep "^# A fatal error has been detected by the Java Runtime Environment" "$T/jerr"
	expect_grep "^---------------  S U M M A R Y ------------" "$T/jerr"
else
	fail "javac is missing: scripts/setup.sh --test installs OpenJDK 17"
fi
finish
