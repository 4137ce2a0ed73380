#!/bin/sh
# needs: valgrind
# --jobs N (issue 15, item 6): a session's valgrind runs go up to N at once, since their counts
# do not depend on load, while timed runs stay one at a time and alone. A --jobs 2 session
# stores the same runs in the same order with the same counts as a --jobs 1 session; no timed
# run overlaps a valgrind run; --jobs is refused outside 1..64 naming itself. And (item 5) the
# progress lines carry an estimate of the time left on a terminal only.
. "$(dirname "$0")/lib.sh"

# ---- Refusals: parsed once, for every verb that takes the session options ------------------
for bad in 0 x 65 -1 ""; do
	expect_status 2 "$GCR" measure --collector marksweep --probes 01 --jobs "$bad"
	expect_grep "^gcratchet measure: --jobs must be (an integer from )?1 to 64 valgrind runs at once, got " "$T/err"
done
expect_status 2 "$GCR" ab marksweep marksweep --jobs 0
expect_grep "^gcratchet ab: --jobs must be 1 to 64 valgrind runs at once, got 0$" "$T/err"
expect_status 2 "$GCR" sweep --collector marksweep --factors 2 --jobs x
expect_grep "^gcratchet sweep: --jobs must be an integer from 1 to 64 valgrind runs at once, got \"x\"$" "$T/err"
expect_eq "$(sql 'SELECT COUNT(*) FROM sessions' 2>/dev/null || echo 0)" 0 "nothing ran"

# ---- The same counts, the same order ------------------------------------------------------
M="--collector marksweep --probes 01,02,05 --size ci --rounds 1 --warmup 0 --seed 7"
M="$M --meters rusage,census,cachesim"
expect_status 0 "$GCR" measure $M --jobs 1
cp "$T/out" "$T/out1"
expect_grep "^        \(one valgrind run per probe and build, after the timed rounds; up to 1 at once: --jobs 1\)$" "$T/out1"
"$GCR" export >"$T/s1.json"
# The second under a terminal (script(1) gives it one): the estimate is on the status line
# redrawn there (stderr), after each run's own line.
if command -v script >/dev/null 2>&1; then
	script -qec "$GCR measure $M --jobs 2" /dev/null >"$T/out2" 2>&1
	cr=$(printf '\r')
	expect_grep "^\[  1/6\] round 1/1 .* ok " "$T/out2"
	expect_grep "$cr\[  1/6\] round 1/1  [0-9a-z_]+ on marksweep  (~[0-9ms]+|<1s) left" "$T/out2"
	expect_grep "$cr\[  5/6\] valgrind  [0-9a-z_]+ on marksweep  (~[0-9ms]+|<1s) left" "$T/out2"
	# The last run has nothing left to estimate.
	expect_no_grep "\[  6/6\][^$cr]* left" "$T/out2"
else
	expect_status 0 "$GCR" measure $M --jobs 2
	cp "$T/out" "$T/out2"
fi
expect_grep "up to 2 at once: --jobs 2\)" "$T/out2"
"$GCR" export >"$T/s2.json"
# Stdout never has an estimate (progress is on stderr): logs read as they always did.
expect_no_grep " left" "$T/out1" "no estimate on stdout"
expect_eq "$(jq -r .session.facts.jobs "$T/s1.json") $(jq -r .session.facts.jobs "$T/s2.json")" \
	"1 2" "the session records its jobs"

# Every run, in seq order: kind, probe and status. The same seed gives the same schedule, and
# valgrind runs that went at once are stored in it as they would be one at a time.
runs() { jq -r '.runs | sort_by(.seq)[] | "\(.seq) \(.kind) \(.probe) \(.status)"' "$1"; }
runs "$T/s1.json" >"$T/runs1"
runs "$T/s2.json" >"$T/runs2"
expect_eq "$(wc -l <"$T/runs1") $(grep -c ' valgrind .* ok$' "$T/runs1")" "6 3" "three timed and three valgrind runs"
if cmp -s "$T/runs1" "$T/runs2"; then pass; else
	fail "--jobs 2 stored other runs, or in another order, than --jobs 1"
	diff "$T/runs1" "$T/runs2" >&2
fi

# The counts. Ir exactly equal: a valgrind run's count does not depend on what runs beside it
# (the 13-instruction jitter there once was came from the probe parsing /proc/self/status,
# which a run without a census no longer reads: docs/meters.md). The cache simulation to 10
# ppm, as two --jobs 1 sessions are (t077). A valgrind run that shared a file, a scratch
# folder or an environment with another would be off by far more, or fail.
counts() { jq -r '.runs[] | select(.kind == "valgrind") | .probe as $p
	| .samples | to_entries[] | "\($p)/\(.key) \(.value)"' "$1" | sort; }
counts "$T/s1.json" >"$T/c1"
counts "$T/s2.json" >"$T/c2"
expect_eq "$(wc -l <"$T/c1") $(wc -l <"$T/c2")" "15 15" "Ir and four cache counts for each of three probes"
far=$(join "$T/c1" "$T/c2" | awk '{ d = $2 - $3; if (d < 0) d = -d
	if ($1 ~ /valgrind\.ir$/ ? d != 0 : d > 1e-5 * $2 + 2) print }')
if [ -z "$far" ]; then pass; else fail "counts apart between --jobs 1 and --jobs 2: $far"; fi
echo "valgrind counts, --jobs 1 and --jobs 2:"
join "$T/c1" "$T/c2" | sed 's/^/  /'

# ---- No timed run overlaps a valgrind run ----------------------------------------------------
# Each probe is a wrapper that logs when it starts and ends (bash's clock, no child process),
# and whether it runs under valgrind (a valgrind run gets no census pipe).
REAL="$TOP/build/collectors/marksweep"
COLL=$(jq -r .collector "$REAL/manifest.json")
VER=$(jq -r .collector_version "$REAL/manifest.json")
mkdir "$T/logged"
for p in 01_nursery_churn 02_survivor_promotion; do
	cat >"$T/logged/$p" <<EOF
#!/bin/bash
kind=timed; [ -n "\${GCR_CENSUS_FD:-}" ] || kind=valgrind
echo "\$\$ \$kind start \$EPOCHREALTIME" >>"$T/intervals"
"$REAL/$p" "\$@"; rc=\$?
echo "\$\$ \$kind end \$EPOCHREALTIME" >>"$T/intervals"
exit \$rc
EOF
	chmod +x "$T/logged/$p"
done
expect_status 0 "$GCR" manifest "$T/logged" --abi 1 --collector "$COLL" --version "$VER" \
	--wrapper 01_nursery_churn --wrapper 02_survivor_promotion
expect_status 0 "$GCR" measure --build "$T/logged" --probes 01,02 --size ci --rounds 2 --warmup 0 \
	--meters rusage,census,valgrind --jobs 2
# pid kind start end, one line per run
awk '$3 == "start" { s[$1] = $4; k[$1] = $2 } $3 == "end" { print $1, k[$1], s[$1], $4 }' \
	"$T/intervals" >"$T/runs"
expect_eq "$(grep -c ' timed ' "$T/runs") $(grep -c ' valgrind ' "$T/runs")" "4 2" "every run logged"
overlaps=$(awk '{ kind[NR] = $2; s[NR] = $3; e[NR] = $4 }
	END { for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
		if (s[i] < e[j] && s[j] < e[i]) print kind[i] "+" kind[j] }' "$T/runs" | sort | uniq -c)
echo "overlapping runs: ${overlaps:-none}"
case "$overlaps" in
*timed*) fail "a timed run overlapped another run: $overlaps" ;;
*) pass ;;
esac
# And the valgrind runs did go at once, or the above would prove little.
printf '%s\n' "$overlaps" >"$T/overlaps"
expect_grep "valgrind\+valgrind" "$T/overlaps" "the two valgrind runs overlap with --jobs 2"
finish
