#!/bin/sh
# Host identity that explains itself (issue 43, item 2): a baseline keeps the facts behind its
# host's fingerprint, check names the facts that differ where a gated figure depends on them,
# and says nothing of another VM of the same kind; --strict still refuses any other host.
. "$(dirname "$0")/lib.sh"

B="$T/scripted"
make_script_build "$B" 01_steady
expect_status 0 "$GCR" measure --build "$B" --size ci --warmup 0 --rounds 3 --meters rusage,census
F="$T/pin.json"
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 --out "$F"

# 1. The pin keeps the facts, each as this host's session recorded it.
facts=$(sql "SELECT facts FROM sessions WHERE id = 1")
for k in cpu_model kernel arch libc; do
	expect_eq "$(jq -r ".host.facts.$k" "$F")" "$(echo "$facts" | jq -r ".$k")" "host.facts.$k"
done
expect_eq "$(jq -r '.host.facts.ncpu' "$F")" "$(echo "$facts" | jq -r '.ncpu')" "host.facts.ncpu"
expect_eq "$(jq -r '.host.facts.page_size' "$F")" "$(getconf PAGESIZE)" "host.facts.page_size"
expect_eq "$(jq -r '.host.facts.mem_gib | type' "$F")" number "host.facts.mem_gib is a number"
expect_status 0 "$GCR" baseline validate "$F"
# As extended regular expressions: a CPU model has parentheses ("Intel(R) Xeon(R) ...").
ere() { printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g'; }
cpu=$(ere "$(jq -r '.host.facts.cpu_model' "$F")")
libc=$(ere "$(jq -r '.host.facts.libc' "$F")")
# PATTERN as Markdown and HTML may write it: ">" and "'" escaped.
esc() { printf '%s' "$1" | sed "s/->/-(>|\&gt;)/g; s/'/('|\&#39;)/g"; }

# check FILE ARGS... — check against FILE in every format: $T/c.txt, c.md, c.json, c.html.
check() {
	f=$1
	shift
	"$GCR" check --all --profile shared_ci --collector scripted --baseline "$f" "$@" \
		--md "$T/c.md" --html "$T/c.html" >"$T/c.txt" 2>"$T/c.err"
	rc=$?
	"$GCR" check --profile shared_ci --collector scripted --baseline "$f" "$@" \
		--format json >"$T/c.json" 2>/dev/null
	return $rc
}

# 2. Another VM of the same kind: another hostname (so another fingerprint), another CPU model
# and kernel. shared_ci gates the census and memory, which depend on neither: no STALE, ok.
jq '.host.fingerprint = "e4008d888c638e33" | .host.hostname = "runner-7"
	| .host.facts.cpu_model = "AMD EPYC 7763 64-Core Processor"
	| .host.facts.kernel = "Linux 6.5.0-1025-azure x86_64"' "$F" >"$T/vm.json"
check "$T/vm.json"
expect_eq "$rc" 0 "check against a pin from another VM of the same kind"
expect_no_grep "STALE" "$T/c.txt"
expect_no_grep "STALE" "$T/c.md"
expect_no_grep "STALE" "$T/c.html"
expect_eq "$(jq -c '.stale' "$T/c.json")" "[]" "JSON stale, another VM of the same kind"
# --strict keeps its meaning: another host is STALE, exit 2, and the message says what differs.
check "$T/vm.json" --strict
expect_eq "$rc" 2 "check --strict against a pin from another host"
expect_grep "^STALE: another host than the pin's \(runner-7 e4008d888c638e33 at the pin, .*\), differing only in what no gated figure depends on: CPU model: AMD EPYC 7763 64-Core Processor -> $cpu; kernel: .*\(--strict: exit 2\)" "$T/c.txt"

# 3. A libc of its own: memory depends on it (its allocator, its mapped pages). Named, old ->
# new, with the gated metrics that depend on it, in text, Markdown, JSON and HTML.
jq '.host.fingerprint = "e4008d888c638e33" | .host.facts.libc = "glibc 2.31"' "$F" >"$T/libc.json"
check "$T/libc.json"
expect_eq "$rc" 0 "check against a pin with another libc (STALE is said, not failed)"
want="the host differs from the pin's in what gated figures depend on: libc: glibc 2.31 -> $libc \(rss.peak_bytes"
expect_eq "$(head -n 1 "$T/c.txt" | cut -c1-7)" "STALE: " "STALE is the first line"
expect_grep "^STALE: $want" "$T/c.txt"
expect_grep "STALE\*\*: $(esc "$want")" "$T/c.md"
expect_grep "STALE: $(esc "$want")" "$T/c.html"
jq -r '.stale[0]' "$T/c.json" >"$T/stale0"
expect_grep "^$want" "$T/stale0"
expect_no_grep "CPU model" "$T/c.txt"

# 4. Another CPU model where a gated figure depends on it: time, gated here by a hand-tightened
# rule (a tighter rule needs no rationale). The fact is named with the metric, in every format.
jq '.host.fingerprint = "e4008d888c638e33" | .host.facts.cpu_model = "Ampere Altra"
	| .overrides = [{"probe": "01_steady", "metric": "time.wall_ns", "gated": true,
		"band_pct": 1000, "band_abs": 0, "class": "banded", "rationale": "t201: time gated",
		"evidence": {"runs": 3, "spread_pct": 50}}]' "$F" >"$T/cpu.json"
expect_status 0 "$GCR" baseline validate "$T/cpu.json"
check "$T/cpu.json"
expect_eq "$rc" 0 "check against a pin on another CPU model (STALE is said, not failed)"
want="the host differs from the pin's in what gated figures depend on: CPU model: Ampere Altra -> $cpu \(time.wall_ns\)"
expect_grep "^STALE: $want" "$T/c.txt"
expect_grep "STALE\*\*: $(esc "$want")" "$T/c.md"
expect_grep "STALE: $(esc "$want")" "$T/c.html"
jq -r '.stale[0]' "$T/c.json" >"$T/stale0"
expect_grep "^$want" "$T/stale0"

# 5. A file pinned before host facts were kept loads as before. On its own host nothing is
# said; on another, that what differs is unknown, in one short line.
jq 'del(.host.facts)' "$F" >"$T/old.json"
expect_status 0 "$GCR" baseline validate "$T/old.json"
check "$T/old.json"
expect_eq "$rc" 0 "check against an old file pinned here"
expect_no_grep "STALE" "$T/c.txt"
jq '.host.fingerprint = "e4008d888c638e33" | .host.hostname = "runner-7"' "$T/old.json" >"$T/old-vm.json"
check "$T/old-vm.json"
expect_eq "$rc" 0 "check against an old file pinned elsewhere"
expect_grep "^STALE: another host than the pin's \(runner-7 e4008d888c638e33 at the pin, .*\), and the baseline was pinned before host facts were kept: what differs is unknown \(pin it again to keep them\)$" "$T/c.txt"

# 6. The same host after a libc upgrade: the fingerprint is the same, the fact is not.
jq '.host.facts.libc = "glibc 2.31"' "$F" >"$T/upgraded.json"
check "$T/upgraded.json"
expect_grep "^STALE: the host differs from the pin's in what gated figures depend on: libc: glibc 2.31 -> " "$T/c.txt"

# 7. baseline validate holds host.facts to their types, naming the field.
jq '.host.facts.ncpu = "2"' "$F" >"$T/bad1.json"
expect_status 2 "$GCR" baseline validate "$T/bad1.json"
expect_grep "bad1.json: host.facts.ncpu: must be an integer from 1" "$T/err"
jq '.host.facts.gpu = "none"' "$F" >"$T/bad2.json"
expect_status 2 "$GCR" baseline validate "$T/bad2.json"
expect_grep "bad2.json: host.facts.gpu: unknown host fact" "$T/err"
jq '.host.facts.kernel = ""' "$F" >"$T/bad3.json"
expect_status 2 "$GCR" baseline validate "$T/bad3.json"
expect_grep "bad3.json: host.facts.kernel: must be a non-empty string" "$T/err"
# check reads through the same function: it refuses the file before judging.
expect_status 2 "$GCR" check --profile shared_ci --collector scripted --baseline "$T/bad2.json"

# 8. The baseline's schema (docs/schema/gcratchet-baseline.json) takes what pin writes, every
# shipped baseline and a file without facts, and refuses the bad facts validate refuses.
need_jsonschema
expect_status 0 "$PY" "$TOP/tests/cli/schema-check.py" "$TOP/docs/schema" "$F" "$T/old.json" \
	"$TOP"/baselines/*/*.json
expect_status 0 "$PY" "$TOP/tests/cli/schema-check.py" --invalid "$TOP/docs/schema" \
	"$T/bad1.json" "$T/bad2.json" "$T/bad3.json"
finish
