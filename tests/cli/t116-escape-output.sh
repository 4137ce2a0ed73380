#!/bin/sh
# What a manifest or a probe says reaches the terminal as text, never as control (issue 25,
# item 9): a build folder is anyone's, and its name, collector, version and commit, and a
# probe's stderr, may hold escape sequences (ESC, BEL, the C1 CSI) or bytes that are not
# UTF-8. measure, minheap, ab, list and every error message print them escaped.
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
finish
