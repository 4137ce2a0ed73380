#!/bin/sh
# Every subcommand answers --help with its usage; wrong commands and options exit 2 and say why.
. "$(dirname "$0")/lib.sh"

for c in measure check baseline list; do
	expect_status 0 "$GCR" "$c" --help
	expect_grep "^usage: gcratchet $c" "$T/out"
	expect_status 0 "$GCR" help "$c"
	expect_grep "^usage: gcratchet $c" "$T/out"
done
expect_status 0 "$GCR" --help
expect_grep "measure" "$T/out"
expect_grep "Exit status: 0 ok, 1 regression found, 2" "$T/out"
expect_status 2 "$GCR"
expect_status 2 "$GCR" frobnicate
expect_grep 'unknown command "frobnicate"' "$T/err"
expect_status 2 "$GCR" measure --rounds
expect_grep "option --rounds needs a value" "$T/err"
expect_status 2 "$GCR" measure --frob
expect_grep 'unknown option "--frob"' "$T/err"
expect_status 2 "$GCR" measure --zzzzzz
expect_no_grep 'did you mean' "$T/err" "nothing is near --zzzzzz"
# A near miss says what was meant, and still stops with 2 (issue 29).
expect_status 2 "$GCR" mesure
expect_grep '^gcratchet: unknown command "mesure" \(did you mean measure\?\)$' "$T/err"
expect_status 2 "$GCR" help ratchte
expect_grep 'unknown command "ratchte" \(did you mean ratchet\?\)' "$T/err"
expect_status 2 "$GCR" measure --rouns 3
expect_grep 'unknown option "--rouns" \(did you mean --rounds\? see gcratchet measure --help\)' "$T/err"
expect_status 2 "$GCR" check --profil shared_ci
expect_grep 'did you mean --profile\?' "$T/err"
expect_status 2 "$GCR" measure --rounds 0
expect_grep "--rounds must be 1 to 10000, got 0" "$T/err"
expect_status 2 "$GCR" check
expect_grep "--profile is required" "$T/err"
expect_status 2 "$GCR" baseline
expect_grep "missing action" "$T/err"
expect_status 2 "$GCR" list things
expect_grep 'unknown list "things" \(valid: probes, collectors, sessions, metrics\)' "$T/err"
expect_status 0 "$GCR" --version
expect_grep "^gcratchet [0-9]" "$T/out"
expect_grep "^License: MIT" "$T/out"
[ -f "$TOP/LICENSE" ] && grep -q '^MIT License$' "$TOP/LICENSE" && pass || fail "no MIT LICENSE file"
# README says `make` builds everything: plain make's goal is `all`, not the first rule.
make -C "$TOP" -n -p 2>/dev/null | grep -q '^\.DEFAULT_GOAL := all$' && pass ||
	fail "plain make does not build all"
finish
