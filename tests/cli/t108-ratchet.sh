#!/bin/sh
# needs: valgrind
# `gcratchet ratchet`, the main job in one verb: it measures exactly what the baseline needs
# (here a copy of epsilon's shipped baseline cut to two probes: only those are measured, with
# its meters and size, and their minimum heaps searched) and checks that session. Unchanged
# epsilon exits 0; an epsilon built with a deliberate extra cost per allocation exits 1 with
# the regressed rows on screen, without --all. Colour only on a terminal, never under NO_COLOR.
. "$(dirname "$0")/lib.sh"
BL="$T/epsilon.json"
jq '.cells |= map(select(.probe == "01_nursery_churn" or .probe == "12_large_live_set"))
	| .probes |= with_entries(select(.key == "01_nursery_churn" or .key == "12_large_live_set"))
	| if has("functions") then .functions |= with_entries(select(.key == "01_nursery_churn" or .key == "12_large_live_set")) else . end
	| .overrides |= map(select(.probe == "01_nursery_churn" or .probe == "12_large_live_set"))' \
	"$TOP/baselines/shared_ci/epsilon.json" >"$BL"
expect_status 0 "$GCR" baseline validate "$BL"

# Unchanged code: ok, in a few lines, the verdict last.
expect_status 0 "$GCR" ratchet --collector epsilon --baseline "$BL"
cp "$T/out" "$T/ok.out"
expect_eq "$(tail -n 1 "$T/ok.out" | cut -c1-12)" "verdict: ok " "the verdict is the last line"
lines=$(wc -l <"$T/ok.out")
expect_eq "$([ "$lines" -lt 40 ] && echo fewer)" fewer "ratchet printed $lines lines when everything is ok"
expect_no_grep "REGRESSED|COULD NOT JUDGE|\[ *[0-9]+/[0-9]+\]" "$T/ok.out" "a run line or a bad row when all is ok"
expect_grep "^01_nursery_churn +[0-9]+ +0 +0 +0 +[0-9]+$" "$T/ok.out"
expect_grep "^12_large_live_set +[0-9]+ +0 +0 +0 +[0-9]+$" "$T/ok.out"
expect_no_grep "^0[2-9]_|^1[013-9]_" "$T/ok.out" "a probe the baseline does not pin"
# What it measured: the baseline's two probes at its size, with its meters (valgrind too), and
# it searched their minimum heaps, which the baseline gates.
expect_eq "$(sql "SELECT group_concat(probe, ',') FROM (SELECT DISTINCT probe FROM runs ORDER BY probe)")" \
	"01_nursery_churn,12_large_live_set" "the probes measured"
expect_eq "$(sql "SELECT DISTINCT size FROM runs")" "$(jq -r .size "$BL")" "the size measured"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE kind = 'valgrind'")" 2 "one valgrind run per probe"
expect_eq "$(sql "SELECT count(*) FROM runs WHERE kind = 'timed' AND warmup = 0")" 6 "3 rounds of 2 probes"
expect_eq "$(sql "SELECT count(DISTINCT probe) FROM minheap")" 2 "min heaps searched"
expect_grep "^gcratchet check: profile shared_ci, collector epsilon 1.0, session 1 " "$T/ok.out"

# A planted cost per allocation: exit 1, the regressed rows on screen with how far past.
make -s -C "$TOP" -f collectors/build.mk NAME=epsilon-slow COLLECTOR_DIR=collectors/epsilon \
	OUT="$T/epsilon-slow" EXTRA_CFLAGS=-DGCR_PLANT_ALLOC_SPIN=20 \
	PROBE_SRCS="$TOP/probes/01_nursery_churn.c $TOP/probes/12_large_live_set.c" \
	>"$T/make.log" 2>&1 || { fail "building epsilon-slow"; tail "$T/make.log" >&2; }
expect_status 1 "$GCR" ratchet --build "$T/epsilon-slow" --baseline "$BL"
cp "$T/out" "$T/slow.out"
expect_grep "^01_nursery_churn +valgrind.ir .* REGRESSED: [0-9][^;]* past the allowance$" "$T/slow.out"
expect_grep "^12_large_live_set +valgrind.ir .* REGRESSED: [0-9][^;]* past the allowance$" "$T/slow.out"
expect_grep "^01_nursery_churn +[0-9]+ +[1-9][0-9]* +[0-9]+ +0 +[0-9]+$" "$T/slow.out"
expect_grep "cells shown; every cell: the same command with --all" "$T/slow.out"
expect_eq "$(tail -n 1 "$T/slow.out" | cut -c1-19)" "verdict: REGRESSION" "the verdict is the last line"
expect_grep "^gcratchet check: profile shared_ci, collector epsilon 1.0, session 2 \(build epsilon-slow\)" \
	"$T/slow.out"
# --all: every cell of the same session, by check.
expect_status 1 "$GCR" check --profile shared_ci --collector epsilon --baseline "$BL" --session 2 --all
expect_grep "^01_nursery_churn +census.alloc_bytes .* ok$" "$T/out"

# Colour: only on a terminal, never under NO_COLOR, never in a file.
expect_no_grep "$(printf '\033')" "$T/slow.out" "colour in a file"
script -qec "$GCR check --profile shared_ci --collector epsilon --baseline $BL --session 2" \
	/dev/null >"$T/tty.out" 2>&1
expect_grep "$(printf '\033')\[31mREGRESSED" "$T/tty.out"
expect_grep "$(printf '\033')\[31mREGRESSION" "$T/tty.out"
NO_COLOR=1 script -qec "$GCR check --profile shared_ci --collector epsilon --baseline $BL --session 2" \
	/dev/null >"$T/nocolor.out" 2>&1
expect_grep "REGRESSED" "$T/nocolor.out"
expect_no_grep "$(printf '\033')\[" "$T/nocolor.out" "colour under NO_COLOR"

# Refusals name the argument.
expect_status 2 "$GCR" ratchet --collector epsilon --build "$T/epsilon-slow"
expect_grep "\-\-collector and \-\-build name the build twice" "$T/err"
expect_status 2 "$GCR" ratchet --profile nightly
expect_grep "unknown profile \"nightly\" \(valid: shared_ci, pinned_host\)" "$T/err"
expect_status 2 "$GCR" ratchet --rounds 0
expect_grep "\-\-rounds" "$T/err"
GCR_BASELINE_DIR="$T/none" expect_status 2 "$GCR" ratchet --collector epsilon
expect_grep "pin one with: gcratchet baseline pin --profile shared_ci --collector epsilon" "$T/err"
expect_status 2 "$GCR" ratchet --build "$T/no-such-build"
expect_grep "\-\-build $T/no-such-build" "$T/err"
expect_eq "$(sql "SELECT count(*) FROM sessions")" 2 "a refused ratchet measures nothing"
finish
