#!/bin/sh
# Quiet measurement: two measuring sessions never overlap (the second waits with a message,
# or gives up after --lock-timeout); the idleness gate gives up on a busy host; probes can be
# pinned to a CPU, run without ASLR, with a clean environment, or with an environment offset.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
B="$T/scripted"
make_script_build "$B" 01_steady 02_slow
echo hang >"$B/mode.02_slow"

# Session one holds the lock for about 3 s (its probe hangs until the time limit), from when
# it has taken it: a fixed sleep for that was outlasted on a loaded host.
"$GCR" measure --build "$B" --probes 02 --rounds 1 --warmup 0 --meters rusage,census --timeout 3 \
	--db "$T/one.db" >"$T/one.out" 2>&1 &
one=$!
await_lock "$one"
expect_status 2 "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census --lock-timeout 1
expect_grep "the bench lock .*bench.lock is held by pid $one since .* gave up after 1 s" "$T/err"
expect_status 0 "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census --lock-timeout 60
expect_grep "waiting for the bench lock .* held by pid $one" "$T/err"
wait $one
# The waiting session started only after the first had ended.
first_end=$("$GCR" export --db "$T/one.db" | jq -r .session.finished_at)
second_start=$("$GCR" export | jq -r .session.started_at)
if [ "$second_start" \> "$first_end" ] || [ "$second_start" = "$first_end" ]; then pass; else
	fail "sessions overlapped: second started $second_start, first ended $first_end"
fi

# The idleness gate: no host has a load below 0.0001; give up after a second.
expect_status 2 "$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--idle-below 0.0001 --idle-timeout 1
expect_grep "the host is not idle: load .* is not below 0.00 after 1 s" "$T/err"
expect_eq "$("$GCR" export | jq '.session.load_before >= 0 and .session.load_after >= 0')" true "load recorded before and after"

# CPU pinning, ASLR off, a clean environment: the probe sees them.
cat >"$B/03_env" <<'SCRIPT'
#!/bin/sh
echo "checksum 0x00000000000000aa"
printf '%s\n' "cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2)" \
	"aslr=$(grep -c . /proc/self/personality 2>/dev/null; cat /proc/self/personality 2>/dev/null)" \
	"marker=${MARKER:-unset} knob=${GCR_HEAP_MB:-unset} pad=${#GCR_ENV_PAD}" >&2
exit 1
SCRIPT
chmod +x "$B/03_env"
sed 's/"probes":\[/"probes":[{"name":"03_env","file":"03_env","sha256":"-"},/' "$B/manifest.json" >"$B/m" && mv "$B/m" "$B/manifest.json"
# The build reads GCR_HEAP_MB as a knob: only a declared knob reaches its probes.
jq -c '.knobs = ["GCR_HEAP_MB"]' "$B/manifest.json" >"$B/m" && mv "$B/m" "$B/manifest.json"
seal_manifest "$B"
MARKER=here GCR_HEAP_MB=7 expect_status 2 "$GCR" measure --build "$B" --probes 03 --rounds 1 --warmup 0 \
	--meters rusage,census --cpu 1 --no-aslr --clean-env
tail=$("$GCR" export | jq -r '.runs | max_by(.id) | .stderr_tail')
echo "$tail"
echo "$tail" | grep -q "^cpus=1$" && pass || fail "not pinned to CPU 1: $tail"
echo "$tail" | grep -q "0040000" && pass || fail "ASLR not off (ADDR_NO_RANDOMIZE): $tail"
echo "$tail" | grep -q "marker=unset knob=7 pad=0" && pass || fail "environment not clean: $tail"
MARKER=here expect_status 2 "$GCR" measure --build "$B" --probes 03 --rounds 1 --warmup 0 \
	--meters rusage,census --env-offset 4000 --seed 5 --pass-env MARKER
tail=$("$GCR" export | jq -r '.runs | max_by(.id) | .stderr_tail')
echo "$tail" | grep -q "marker=here" && pass || fail "environment not kept: $tail"
echo "$tail" | grep -Eq "pad=[0-9]+" && pass || fail "no padding: $tail"
expect_status 2 "$GCR" measure --build "$B" --cpu 99
expect_grep "--cpu 99: this host has CPUs 0 to" "$T/err"
finish
