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
#                     concurrent cycles start and end with the clock. Peak RSS, VmHWM and
#                     RssAnon not gated either: ZGC maps its heap several times over, and
#                     Shenandoah's follow the host's load (its concurrent threads get less
#                     CPU, the mutator touches more heap first: 12's RssAnon 49-64 MiB over
#                     10 runs under load against a pinned median of 45 MiB)
#   epsilon           every counter exact (pin's rules): it never collects
#   every collector   peak RSS, VmHWM and RssAnon, where gated, within max(20%, 4 MiB) and
#                     no live floor (a JVM's RSS is mostly its fixed heap and runtime, not the
#                     probe's live set); pin's overrides for them stay only where wider
# A rule that is not gated gets the class info, one that is gated its own class kept.
set -eu
for f in "$@"; do
	python3 - "$f" <<'PY'
import json, re, sys

path = sys.argv[1]
text = open(path).read()
collector = json.loads(text)["collector"]["name"]
USED = "census.heap_used_after_full_bytes"
RSS = ["rss.peak_bytes", "memory.vm_hwm_bytes", "memory.rss_anon_bytes"]
RSS_PCT, RSS_ABS = 20, 4194304
policy = {
    "jvm-serial": ([], True),
    "jvm-parallel": ([], True),
    "jvm-g1": (["census.minor_collections"], True),
    "jvm-zgc": (["census.major_collections", USED] + RSS, False),
    "jvm-shenandoah": (["census.major_collections", USED] + RSS, False),
    "jvm-epsilon": ([], False),
}
if collector not in policy:
    sys.exit(f"jvm/baseline-rules.sh: {path}: collector '{collector}' is not a JVM build")
info, band_used = policy[collector]
touched = set(info) | ({USED} if band_used else set())


def dump(o):
    return json.dumps(o, ensure_ascii=False)


def keep_override(o):
    if o["metric"] in touched:
        return False
    # A widened RSS cell stays only where pin widened it beyond the JVM's rule.
    return o["metric"] not in RSS or o["band_pct"] > RSS_PCT or o["band_abs"] > RSS_ABS


out, overrides = [], None
for line in text.splitlines():
    m = re.match(r'    "([^"]+)": (\{.*\})(,?)$', line)
    if m and overrides is None and m.group(1) != "format":
        name, rule, comma = m.group(1), json.loads(m.group(2)), m.group(3)
        if "gated" in rule:
            if name in info:
                rule["gated"] = False
            elif band_used and name == USED:
                rule.update(band_pct=5, band_abs=262144)
                rule["class"] = "banded"
                rule.pop("band_live_pct", None)
            if name in RSS:
                rule.update(band_pct=RSS_PCT, band_abs=RSS_ABS)
                rule.pop("band_live_pct", None)
            if not rule["gated"]:
                rule["class"] = "info"
            rule["class"] = rule.pop("class")  # last, where pin writes it
            line = f'    "{name}": {dump(rule)}{comma}'
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
            if keep_override(json.loads(o)):
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
