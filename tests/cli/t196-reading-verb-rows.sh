#!/bin/sh
# Issue 42, item 1: the reading verbs are declared as rows, so an option lands only where its
# row says. explain's chain sent any option without a branch to --db, and doctor's made any
# option set the profile: with rows, an option of another verb is refused by name, and the
# options two verbs share (report's --across, report --history's query) keep their refusals.
. "$(dirname "$0")/lib.sh"

# An option another verb takes is not taken as --db or --profile.
expect_status 2 "$GCR" doctor --db x.db
expect_grep 'gcratchet doctor: unknown option "--db"' "$T/err" "doctor refuses --db"
expect_status 2 "$GCR" doctor --collector gen
expect_grep 'gcratchet doctor: unknown option "--collector"' "$T/err" "doctor refuses --collector"
expect_status 2 "$GCR" doctor --profile nosuch
expect_grep 'gcratchet doctor: unknown profile "nosuch" \(valid: shared_ci, pinned_host\)' \
	"$T/err" "doctor's profile keeps its wording"
expect_status 2 "$GCR" explain --out x.db
expect_grep 'gcratchet explain: unknown option "--out"' "$T/err" "explain refuses --out"
expect_status 2 "$GCR" explain --rounds 3
expect_grep 'gcratchet explain: unknown option "--rounds"' "$T/err" "explain refuses --rounds"
expect_status 2 "$GCR" explain --against latest
expect_grep 'gcratchet explain: --against names a session by its id' "$T/err" \
	"--against refuses latest in its own words"
expect_status 2 "$GCR" list --profile x
expect_grep 'gcratchet list: unknown option "--profile"' "$T/err" "list refuses --profile"

# Shared rows keep the refusals they had.
expect_status 2 "$GCR" report --session 1 --across --no-across
expect_grep 'gcratchet report: --across and --no-across contradict each other: give one' \
	"$T/err" "report: --across with --no-across"
expect_status 2 "$GCR" ab gen gen --no-across --across
expect_grep 'gcratchet ab: --across and --no-across contradict each other: give one' \
	"$T/err" "ab: --no-across with --across"
expect_status 2 "$GCR" report --session 1 --since 2026-01-01 --metric valgrind.ir
expect_grep 'gcratchet report: --since applies to --history only' "$T/err" \
	"the first history option given is named"
expect_status 2 "$GCR" report --history --collector gen --probe 01 --metric valgrind.ir --html x
expect_grep 'gcratchet report: --history takes --collector' "$T/err" "--history refuses --html"
expect_status 2 "$GCR" manifest "$T" --check --abi 1
expect_grep 'gcratchet manifest: --check writes nothing' "$T/err" \
	"--check refuses a writing option whatever its value"
expect_status 2 "$GCR" push --to "$T/a.db" --session latest
expect_grep 'gcratchet push: --session must be a session id from 1 to [0-9]* or "all", got "latest"' \
	"$T/err" "push's --session takes all, not latest"
expect_status 2 "$GCR" manifest "$T" --abi 0
expect_grep 'gcratchet manifest: --abi must be a positive integer, got "0"' "$T/err" \
	"--abi keeps its bound"
finish
