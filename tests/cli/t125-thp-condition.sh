#!/bin/sh
# Transparent huge pages are a condition of every session (issue 31, docs/meters.md): probes
# run with THP off unless --thp host says as the host is configured; the session's facts record
# what its probes got (probe_thp); a run whose probe did not get it is failed, not passed
# silently; where the prctl is refused, the session says so and records the condition it really
# had; doctor says the host's modes and what gcratchet does about them.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
# fact SESSION FILTER — a fact of a stored session, read back through export.
fact() { "$GCR" export --session "$1" | jq -r ".session.facts$2"; }
latest() { "$GCR" export | jq -r .session.id; }

cc -O2 -o "$T/thp_exec" "$TOP/tests/cli/thp_exec.c" || fail "cannot build thp_exec"

# A foreign probe (a shell script) that notes the THP_enabled its own process has: what the
# launcher's setting looks like from inside a probe that links nothing of ours.
B="$T/thp"
make_script_build "$B" 01_thp
cat >"$B/01_thp" <<SCRIPT
#!/bin/sh
grep '^THP_enabled:' /proc/self/status | tr -d ' \t' >>"$B/seen"
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_thp","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000}}' "\$1" >&3
SCRIPT
seal_manifest "$B"
run_thp() { # expected status, expected THP_enabled of every run, measure options...
	want=$1 seen=$2
	shift 2
	rm -f "$B/seen"
	expect_status "$want" "$GCR" measure --build "$B" --rounds 2 --warmup 0 --meters rusage,census "$@"
	expect_eq "$(sort -u "$B/seen" | tr '\n' ' ')" "THP_enabled:$seen " "THP_enabled the probe saw ($*)"
}

# A bad value names the option and what it takes; nothing is measured.
expect_status 2 "$GCR" measure --build "$B" --thp on
expect_grep '--thp must be off or host, got "on"' "$T/err"
expect_status 2 "$GCR" ab --thp
expect_grep 'option --thp needs a value' "$T/err"

# The default: THP off in the probe's own process, and the session records it.
run_thp 0 0
s=$(latest)
expect_eq "$(fact "$s" .probe_thp.condition)" off "default condition"
expect_eq "$(fact "$s" .probe_thp.requested)" off "default request"
host_mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)
expect_eq "$(fact "$s" .probe_thp.enabled)" "$host_mode" "the host's THP mode in the facts"
expect_eq "$(fact "$s" '.probe_thp | has("why")')" false "nothing to explain when the condition is the one asked for"

# --thp host: as the host is configured, even when the harness inherited THP off itself.
run_thp 0 1 --thp host
expect_eq "$(fact "$(latest)" .probe_thp.condition)" host "--thp host condition"
rm -f "$B/seen"
expect_status 0 "$T/thp_exec" off "$GCR" measure --build "$B" --rounds 1 --warmup 0 --meters rusage,census --thp host
expect_eq "$(cat "$B/seen")" "THP_enabled:1" "--thp host undoes a THP off the harness inherited"
rm -f "$B/seen"
expect_status 0 "$T/thp_exec" off "$GCR" measure --build "$B" --rounds 1 --warmup 0 --meters rusage,census
expect_eq "$(cat "$B/seen")" "THP_enabled:0" "off from a harness started with THP off"

# A launcher whose prctl only pretends to succeed (a seccomp filter faking it): the probe ran
# with THP on under a session that records off. Every run says so and fails; none passes.
mkdir -p "$T/root"
ln -s "$TOP/build/collectors" "$T/root/collectors"
printf '#!/bin/sh\nexec "%s" fake "%s" "$@"\n' "$T/thp_exec" "$TOP/build/gcratchet-launch" >"$T/root/gcratchet-launch"
chmod +x "$T/root/gcratchet-launch"
GCR_BUILD_ROOT="$T/root" run_thp 2 1
s=$(latest)
expect_eq "$(sql "SELECT group_concat(DISTINCT status) FROM runs WHERE session_id = $s")" failed "runs that did not get THP off"
expect_grep "THP_enabled was 1 for this probe, but the session's THP condition is off" "$T/out"
expect_eq "$(fact "$s" .probe_thp.condition)" off "the session's condition (the harness's own prctl works)"

# A harness whose prctl is refused (an old kernel, a container's filter): said plainly, the
# runs go on as the host is configured, and the session records that, with why.
"$T/thp_exec" refuse "$GCR" measure --build "$B" --rounds 2 --warmup 0 --meters rusage,census >"$T/out" 2>"$T/err"
expect_eq "$?" 0 "a session where THP cannot be turned off still measures"
expect_grep 'cannot give the probes --thp off here \(prctl\(PR_SET_THP_DISABLE, 1\): Invalid argument\): they run with THP host \(enabled .*, defrag .*\), and the session records that' "$T/err"
s=$(latest)
expect_eq "$(fact "$s" .probe_thp.condition)" host "condition recorded as it was"
expect_eq "$(fact "$s" .probe_thp.requested)" off "what was asked for"
expect_eq "$(fact "$s" .probe_thp.why)" "prctl(PR_SET_THP_DISABLE, 1): Invalid argument" "why"
expect_eq "$(sql "SELECT group_concat(DISTINCT status) FROM runs WHERE session_id = $s")" ok "runs consistent with the recorded condition"
expect_eq "$(sort -u "$B/seen" | tr '\n' ' ')" "THP_enabled:1 " "THP_enabled under the refused prctl"

# doctor: the host's modes and what gcratchet does; a warning where THP cannot be turned off.
"$GCR" doctor >"$T/out" 2>&1
expect_grep "^ok +transparent hugepages +enabled $host_mode, defrag [a-z+]+ \(.*\): probes run with THP off \(prctl PR_SET_THP_DISABLE works here\); --thp host measures as configured" "$T/out"
"$T/thp_exec" refuse "$GCR" doctor >"$T/out" 2>&1
expect_grep "^warn +transparent hugepages +enabled $host_mode, .*cannot turn THP off for probes here \(prctl\(PR_SET_THP_DISABLE, 1\): Invalid argument\)" "$T/out"
expect_grep "fix: run gcratchet outside the seccomp filter" "$T/out"

finish
