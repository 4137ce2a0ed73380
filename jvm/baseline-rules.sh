#!/bin/sh
# jvm/baseline-rules.sh FILE... — after `gcratchet baseline pin` of a JVM build, sets the rules
# of baselines/<profile>/jvm-<collector>.json to what is deterministic on that JVM collector
# (docs/jvm.md, "What is deterministic"): a counter that varied between identical runs is
# recorded, not gated, and pin's per-cell overrides for it are dropped, since the rule now
# says why. The file keeps pin's layout (one rule, cell or override a line): only those
# lines change. Rewrites each file in place (a temporary file, then rename).
#
#   every collector   census.alloc_bytes, census.heap_committed_peak_bytes: exact (pin's rule)
#   serial, parallel  minor and major collections exact; heap_used_after_full_bytes within
#                     max(5%, 256 KiB): the JDK's own objects move it by a few KiB
#   g1                as serial, but minor_collections not gated: G1 sizes its young
#                     generation to a pause-time goal, so the count follows the clock
#   zgc, shenandoah   major_collections (cycles) and heap_used_after_full_bytes not gated:
#                     concurrent cycles start and end with the clock; ZGC's peak RSS, VmHWM
#                     and RssAnon not gated either (its heap is mapped several times over)
#   epsilon           every counter exact (pin's rules): it never collects
set -eu
for f in "$@"; do
	python3 - "$f" <<'PY'
import json, re, sys

path = sys.argv[1]
text = open(path).read()
collector = json.loads(text)["collector"]["name"]
USED = "census.heap_used_after_full_bytes"
policy = {
    "jvm-serial": ([], True),
    "jvm-parallel": ([], True),
    "jvm-g1": (["census.minor_collections"], True),
    "jvm-zgc": (["census.major_collections", USED, "rss.peak_bytes", "memory.vm_hwm_bytes",
                 "memory.rss_anon_bytes"], False),
    "jvm-shenandoah": (["census.major_collections", USED], False),
    "jvm-epsilon": ([], False),
}
if collector not in policy:
    sys.exit(f"jvm/baseline-rules.sh: {path}: collector '{collector}' is not a JVM build")
info, band_used = policy[collector]
touched = set(info) | ({USED} if band_used else set())

out, overrides = [], None
for line in text.splitlines():
    m = re.match(r'    "([^"]+)": \{"gated": (true|false), "direction": "(\w+)", ', line)
    if m and m.group(1) in info:
        line = line.replace('"gated": true', '"gated": false', 1)
    elif m and band_used and m.group(1) == USED:
        line = re.sub(r'"band_pct": [^,]+, "band_abs": [^}]+}',
                      '"band_pct": 5, "band_abs": 262144}', line)
    if line == '  "overrides": [':
        overrides = []
        out.append(line)
        continue
    if overrides is not None:
        if line.startswith("  ]"):
            out.extend(o + ("," if i + 1 < len(overrides) else "")
                       for i, o in enumerate(overrides))
            if not overrides:
                out[-1] += line.strip()
                overrides = None
                continue
            overrides = None
        else:
            o = line.rstrip(",")
            if json.loads(o)["metric"] not in touched:
                overrides.append(o)
            continue
    out.append(line)
new = "\n".join(out) + "\n"
json.loads(new)
with open(path + ".tmp", "w") as f:
    f.write(new)
PY
	mv "$f.tmp" "$f"
done
