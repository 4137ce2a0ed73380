#!/bin/sh
# gen's verification mode: with GCR_VERIFY=1 gen checks its heap invariants after every
# collection (no old-to-young pointer the remembered set does not know, no pointer to a freed
# cell, well-formed headers) and aborts on the first that fails. Every probe at the ci size
# must pass it and print the same checksum as without it; a bad value is refused.
. "$(dirname "$0")/lib.sh"
G="$TOP/build/collectors/gen"
[ -d "$G" ] || { fail "gen is not built (run make)"; finish; }

for exe in "$G"/[0-9][0-9]_*; do
	p=$(basename "$exe")
	plain=$("$exe" ci 2>"$T/plain.err")
	verified=$(GCR_VERIFY=1 "$exe" ci 2>"$T/verify.err")
	st=$?
	if [ "$st" -eq 0 ] && [ -n "$plain" ] && [ "$plain" = "$verified" ]; then pass; else
		fail "$p under GCR_VERIFY=1: exit $st, '$verified' vs '$plain'"
		cat "$T/verify.err" >&2
	fi
done
GCR_VERIFY=2x expect_status 2 "$G/01_nursery_churn" ci
expect_grep "GCR_VERIFY" "$T/err"
finish
