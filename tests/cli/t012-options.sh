#!/bin/sh
# Session options are parsed once for measure and ab: a bad value exits 2 with one message
# naming the option, the value and the valid range, before anything runs; both verbs take
# --timeout 0 as "no limit"; a repeated option: the last one wins.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
B="$T/scripted"
make_script_build "$B" 01_steady
M="--build $B --probes 01 --rounds 1 --warmup 0 --meters rusage,census"

# refused CMD... — exit 2, exactly one line on stderr matching $msg, and nothing run (in a
# database of its own, so one case that runs on a broken build cannot spoil the next).
refused() {
	expect_status 2 "$GCR" "$@" --db "$T/refused.db"
	expect_grep "^gcratchet (measure|ab): $msg$" "$T/err" "$*: should say /$msg/"
	expect_eq "$(wc -l <"$T/err")" 1 "$*: one error line"
	expect_eq "$(sqlite3 "$T/refused.db" "SELECT COUNT(*) FROM runs" 2>/dev/null || echo 0)" 0 "$*: nothing ran"
	rm -f "$T/refused.db"
}

# Bounds that used to exit 2 without a word.
msg="--rounds must be 1 to 10000, got 20000" refused measure $M --rounds 20000
msg="--rounds must be 1 to 10000, got 10001" refused measure $M --rounds 10001
msg="--rounds must be 1 to 10000, got 20000" refused ab "$B" "$B" --rounds 20000
msg="--warmup must be 0 to 1000, got 5000" refused measure $M --warmup 5000
msg="--warmup must be 0 to 1000, got 1001" refused measure $M --warmup 1001
msg="--warmup must be 0 to 1000, got 5000" refused ab "$B" "$B" --warmup 5000
# Numbers too large for 64 bits are out of range, not a wrap or a parse error.
msg="--rounds must be 1 to 10000, got 99999999999999999999999" \
	refused measure $M --rounds 99999999999999999999999
# --seed abc: one error, not two.
msg='--seed must be an integer from 0 to 9223372036854775807, got "abc"' refused measure $M --seed abc
msg='--seed must be an integer from 0 to 9223372036854775807, got "abc"' refused ab "$B" "$B" --seed abc
# Times that overflowed: 10^10 s became "lost (launcher gave no result)" on every run, and
# 3*10^9 s a negative time in the bench lock's message.
msg="--timeout must be 0 to 2592000 seconds \(0: no limit\), got 10000000000" \
	refused measure $M --timeout 10000000000
msg="--timeout must be 0 to 2592000 seconds \(0: no limit\), got 10000000000" \
	refused ab "$B" "$B" --timeout 10000000000
msg="--lock-timeout must be 0 to 2592000 seconds, got 3000000000" \
	refused measure $M --lock-timeout 3000000000
msg="--idle-timeout must be 0 to 2592000 seconds, got 3000000000" \
	refused measure $M --idle-timeout 3000000000
msg="--env-offset must be 0 to 65536 bytes, got 65537" refused measure $M --env-offset 65537
# --idle-below nan skipped the idleness gate; inf, -1 and "" are no load averages either.
for load in nan inf -1 ""; do
	msg="--idle-below must be a finite load average above 0, got \"$load\"" \
		refused measure $M --idle-below "$load"
done

# --timeout 0 is "no limit" in ab as in measure.
expect_status 0 "$GCR" measure $M --timeout 0
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE status='ok'")" 1 "measure --timeout 0 ran"
"$GCR" ab "$B" "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census --timeout 0 \
	>"$T/out" 2>"$T/err"
expect_no_grep "--timeout" "$T/err"
expect_grep "^gcratchet ab: session 2: 2 runs, 0 failed" "$T/err"
expect_eq "$(sql "SELECT COUNT(*) FROM runs WHERE session_id=2 AND status='ok'")" 2 "ab --timeout 0 ran both arms"

# A repeated option: the last one wins, in both verbs.
expect_status 0 "$GCR" measure $M --rounds 3 --rounds 2 --seed 9 --seed 11
expect_eq "$(sql "SELECT rounds || ' ' || seed FROM sessions ORDER BY id DESC LIMIT 1")" "2 11" "measure: last --rounds and --seed"
"$GCR" ab "$B" "$B" --probes 01 --rounds 3 --rounds 1 --warmup 0 --meters rusage,census \
	--size large --size ci >"$T/out" 2>"$T/err"
expect_eq "$(sql "SELECT rounds || ' ' || size FROM sessions ORDER BY id DESC LIMIT 1")" "1 ci" "ab: last --rounds and --size"
finish
