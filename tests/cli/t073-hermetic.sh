#!/bin/sh
# needs: valgrind
# Hermetic runs: a probe sees the same environment, argv[0], executable path length and
# working directory whatever the caller's environment, working directory or checkout path,
# because Ir and a conservative heap move with them (~480 Ir per environment variable, measured
# on this kind of machine). A variable of the caller's reaches a probe only with --pass-env;
# the collector knobs (GCR_*) pass, the harness's own settings never do.
. "$(dirname "$0")/lib.sh"
B="$T/scripted"
make_script_build "$B" 01_env
# The probe reports what it was given: its argv[0] length, its cwd, and a digest of its
# environment, on stderr (kept as the run's stderr tail), and fails so the tail is stored.
cat >"$B/01_env" <<'SCRIPT'
#!/bin/sh
{
	echo "argv0_len=${#0} cwd_len=$(pwd | wc -c) nvars=$(env | wc -l)"
	echo "env_sum=$(env | grep -v '^PWD=\|^SHLVL=\|^_=\|^OLDPWD=' | sort | md5sum | cut -c1-12)"
	echo "marker=${MARKER:-unset} knob=${GCR_HEAP_MB:-unset} db=${GCR_DB:-unset}"
} >&2
exit 1
SCRIPT
chmod +x "$B/01_env"
# The build reads GCR_HEAP_MB as a knob: only a knob its manifest declares reaches a probe.
jq -c '.knobs = ["GCR_HEAP_MB"]' "$B/manifest.json" >"$B/m" && mv "$B/m" "$B/manifest.json"
seal_manifest "$B"

# report WHAT: the stderr tail of the newest run, without the lines that change per session.
report() { "$GCR" export | jq -r '.runs | max_by(.id) | .stderr_tail' >"$T/$1"; }
run() { "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census "$@" \
	>/dev/null 2>&1; }

run
report plain
# 300 more variables, a deep working directory, and the build in a long path.
vars=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "EXTRA_VAR_%d=%0100d ", i, 0 }')
env $vars sh -c "\"$GCR\" measure --build \"$B\" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census >/dev/null 2>&1"
report manyvars
deep="$T/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))"
mkdir -p "$deep"
(cd "$deep" && run)
report deepcwd
long="$T/$(printf 'b%.0s' $(seq 1 150))"
cp -R "$B" "$long"
sed "s#$B#$long#g" "$B/01_env" >"$long/01_env"
seal_manifest "$long"
"$GCR" measure --build "$long" --probes 01 --rounds 1 --warmup 0 --meters rusage,census >/dev/null 2>&1
report longpath
cat "$T/plain"
for v in manyvars deepcwd longpath; do
	if cmp -s "$T/plain" "$T/$v"; then pass; else
		fail "the probe saw something else with $v:"
		diff "$T/plain" "$T/$v" >&2
	fi
done
expect_grep "marker=unset knob=unset db=unset" "$T/plain" "no caller variable, no harness setting"

# A declared knob passes and is recorded with the arm; a stray GCR_ variable does not pass and
# is named; a variable passes only when named.
GCR_HEAP_MB=7 GCR_STRAY=1 MARKER=here "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census >"$T/out" 2>"$T/err"
report knob
expect_grep "marker=unset knob=7 db=unset" "$T/knob"
expect_grep "not passed to the probes: GCR_STRAY[ ,]" "$T/err"
expect_eq "$("$GCR" export | jq -c '.arms[0].knobs')" '{"GCR_HEAP_MB":"7"}' "the knob is on the arm's record"
MARKER=here run --pass-env MARKER
report passed
expect_grep "marker=here knob=unset" "$T/passed"
"$GCR" export | jq -r '.session.facts.probe_env[]' >"$T/facts" 2>/dev/null
expect_grep "^MARKER$" "$T/facts" "the passed variable is on the session's record, by name"
expect_no_grep "here" "$T/facts" "its value, which may be a secret (issue 41, defect 13)"
expect_grep "^TZ=UTC$" "$T/facts"
expect_status 2 "$GCR" measure --build "$B" --pass-env "NOT=A_NAME"
expect_grep "pass-env takes variable names" "$T/err"

# The figure this is for: valgrind Ir of a real probe does not move with 300 more variables or
# a deeper working directory (t032 allows valgrind's start-up jitter of a dozen instructions).
if command -v valgrind >/dev/null && [ -x "$TOP/build/collectors/epsilon/10_large_objects" ]; then
	ir() { "$GCR" export | jq -r '[.runs[] | select(.kind == "valgrind")] | max_by(.id) | .samples["valgrind.ir"]'; }
	vrun() { "$GCR" measure --collector epsilon --probes 10 --size ci --rounds 1 --warmup 0 \
		--meters rusage,census,valgrind >/dev/null 2>&1; }
	vrun
	a=$(ir)
	env $vars sh -c "cd \"$deep\" && \"$GCR\" measure --collector epsilon --probes 10 --size ci \
		--rounds 1 --warmup 0 --meters rusage,census,valgrind >/dev/null 2>&1"
	b=$(ir)
	echo "epsilon 10_large_objects ci: Ir $a plain, $b with 300 more variables from a deep cwd"
	d=$(awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; print (d < 0 ? -d : d) }')
	[ -n "$a" ] && [ "$a" != null ] && [ "$d" -le 64 ] && pass || fail "Ir moved by $d ($a vs $b)"
else
	skip "t073: Ir with 300 more variables: no valgrind, or no build/collectors/epsilon (make)"
fi
finish
