#!/bin/sh
# What ab does with bad sides, wrong results, failing runs and an interrupted session:
# a side missing, empty or built for another ABI stops it before any run (exit 2); a checksum
# that differs, or FIX failing where BASE does not, is a correctness failure shown first
# (exit 1); a deterministic census counter that differs is listed; the progress line shows on
# a terminal only; an interrupted session keeps what it measured and pairs only complete
# rounds (exit 2).
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

# sbuild DIR NAME CHECKSUM ALLOC_BYTES MODE: a build of one scripted probe, 01_p.
sbuild() {
	mkdir -p "$1"
	printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"%s","collector":"scripted","collector_version":"1.0","git_commit":"none","probes":[{"name":"01_p","file":"01_p","sha256":"-"}]}\n' \
		"$2" >"$1/manifest.json"
	cat >"$1/01_p" <<SCRIPT
#!/bin/sh
n=\$(cat "$T/count" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"$T/count"
case "$5" in
crash) kill -SEGV \$\$ ;;
wobble) [ \$((n % 2)) -eq 0 ] && sum=0x00000000000000ff ;;
interrupt) [ "\$n" -eq 9 ] && kill -INT "\$(cat "$T/ab.pid")" ;;
hang2) [ "\$n" -eq 6 ] && { kill -INT "\$(cat "$T/ab.pid")"; sleep 0.5; kill -INT "\$(cat "$T/ab.pid")"; sleep 60; } ;;
esac
echo "checksum \${sum:-$3}"
[ -n "\${GCR_CENSUS_FD:-}" ] && printf '{"format":"gcr-census","version":1,"probe":"01_p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"%s","census":{"alloc_bytes":$4,"major_collections":2}}' "\$1" "\${sum:-$3}" >&3
exit 0
SCRIPT
	chmod +x "$1/01_p"
	seal_manifest "$1"
}
AA=0x00000000000000aa
BB=0x00000000000000bb
AB="$GCR ab --wide --rounds 6 --meters rusage,census --seed 55"

# ---- Bad sides: refused before anything runs --------------------------------------------
expect_status 2 $AB marksweep
expect_grep "expected two builds, BASE and FIX, got 1 argument" "$T/err"
expect_status 2 $AB marksweep epsilon gen
expect_grep "got 3 arguments" "$T/err"
expect_status 2 $AB marksweep "$T/nowhere"
expect_grep "FIX: $T/nowhere: no such build folder" "$T/err"
mkdir "$T/empty"
expect_status 2 $AB "$T/empty" marksweep
expect_grep "BASE: $T/empty: not a build folder" "$T/err"
cp -R "$TOP/build/collectors/epsilon" "$T/oldabi"
sed 's/"abi": [0-9]*/"abi": 0/' "$TOP/build/collectors/epsilon/manifest.json" >"$T/oldabi/manifest.json"
expect_status 2 $AB marksweep "$T/oldabi"
expect_grep "FIX: .*built for collector ABI 0, this harness speaks ABI 1" "$T/err"
expect_status 2 $AB marksweep epsilon --probes 99
expect_grep 'unknown probe "99"' "$T/err"
expect_eq "$("$GCR" list sessions 2>/dev/null | tail -n +2 | wc -l)" 0 "nothing ran"

# ---- Results that differ: a correctness failure, shown before any cost -----------------
sbuild "$T/a" base $AA 1000 ok
sbuild "$T/b" fix $BB 1000 ok
expect_status 1 $AB "$T/a" "$T/b"
expect_grep "^  01_p +CHECKSUM DIFFERS: BASE $AA, FIX $BB$" "$T/out"
expect_grep "^verdict: CORRECTNESS: FIX differs from BASE in its results" "$T/out"
first_identity=$(grep -n '^identity' "$T/out" | cut -d: -f1)
first_row=$(grep -n '^probe ' "$T/out" | cut -d: -f1)
expect_eq "$([ "${first_identity:-99}" -lt "${first_row:-0}" ] && echo yes)" yes "identity before the table"

sbuild "$T/w" wobbly $AA 1000 wobble
expect_status 1 $AB "$T/a" "$T/w"
expect_grep "^  01_p +CHECKSUM UNSTABLE" "$T/out"

# ---- FIX fails where BASE succeeds: correctness; BASE failing: cannot judge ------------
sbuild "$T/c" crashy $AA 1000 crash
expect_status 1 $AB "$T/a" "$T/c"
expect_grep "^  01_p +CHECKSUM MISSING: BASE $AA, FIX none$" "$T/out"
expect_grep "FIX FAILS: FIX: 6 of 6 runs crashed \(SIGSEGV\)" "$T/out"
expect_status 2 $AB "$T/c" "$T/a"
expect_grep "failed: BASE: 6 of 6 runs crashed" "$T/out"
expect_grep "^verdict: could not judge" "$T/out"

# ---- A deterministic census counter that differs is listed, and decides ------------------
sbuild "$T/d" hungrier $AA 1200 ok
expect_status 1 $AB "$T/a" "$T/d"
expect_grep "^  census: 2 deterministic counters compared exactly, 1 differ:$" "$T/out"
expect_grep "^    01_p +census.alloc_bytes +1000 -> 1200 \(\+200\)$" "$T/out"
expect_grep "^01_p +census.alloc_bytes +1000 +1200 +\+200 +\+20.00% +exact +- +exact \(6\) +- +- +WORSE$" "$T/out"
# In a GitHub Actions step the Markdown is appended to the step summary, run after run.
GITHUB_STEP_SUMMARY="$T/summary.md" $AB "$T/a" "$T/d" --md "$T/ad.md" >/dev/null 2>&1
GITHUB_STEP_SUMMARY="$T/summary.md" $AB "$T/a" "$T/d" >/dev/null 2>&1
expect_eq "$(grep -c '^### gcratchet ab: FIX is WORSE on' "$T/summary.md")" 2 "appended to \$GITHUB_STEP_SUMMARY twice"
expect_grep "^\| 01_p \| census.alloc_bytes \| 1000 \| 1200 \| \+200 \| \+20.00% \| exact \| - \| exact \(6\) \| - \| - \| \*\*WORSE\*\* \|$" "$T/ad.md"
# The same counters equal: a bookkeeping-only change shows none.
$AB "$T/a" "$T/a" >"$T/out" 2>&1
expect_grep "^  census: 2 deterministic counters compared exactly, all equal$" "$T/out"

# ---- The progress line: redrawn on a terminal, a few plain lines elsewhere (t173) ---------
if command -v script >/dev/null 2>&1; then
	script -qec "$GCR ab $T/a $T/a --rounds 2 --meters rusage,census >/dev/null" /dev/null \
		>"$T/tty" 2>&1
	expect_grep "$(printf '\r')\[  [0-9]/6\] round 2/2  01_p on base( \(2\))?  (~[0-9ms]+|<1s) left" "$T/tty"
	expect_grep "\[  1/6\] warm-up 1/1  01_p on base" "$T/tty"
else
	skip "t055: the progress line on a terminal: no script(1) to give ab one (util-linux)"
fi
$AB "$T/a" "$T/a" >"$T/out" 2>"$T/err"
expect_grep "^gcratchet ab: \[  1/[0-9]+\] warm-up 1/1  01_p on base( \(2\))?  (~[0-9ms]+|<1s) left$" "$T/err"
expect_no_grep "$(printf '\r')" "$T/err" "plain progress lines when stderr is not a terminal"
expect_no_grep "\[ *[0-9]+/[0-9]+\] (round|warm-up)" "$T/out" "no progress on stdout"

# ---- Interrupted in run 9 (of either arm): rounds 1-3 of 7 are complete and only they pair ---
rm -f "$T/count"
sbuild "$T/h" halting $AA 1000 interrupt
sbuild "$T/i" interrupting $AA 1000 interrupt
# The probe sends SIGINT (Ctrl-C) to gcratchet itself: exec keeps the pid it wrote.
sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/ab.pid" "$GCR" ab "$T/h" "$T/i" --rounds 7 \
	--meters rusage,census --seed 56 --json "$T/int.json" >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "an interrupted session cannot be judged"
expect_grep "INTERRUPTED \(finished runs are kept\)" "$T/err"
expect_grep "^gcratchet ab: session [0-9]+, size ci, rounds complete 1-3 of 7" "$T/out"
expect_grep "note: the session is interrupted: only complete rounds \(1-3 of 7\) are paired" "$T/out"
session=$("$GCR" export | jq -r .session.id)
expect_eq "$(exported "$session" .session.status)" interrupted "session row"
expect_eq "$(exported "$session" '.runs | length')" 9 "the 9 finished runs are stored"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["comparison"]
print(c["rounds_complete"], sorted(set(x["n"] for x in c["cells"])))' "$T/int.json" >"$T/int"
expect_grep "^\[1, 2, 3\] \[3\]$" "$T/int" "three complete rounds, three pairs per cell"
# The report of the stored session says the same later.
expect_status 2 "$GCR" report --session "$session"
expect_grep "rounds complete 1-3 of 7" "$T/out"

# ---- Two Ctrl-Cs while a probe hangs: the run is killed and stored as interrupted, which says
# nothing about FIX (no CORRECTNESS verdict, exit 2 as for any interrupted session) ----------
rm -f "$T/count"
sbuild "$T/j" hanging $AA 1000 hang2
sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/ab.pid" "$GCR" ab "$T/j" "$T/j" --rounds 7 \
	--meters rusage,census --seed 57 >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "a session stopped by two interrupts cannot be judged"
expect_no_grep "CORRECTNESS|FAILS" "$T/out" "an interrupted run is no failure of either build"
finish
