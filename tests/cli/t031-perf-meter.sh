#!/bin/sh
# needs: valgrind
# The perf meter: software events count; an event libpfm4 cannot encode is refused naming it;
# on a host without a PMU the hardware events are reported unavailable once, with the reason,
# and the session carries on.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

expect_status 0 "$GCR" measure --collector marksweep --probes 01 --size ci --rounds 2 --warmup 0 \
	--meters rusage,census,perf --events instructions:u,task-clock,page-faults
# count METRIC CONDITION — how many runs of session 1 have METRIC with a value that passes.
count() { exported 1 "[.runs[].samples[\"$1\"] // empty | select($2)] | length"; }
clock=$(exported 1 '[.runs[].samples["perf.task-clock"] // empty] | min')
expect_eq "$(count perf.task-clock '. > 0')" 2 "task-clock counted on every run"
expect_eq "$(count perf.task-clock.scale '. > 0 and . <= 1')" 2 "scaling ratio stored"
# task-clock counts the probe from exec to exit: close to the probe's own CPU time.
user_sys=$(exported 1 '[.runs[].samples | select(has("time.user_ns") and has("time.sys_ns")) | .["time.user_ns"] + .["time.sys_ns"]] | min')
echo "task-clock $clock ns, user+sys $user_sys ns"
expect_eq "$(count perf.page-faults '. > 100')" 2 "page faults counted"
if grep -q "perf event instructions:u unavailable" "$T/err"; then
	# No PMU here: said once, with the reason, and no fake count stored.
	expect_eq "$(grep -c "perf event instructions:u unavailable" "$T/err")" 1 "reported once per session"
	expect_grep "no hardware PMU on this host" "$T/err"
	expect_eq "$(count perf.instructions:u true)" 0 "no fake zero"
	expect_no_grep "perf:instructions" "$T/out"
else
	expect_eq "$(count perf.instructions:u '. > 1000000')" 2 "instructions counted"
fi

expect_status 2 "$GCR" measure --collector marksweep --probes 01 --size ci --meters perf --events task-clock,bogus:nothing
expect_grep 'event "bogus:nothing" cannot be encoded by libpfm4' "$T/err"
expect_grep "gcratchet doctor" "$T/err"
expect_status 2 "$GCR" measure --collector marksweep --probes 01 --meters rusage --events task-clock
expect_grep "--events needs the perf meter" "$T/err"

expect_status 0 "$GCR" doctor --profile shared_ci
expect_grep "^ok +valgrind Ir +valgrind-" "$T/out"
expect_grep "^verdict: shared_ci can be measured here" "$T/out"
expect_status 2 "$GCR" doctor --profile nightly
expect_grep 'unknown profile "nightly"' "$T/err"
finish
