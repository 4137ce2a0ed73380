#!/bin/sh
# --session N (issue 25, item 18): an id beyond int64 is refused naming the option and the
# value, exit 2, in every verb that takes one. 2^63 and 2^64 - 1 used to wrap into "no
# session -9223372036854775808" and "no session -1". INT64_MAX itself is an id, and no
# session has it.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady

expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1

# verb ARGS...: each verb that takes --session, with the value appended.
for v in 9223372036854775808 18446744073709551615 99999999999999999999 0 -1 1e3 " 1"; do
	for verb in "check --profile shared_ci --collector scripted" "export" \
		"report --md $T/r.md" "baseline pin --profile shared_ci --collector scripted" \
		"baseline update --profile shared_ci --collector scripted" \
		"push --to $T/fleet.db" "pull --from $T/fleet.db"; do
		# shellcheck disable=SC2086 # the verb's words are split on purpose
		expect_status 2 "$GCR" $verb --session "$v"
		expect_grep "^gcratchet ${verb%% *}: --session must be a session id from 1 to 9223372036854775807.*, got \"$v\"$" \
			"$T/err" "$verb --session $v names the option and the value"
		expect_no_grep "no session -" "$T/err"
	done
done
# The words some verbs take are named with the range.
expect_status 2 "$GCR" report --md "$T/r.md" --session x
expect_grep '--session must be a session id from 1 to 9223372036854775807 or "latest", got "x"' "$T/err"
expect_status 2 "$GCR" push --to "$T/fleet.db" --session x
expect_grep '--session must be a session id from 1 to 9223372036854775807 or "all", got "x"' "$T/err"
# The largest id is an id: looked for, not found.
expect_status 2 "$GCR" export --session 9223372036854775807
expect_grep "9223372036854775807" "$T/err"
expect_no_grep "must be a session id" "$T/err"
# A real one still works everywhere.
expect_status 0 "$GCR" check --profile shared_ci --collector scripted --session 1
expect_status 0 "$GCR" export --session 1 --out "$T/s.json"
expect_status 0 "$GCR" report --session 1 --md "$T/r.md"
expect_status 0 "$GCR" report --session latest --md "$T/r.md"
expect_status 0 "$GCR" push --to "$T/fleet.db" --session 1
expect_status 0 "$GCR" push --to "$T/fleet.db" --session all
finish
