#!/bin/sh
# jvm/baseline-rules.sh FILE... — after `gcratchet baseline pin` of a JVM build, records in
# baselines/<profile>/jvm-<collector>.json what is not deterministic on that JVM collector
# (docs/jvm.md, "What is deterministic"). Pin's rules stay as pin wrote them: a rule looser
# than pin's is refused by `baseline validate` (docs/baselines.md, "What a hand edit must
# justify"), so each counter this script stops gating gets an override per cell instead, with
# its rationale (the measurements docs/jvm.md gives) and the cell's own pinning runs as its
# evidence; pin's widening overrides of those cells are replaced. The file keeps pin's layout
# (one rule, cell or override a line). Rewrites each file in place (a temporary file, then
# rename).
#
#   g1                minor_collections as pin writes it (G1 sizes its young generation to a
#                     pause-time goal, so the count follows the clock, and pin, the census
#                     saying clock_paced, judges it by its distribution against the pinning
#                     runs: docs/baselines.md, "distribution"), except on 12_large_live_set,
#                     where the host's load moves it as a whole: pinned at 4 in 15 runs of 15
#                     on the idle VM, it was 5 in 3 of 30 one-round sessions at load 5-7
#                     (2026-12-05), and a 3-round ratchet under the same load would move with
#                     it; 12's peak RSS, RssAnon and VmHWM not gated either (+6.5%, +8.5% and
#                     +7.4% in such sessions, RssAnon +5-6% under load before): on 12 only
#   zgc, shenandoah   major_collections (cycles) not gated: a concurrent cycle starts when a
#                     clock and the host's load say, so the count moves with the load as a
#                     whole, not from run to run around one figure: ZGC's, pinned at 3 on an
#                     idle VM in 15 runs of 15 (02, 12), came out 4 to 6 in every run of a
#                     ratchet at load 4 (2026-12-05), which no test of its distribution can tell
#                     from a change. heap_used_after_full_bytes not gated: what a concurrent
#                     cycle leaves moves with the clock from session to session. Peak RSS, VmHWM and
#                     RssAnon not gated: ZGC maps its heap several times over (and its
#                     RssAnon moved 7-10% between sessions), Shenandoah's follow the host's
#                     load
#   serial, parallel, g1
#                     heap_used_after_full_bytes within max(5%, 256 KiB) where pin does not
#                     gate it (a build without recorded capabilities): the JDK's own objects
#                     move it by a few KiB
#   serial            15_request_latency's peak RSS, VmHWM and RssAnon within max(5%, 512 KiB)
#                     (Parallel's and Epsilon's pinning runs spread enough that pin judges
#                     those cells by distribution, at least 5%, already):
#                     its metered loop runs on the clock, and what the JIT compiles for it
#                     moves the JVM's resident memory with the timing; Serial's RssAnon came
#                     out +2.03% over a 2% band in one fresh one-round session of three
#                     (pinning spread 0.94%) (2026-12-05)
#   every collector   everything else as pin wrote it (RSS: the profile's band, widened by
#                     pin where the pinning runs spread)
set -eu
for f in "$@"; do
	python3 - "$f" <<'PY'
import json, re, sys

path = sys.argv[1]
text = open(path).read()
doc = json.loads(text)
collector = doc["collector"]["name"]
USED = "census.heap_used_after_full_bytes"
CYCLES = ("a concurrent cycle starts when a clock and the host's load say: ZGC's count, 3 in all "
          "15 pinning runs of 02 and 12 on an idle VM, was 4 to 6 in every run of a ratchet at load 4, "
          "and Shenandoah's 4 to 6 between identical runs: the count follows the load as a whole, "
          "which no comparison with the pinning runs can tell from a change (docs/jvm.md)")
USED_WHY = ("what a concurrent cycle leaves moves with the clock: ZGC's in 2 MiB steps (4-6 MiB "
            "on 01), Shenandoah's by up to 71% (02: 1.30-2.23 MB) (docs/jvm.md)")
ZGC_RSS = ("ZGC maps its heap several times over and the kernel counts each view's resident "
           "pages: peak RSS and VmHWM spread 16% between identical runs (docs/jvm.md)")
ZGC_ANON = ("ZGC's RssAnon moves from session to session: its pinning runs were 0.6-3.9% apart, "
            "but a fresh 3-round ratchet on the same VM (load 7 on 2 cores) measured every "
            "probe's min 6.6% to 9.7% above the pinned min (docs/jvm.md)")
G1_12_MINOR = ("G1 sizes its young generation to a pause-time goal measured on the clock, and on "
               "12_large_live_set the host's load moves the count as a whole: 4 in all 15 pinning "
               "runs on an idle VM, 5 in 3 of 30 one-round sessions at load 5-7 (docs/jvm.md)")
G1_12_RSS = ("G1's resident memory on 12_large_live_set follows the host's load (a young "
             "generation sized to the clock): peak RSS +6.5%, RssAnon +8.5% and VmHWM +7.4% "
             "in one-round sessions at load 5-7, RssAnon +5-6% under load before (docs/jvm.md)")
RSS_15 = ("15_request_latency's metered loop runs on the clock, and what the JIT compiles for "
          "it moves the JVM's resident memory with the timing: Serial's RssAnon was +2.03% "
          "over the pinned median (pinning spread 0.94%) in one fresh one-round session of "
          "three, past the 2% band (docs/jvm.md)")
SHEN_RSS = ("Shenandoah's RSS follows the host's load (its concurrent threads get less CPU, the "
            "mutator touches more heap first): 12's RssAnon 49-64 MiB over 10 runs under load "
            "against a pinned median of 45 MiB, 01 +20.4% in one ratchet of five (docs/jvm.md)")
policy = {
    "jvm-serial": ({}, True),
    "jvm-parallel": ({}, True),
    "jvm-g1": ({"census.minor_collections": (G1_12_MINOR, ("12_large_live_set",)),
                "rss.peak_bytes": (G1_12_RSS, ("12_large_live_set",)),
                "memory.rss_anon_bytes": (G1_12_RSS, ("12_large_live_set",)),
                "memory.vm_hwm_bytes": (G1_12_RSS, ("12_large_live_set",))}, True),
    "jvm-zgc": ({"census.major_collections": CYCLES, USED: USED_WHY,
                 "rss.peak_bytes": ZGC_RSS, "memory.vm_hwm_bytes": ZGC_RSS,
                 "memory.rss_anon_bytes": ZGC_ANON}, False),
    "jvm-shenandoah": ({"census.major_collections": CYCLES, USED: USED_WHY,
                        "rss.peak_bytes": SHEN_RSS, "memory.vm_hwm_bytes": SHEN_RSS,
                        "memory.rss_anon_bytes": SHEN_RSS}, False),
    "jvm-epsilon": ({}, False),
}
if collector not in policy:
    sys.exit(f"jvm/baseline-rules.sh: {path}: collector '{collector}' is not a JVM build")
# Cells kept gated with a wider band (their reason, the probes, the band in percent).
WIDE_15 = {m: (RSS_15, ("15_request_latency",), 5)
           for m in ("rss.peak_bytes", "memory.vm_hwm_bytes", "memory.rss_anon_bytes")}
wide = WIDE_15 if collector == "jvm-serial" else {}
info, band_used = policy[collector]
# A metric's entry is its reason (every probe's cell), or (reason, the probes it holds for).
scope = {m: (why[1] if isinstance(why, tuple) else None) for m, why in info.items()}
info = {m: (why[0] if isinstance(why, tuple) else why) for m, why in info.items()}
rules = doc["rules"]
# Not gated by pin already: nothing to override. A banded heap_used only where pin gates
# nothing (tighter than pin's rule; where pin gates it, pin's rule and widening stand).
info = {m: why for m, why in info.items() if m in rules and rules[m]["gated"]}
band_used = band_used and USED in rules and not rules[USED]["gated"]
wide = {m: w for m, w in wide.items() if m in rules and rules[m]["gated"]}
touched = set(info) | set(wide) | ({USED} if band_used else set())


def dump(o):
    return json.dumps(o, ensure_ascii=False)


def in_scope(cell):
    if cell["metric"] in wide:
        return cell["probe"] in wide[cell["metric"]][1]
    probes = scope.get(cell["metric"])
    return cell["metric"] in info and (probes is None or cell["probe"] in probes)


def override(cell):
    """The cell's override: recorded, not gated (info), or gated within a wider band (wide)."""
    metric = cell["metric"]
    rule = dict(rules[metric])
    rule.pop("class", None)
    if metric in wide:
        why, _, band = wide[metric]
        rule.update(gated=True, band_pct=band)
        kind, said = "banded", f"within {band}%: {why}"
    else:
        rule.update(gated=False)
        kind, said = "info", "not gated: " + info[metric]
    spread = cell["max"] - cell["min"]
    o = {"probe": cell["probe"], "metric": metric, **rule, "class": kind,
         "rationale": "jvm/baseline-rules.sh: " + said,
         "evidence": {"runs": cell["n"],
                      "spread_pct": 100.0 * spread / abs(cell["median"]) if cell["median"] else 0}}
    return "    " + dump(o)


out, overrides = [], None
for line in text.splitlines():
    m = re.match(r'    "([^"]+)": (\{.*\})(,?)$', line)
    if m and overrides is None and "gated" in m.group(2) and band_used and m.group(1) == USED:
        rule = json.loads(m.group(2))
        rule.update(gated=True, band_pct=5, band_abs=262144)
        rule.pop("band_live_pct", None)
        rule.pop("class", None)
        rule["class"] = "banded"
        line = f'    "{USED}": {dump(rule)}{m.group(3)}'
    if line.startswith('  "overrides": ['):
        overrides = [] if line.endswith("[") else None
        if overrides is None:
            added = [override(c) for c in doc["cells"] if in_scope(c)]
            if added:
                out.append('  "overrides": [')
                out.extend(o + ("," if i + 1 < len(added) else "") for i, o in enumerate(added))
                out.append("  ],")
                continue
        out.append(line)
        continue
    if overrides is not None:
        if line.startswith("  ]"):
            overrides += [override(c) for c in doc["cells"] if in_scope(c)]
            out.extend(o + ("," if i + 1 < len(overrides) else "")
                       for i, o in enumerate(overrides))
            if not overrides:
                out[-1] += line.strip()
                overrides = None
                continue
            overrides = None
        else:
            o = line.rstrip(",")
            ov = json.loads(o)
            if ov["metric"] not in touched or not in_scope(ov):
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
