#!/bin/sh
# needs: valgrind jvm
# Every shipped C collector's committed shared_ci baseline passes `gcratchet ratchet` as another
# CI runner would run it, not as the host that pinned it did: gcratchet installed under a path
# 150 characters long, run from a deep working directory that is not the source tree, with 200
# more environment variables and no GCR_BASELINE_DIR (the installed baselines), root with a
# umask of 077 first, then the user nobody on the same bench lock. Ir moves ~480 per
# environment variable and a conservative heap with the stack's contents unless runs are
# hermetic (docs/meters.md), and root's lock file once locked every other user out: each of
# these made unchanged code fail. ratchet measures three rounds, as `make ratchet` does: check
# compares medians, and bdwgc's heap figures move by a page now and then with the stack
# addresses ASLR gives a timed run. The same collectors built with clang are t075's (Ir is not
# comparable: STALE), the JVM builds' baselines t096's.
# gen's is the main job as `make check` runs it: plain `gcratchet ratchet` (gen is the default
# collector) measures exactly what its baseline pins and passes, in fewer than 40 lines that end
# with the verdict.
. "$(dirname "$0")/lib.sh"

# The install, under a long path; root's shared folder for the lock and the stores.
LONG="$T/$(printf 'p%.0s' $(seq 1 $((150 - ${#T} - 1))))"
expect_eq "${#LONG}" 150 "the install path's length"
expect_status 0 make -s -C "$TOP" install PREFIX="$LONG"
I="$LONG/bin/gcratchet"
S="$T/shared"
mkdir -m 1777 "$S"
deep="$T/$(printf 'w%.0s' $(seq 1 60))/$(printf 'x%.0s' $(seq 1 60))"
mkdir -p "$deep"
chmod 755 "$T"
chmod -R a+rX "$LONG" "$T/$(printf 'w%.0s' $(seq 1 60))"
vars=$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "CI_RUNNER_VAR_%d=%064d ", i, i }')
export GCR_LOCK_FILE="$S/bench.lock"
unset GCR_DB
as_nobody=
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "t022-all-baselines: not root, or no setpriv: every collector runs as $(id -un)"
fi

# main_job DB: what plain `gcratchet ratchet` printed ($T/out) and stored in DB.
main_job() {
	expect_eq "$(tail -n 1 "$T/out" | cut -c1-12)" "verdict: ok " "the verdict is the last line"
	lines=$(wc -l <"$T/out")
	expect_eq "$([ "$lines" -lt 40 ] && echo fewer)" fewer "ratchet printed $lines lines when everything is ok"
	# It measured what the baseline pins, nothing else: its probes, size and meters.
	B="$TOP/baselines/shared_ci/gen.json"
	export GCR_DB="$1"
	expect_eq "$(sql "SELECT group_concat(probe, ',') FROM (SELECT DISTINCT probe FROM runs ORDER BY probe)")" \
		"$(jq -r '[.cells[].probe] | unique | join(",")' "$B")" "the probes measured"
	expect_eq "$(sql "SELECT DISTINCT size FROM runs")" "$(jq -r .size "$B")" "the size measured"
	expect_eq "$(sql "SELECT count(*) FROM runs WHERE kind = 'valgrind'")" \
		"$(jq -r '[.cells[].probe] | unique | length' "$B")" "one valgrind run per probe"
	expect_status 0 "$GCR" baseline validate --profile shared_ci --collector gen
	# The markdown form is a PR comment of a few lines: the verdict, no row when all is ok.
	expect_status 0 "$GCR" check --profile shared_ci --format md
	expect_eq "$(head -n 1 "$T/out" | cut -c1-23)" "### gcratchet check: ok" "Markdown: the verdict first"
	expect_eq "$([ "$(wc -c <"$T/out")" -lt 1500 ] && echo short)" short "Markdown: under 1,500 characters"
	expect_no_grep "^\| " "$T/out" "Markdown: a row when all is ok"
	unset GCR_DB
}

cd "$deep" || exit 2
for c in epsilon marksweep gen bdwgc bdwgc-incremental; do
	[ -f "$TOP/baselines/shared_ci/$c.json" ] || {
		fail "no committed shared_ci baseline for $c"
		continue
	}
	# The first two as root under umask 077, the rest as nobody, after root took the lock.
	case $c in
	gen) [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
		as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups" ;;
	esac
	who=$(if [ -n "$as_nobody" ]; then echo nobody; else id -un; fi)
	collector="--collector $c"
	[ "$c" = gen ] && collector=
	# shellcheck disable=SC2086 # $vars, $as_nobody and $collector are word lists
	(umask 077 && $as_nobody env -u GCR_BASELINE_DIR HOME=/tmp GCR_DB="$S/$c.db" $vars \
		"$I" ratchet $collector >"$T/out" 2>"$T/err")
	st=$?
	expect_eq "$st" 0 "$c's ratchet as $who (status)"
	expect_grep "^verdict: ok" "$T/out" "$c passes its baseline as $who"
	expect_grep "^baseline .*$LONG/lib/gcratchet/baselines/shared_ci/$c.json|$LONG/lib/gcratchet/baselines/shared_ci/$c.json" \
		"$T/out" "$c was judged against the installed baseline"
	grep -E "^verdict|REGRESSED|COULD NOT JUDGE" "$T/out" | sed "s/^/$c ($who): /"
	[ "$st" -eq 0 ] || sed 's/^/  stderr: /' "$T/err" | tail -n 10 >&2
	# The runs that did not succeed, said at the end: the suite shows a failed part's last 40
	# lines, and a failed ratchet's rows and main_job's failures come before them.
	[ "$st" -eq 0 ] || GCR_DB="$S/$c.db" sql "SELECT '$c run ' || seq || ' ' || probe || ' ' ||
		kind || ': ' || status || ': ' || coalesce(detail, '') || ' ' ||
		coalesce(substr(stderr_tail, -300), '') FROM runs WHERE status != 'ok'" >>"$T/not-ok"
	[ "$c" = gen ] && main_job "$S/gen.db"
done
[ -n "$as_nobody" ] && expect_eq "$(stat -c %a "$S/bench.lock")" 666 "the lock root created is open to every user"
[ -s "$T/not-ok" ] && sed 's/^/  /' "$T/not-ok" >&2
finish
