#!/bin/sh
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
	# shellcheck disable=SC2086 # $vars and $as_nobody are word lists
	(umask 077 && $as_nobody env -u GCR_BASELINE_DIR HOME=/tmp GCR_DB="$S/$c.db" $vars \
		"$I" ratchet --collector "$c" >"$T/out" 2>"$T/err")
	st=$?
	expect_eq "$st" 0 "$c's ratchet as $who (status)"
	expect_grep "^verdict: ok" "$T/out" "$c passes its baseline as $who"
	expect_grep "^baseline .*$LONG/lib/gcratchet/baselines/shared_ci/$c.json|$LONG/lib/gcratchet/baselines/shared_ci/$c.json" \
		"$T/out" "$c was judged against the installed baseline"
	grep -E "^verdict|REGRESSED|COULD NOT JUDGE" "$T/out" | sed "s/^/$c ($who): /"
	[ "$st" -eq 0 ] || sed 's/^/  stderr: /' "$T/err" | tail -n 10 >&2
done
[ -n "$as_nobody" ] && expect_eq "$(stat -c %a "$S/bench.lock")" 666 "the lock root created is open to every user"
finish
