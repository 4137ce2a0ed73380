#!/bin/sh
# What a manifest or a probe says reaches the terminal as text, never as control (issue 25,
# item 9): a build folder is anyone's, and its name, collector, version and commit, and a
# probe's stderr, may hold escape sequences (ESC, BEL, the C1 CSI) or bytes that are not
# UTF-8. measure, minheap, ab, list and every error message print them escaped; so do list
# sessions, history and list probes what a store or a folder's name holds (issue 41, defect 7),
# and the CSV export defuses a cell a spreadsheet would run.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export LC_ALL=C
ESC=$(printf '\033')
BEL=$(printf '\007')
CSI=$(printf '\302\233')
BAD="$ESC|$BEL|$CSI|$(printf '\377')"
B="$T/evil"
BUILD_NAME='evil\u001b[31mred\u0007\u009b' make_script_build "$B" 01_steady 02_noisy
jq -c '.collector = "col\u001b]0;title\u0007" | .collector_version = "1\u001b[2J"
	| .git_commit = "c\u001b[H"' "$B/manifest.json" >"$B/m" && mv "$B/m" "$B/manifest.json"
# A probe that fails saying something with escapes and a byte that is not UTF-8.
cat >"$B/02_noisy" <<'EOF'
#!/bin/sh
printf 'oops \033[2J\007 \377 cleared\n' >&2
exit 3
EOF
seal_manifest "$B"

expect_status 2 "$GCR" measure --build "$B" --rounds 1 --warmup 0 --meters rusage,census
expect_grep "^build 1: evil.*\[31mred" "$T/out" "the build line names the build"
expect_grep "02_noisy .* failed .*oops .*\[2J" "$T/out" "the probe's words are shown"
expect_no_grep "$BAD" "$T/out" "a control character or a stray byte from the manifest or probe in measure's output"
expect_no_grep "$BAD" "$T/err" "the same on stderr"

expect_status 2 "$GCR" measure --build "$B" --build "$B" --probes 01
expect_grep "build .*evil is named twice" "$T/err"
expect_no_grep "$BAD" "$T/err" "in an error message"

expect_status 2 "$GCR" minheap --build "$B" --probes 02 --repeats 1
expect_grep "^evil.*\[31mred.* 02_noisy .*oops" "$T/out" "the minheap row"
expect_no_grep "$BAD" "$T/out" "in minheap's table"

expect_status 0 "$GCR" ab "$B" "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census
expect_grep "BASE evil.*\[31mred.* vs FIX evil" "$T/err" "ab names the arms"
expect_no_grep "$BAD" "$T/err" "in ab's lines"

mkdir -p "$T/root/collectors"
cp -r "$B" "$T/root/collectors/evil"
GCR_BUILD_ROOT="$T/root" expect_status 0 "$GCR" list collectors
expect_grep "^evil.*\[31mred.* col.*\]0;title" "$T/out" "list names the build"
expect_no_grep "$BAD" "$T/out" "in list collectors"

# A cell a spreadsheet would run is text in the CSV export (OWASP): a quote in front.
F="$T/formula"
BUILD_NAME='=HYPERLINK(\"http://evil.example/\",\"click\")' make_script_build "$F" 01_steady
seal_manifest "$F"
expect_status 0 "$GCR" measure --build "$F" --probes 01 --rounds 1 --warmup 0 --meters census
expect_status 0 "$GCR" export --format csv
expect_grep ",\"'=HYPERLINK\(\"\"http://evil" "$T/out" "the build's name is quoted text"
expect_no_grep ',"?=HYPERLINK' "$T/out" "a cell starting with = in the CSV"
expect_grep ",census\.alloc_bytes,bytes,1000$" "$T/out" "numbers are as they were"

# What the store holds is as foreign (issue 41, defect 7): a database may come from another
# host, by push or a copy. list sessions, history and list probes print the build's name, a
# host's and a probe's escaped, each on its line.
sql "UPDATE hosts SET hostname = 'far' || char(27) || '[5m' || char(10) || 'away'"
expect_status 0 "$GCR" list sessions
expect_grep "evil.*\[31mred.* far.*\[5m.*away$" "$T/out" "list sessions names the build and the host"
expect_no_grep "$BAD" "$T/out" "in list sessions"
expect_eq "$(wc -l <"$T/out")" "$(($(sql "SELECT count(*) FROM sessions") + 1))" \
	"list sessions: a newline in a host's name starts no line"
expect_status 0 "$GCR" history --collector "col$ESC]0;title$BEL" --probe 01 --metric census.alloc_bytes
expect_grep "far.*\[5m.*evil.*\[31mred" "$T/out" "history names the host and the build"
expect_no_grep "$BAD" "$T/out" "in history's table"
# A probe's name is checked when its manifest loads; the folder a build is in is anyone's.
cp -r "$B" "$T/root/collectors/ev${ESC}[2Jil"
GCR_BUILD_ROOT="$T/root" expect_status 0 "$GCR" list probes
expect_grep "^01_steady .*ev.+\[2Jil" "$T/out" "list probes names the build's folder"
expect_no_grep "$BAD" "$T/out" "in list probes"
finish
