#!/bin/sh
# Every file writer (export --out; report --html/--md/--json and --history --out; ab --md/--json/
# --html; check --md/--html; minheap --out; baseline pin/update --out; manifest) leaves what its path is as it
# was (issue 25, items 1 and 2): a character device (a copy of /dev/null made here, never the
# host's) and a FIFO are written through, not replaced by a regular file; a link stays a link
# and the file it names gets the output; "-" is stdout. A regular file is replaced atomically,
# keeps its mode and owner, and the temporary file is created exclusively: links planted at
# the temporary names of the next pids are never followed.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session latest
W="$T/w"
mkdir -p "$W"

# What each writer writes, to the path in $1, and the start of what it writes (a fixed string).
HIST="--history --collector scripted --probe 01_steady --metric census.alloc_bytes"
AB="ab $B $B --size ci --probes 01_steady --rounds 1 --warmup 0 --meters rusage,census"
writers="export report-html report-md report-json history ab-md ab-json ab-html check-md check-html minheap pin"
# WRAP (empty, or "timeout N") bounds a writer that could block on a FIFO.
WRAP=
write() { # writer path
	case $1 in
	export) $WRAP "$GCR" export --session 1 --out "$2" ;;
	report-html) $WRAP "$GCR" report --session 1 --html "$2" ;;
	report-md) $WRAP "$GCR" report --session 1 --md "$2" ;;
	report-json) $WRAP "$GCR" report --session 1 --json "$2" ;;
	history) $WRAP "$GCR" report $HIST --out "$2" ;;
	ab-md) $WRAP "$GCR" $AB --md "$2" ;;
	ab-json) $WRAP "$GCR" $AB --json "$2" ;;
	ab-html) $WRAP "$GCR" $AB --html "$2" ;;
	check-md) $WRAP "$GCR" check --profile shared_ci --collector scripted --session 1 --md "$2" ;;
	check-html) $WRAP "$GCR" check --profile shared_ci --collector scripted --session 1 --html "$2" ;;
	minheap) $WRAP "$GCR" minheap --collector marksweep --probes 01 --size ci --out "$2" ;;
	pin) $WRAP "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 --out "$2" ;;
	esac
}
head_of() { # writer: a string its output starts with
	case $1 in
	*html | history) echo '<!DOCTYPE html>' ;;
	*md) echo '#' ;;
	*) echo '{' ;;
	esac
}
# starts FILE WRITER — FILE holds a whole output of WRITER.
starts() {
	h=$(head_of "$2")
	if [ -s "$1" ] && [ "$(head -c ${#h} "$1")" = "$h" ]; then pass; else
		fail "$2: $1 does not hold its output (starts: $(head -c 40 "$1" | tr '\n' ' '))"
	fi
}

for w in $writers; do
	# A character device: still that device afterwards (the host's /dev/null became a 0644
	# regular file this way).
	mknod "$W/dev" c 1 3
	write "$w" "$W/dev" >"$T/out" 2>"$T/err" || { fail "$w to a character device: exit $?"; cat "$T/err" >&2; }
	[ -c "$W/dev" ] && [ "$(stat -c %t:%T "$W/dev")" = 1:3 ] && pass ||
		fail "$w replaced a character device: $(ls -l "$W/dev")"
	rm -f "$W/dev"

	# A FIFO: its reader gets the output, and it is still a FIFO.
	mkfifo "$W/fifo"
	timeout 30 cat "$W/fifo" >"$W/got" &
	reader=$!
	# A writer that opened the FIFO to read it would wait for ever: timeout ends it, failed.
	WRAP="timeout 60"
	write "$w" "$W/fifo" >"$T/out" 2>"$T/err" || { fail "$w to a FIFO: exit $?"; cat "$T/err" >&2; }
	WRAP=
	# Today's code never opens the FIFO: its reader would wait for ever, so it is ended.
	[ -p "$W/fifo" ] || kill "$reader" 2>/dev/null
	wait "$reader"
	[ -p "$W/fifo" ] && pass || fail "$w replaced a FIFO: $(ls -l "$W/fifo")"
	starts "$W/got" "$w"
	rm -f "$W/fifo" "$W/got"

	# A link, relative, into another folder: it stays the same link, and the file it names
	# holds the output.
	mkdir -p "$W/real"
	echo old >"$W/real/file"
	ln -s real/file "$W/link"
	write "$w" "$W/link" >"$T/out" 2>"$T/err" || { fail "$w to a link: exit $?"; cat "$T/err" >&2; }
	[ -L "$W/link" ] && [ "$(readlink "$W/link")" = real/file ] && pass ||
		fail "$w replaced a link: $(ls -l "$W/link")"
	starts "$W/real/file" "$w"
	expect_eq "$(ls "$W/real" | tr '\n' ' ')" "file " "$w: files beside the link's target"
	rm -rf "$W/link" "$W/real"

	# "-": stdout, and no file named "-".
	write "$w" - >"$T/stdout" 2>"$T/err" || { fail "$w to -: exit $?"; cat "$T/err" >&2; }
	[ -e ./- ] && fail "$w wrote a file named -" || pass
	grep -qF "$(head_of "$w")" "$T/stdout" && pass || fail "$w -: nothing of its output on stdout"
	rm -f ./-
done

# The same output through a link as to a plain file (export and report are deterministic).
expect_status 0 "$GCR" export --session 1 --out "$T/plain.json"
ln -s plain2.json "$W/l.json"
expect_status 0 "$GCR" export --session 1 --out "$W/l.json"
expect_eq "$(cmp "$T/plain.json" "$W/plain2.json" && echo same)" same "a dangling link: its target made"
[ -L "$W/l.json" ] && pass || fail "the dangling link was replaced"
# A chain of links ends at one file.
ln -s l.json "$W/l2.json"
rm "$W/plain2.json"
expect_status 0 "$GCR" report --session 1 --json "$W/l2.json"
[ -L "$W/l2.json" ] && [ -L "$W/l.json" ] && [ -f "$W/plain2.json" ] && pass ||
	fail "a chain of links: $(ls -l "$W")"
cp "$T/baselines/shared_ci/scripted.json" "$W/pinned.json"
ln -s pinned.json "$W/pin-link.json"
expect_status 0 "$GCR" baseline update --profile shared_ci --collector scripted --session 1 --out "$W/pin-link.json"
[ -L "$W/pin-link.json" ] && [ -f "$W/pinned.json" ] && pass || fail "baseline update replaced its link"
# manifest DIR writes DIR/manifest.json through a link there too.
cp -R "$B" "$W/mb"
mv "$W/mb/manifest.json" "$W/mb-manifest.json"
ln -s ../mb-manifest.json "$W/mb/manifest.json"
expect_status 0 "$GCR" manifest "$W/mb" --collector scripted --protocol census --force
[ -L "$W/mb/manifest.json" ] && pass || fail "manifest replaced a link to the manifest"
expect_grep '"sha256"' "$W/mb-manifest.json"
rm -rf "$W"/*

# A folder is refused, by name.
mkdir "$W/dir"
expect_status 2 "$GCR" export --session 1 --out "$W/dir"
expect_grep "$W/dir: is a folder" "$T/err"
rmdir "$W/dir"

# A regular file keeps its permission bits and, written by root, its owner.
echo old >"$W/mode.json"
chmod 640 "$W/mode.json"
expect_status 0 "$GCR" export --session 1 --out "$W/mode.json"
expect_eq "$(stat -c %a "$W/mode.json")" 640 "the mode of a replaced file"
starts "$W/mode.json" export
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$W/mode.json"
	expect_status 0 "$GCR" export --session 1 --out "$W/mode.json"
	expect_eq "$(stat -c %U "$W/mode.json")" nobody "the owner of a file root replaced"
fi
# A new file: 0644 less the umask.
(umask 027 && "$GCR" export --session 1 --out "$W/new.json" 2>/dev/null)
expect_eq "$(stat -c %a "$W/new.json")" 640 "a new file under umask 027"
rm -f "$W"/*

# Item 2: links planted at PATH.tmp.PID for the writer's pid and the next ones point at a
# file that must not change. The writer's pid is known here: exec keeps the shell's.
echo "precious" >"$T/victim"
sh -c 'for i in 0 1 2 3 4 5 6 7; do ln -s "$2" "$1.tmp.$(($$ + i))"; done; exec "$3" export --session 1 --out "$1"' \
	sh "$W/out.json" "$T/victim" "$GCR" >"$T/out" 2>"$T/err"
expect_eq "$?" 0 "export beside planted links"
expect_eq "$(cat "$T/victim")" precious "the file the planted links name"
[ -f "$W/out.json" ] && [ ! -L "$W/out.json" ] && pass || fail "out.json: $(ls -l "$W/out.json")"
starts "$W/out.json" export
expect_eq "$(find "$W" -name 'out.json.tmp.*' ! -type l | wc -l)" 0 "temporary files left beside out.json"
# The planted links are another's names: left as they are, even for a pid that is gone.
expect_eq "$(find "$W" -name 'out.json.tmp.*' -type l | wc -l)" 8 "planted links left alone"
rm -f "$W"/*

# A link of another user's in a sticky folder anyone may write (as /tmp is) is not followed:
# the kernel's protected_symlinks rule, which resolving links by hand must keep.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 1777 "$W/shared"
	echo "root's" >"$T/roots"
	ln -s "$T/roots" "$W/shared/report.html"
	chown -h nobody "$W/shared/report.html"
	expect_status 2 "$GCR" report --session 1 --html "$W/shared/report.html"
	expect_grep "report.html: a link of another user's .* not followed" "$T/err"
	expect_eq "$(cat "$T/roots")" "root's" "the file another user's link names"
	[ -L "$W/shared/report.html" ] && pass || fail "the refused link was replaced"
	# Our own link there is followed.
	rm "$W/shared/report.html"
	ln -s "$T/roots" "$W/shared/report.html"
	expect_status 0 "$GCR" report --session 1 --html "$W/shared/report.html"
	starts "$T/roots" report-html
fi
finish
