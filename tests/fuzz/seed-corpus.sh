#!/bin/sh
# seed-corpus.sh — (re)writes the seed corpora in tests/fuzz/corpus/<target>/ from real inputs:
# census objects that the built probes write, the shipped baselines (cut to two probes, and
# trimmed to a few cells with an override and ledger entries), the built manifests (whole and
# with one probe), the command lines of README.md, and all of those JSON texts again for the
# JSON reader with a few edge cases of RFC 8259. Run after `make` from the top folder; commit
# what changed. Inputs that fuzzing found are added by hand (tests/fuzz/README.md).
set -eu
cd "$(dirname "$0")/../.."
corpus=tests/fuzz/corpus
mkdir -p "$corpus/census" "$corpus/baseline" "$corpus/manifest" "$corpus/cli" "$corpus/json" \
	"$corpus/session_opts"

# Census: every probe on gen at the ci size, and one probe on each other collector.
for exe in build/collectors/gen/[0-9]*; do
	GCR_CENSUS_FD=3 "$exe" ci 3>"$corpus/census/gen-$(basename "$exe").json" >/dev/null
done
for c in epsilon marksweep bdwgc bdwgc-incremental; do
	GCR_CENSUS_FD=3 "build/collectors/$c/09_weak_finalize" ci \
		3>"$corpus/census/$c-09_weak_finalize.json" >/dev/null
done

for d in build/collectors/*/; do
	cp "$d/manifest.json" "$corpus/manifest/$(basename "$d").json"
done

python3 - "$corpus" <<'PY'
import json, sys

corpus = sys.argv[1]

# Each shipped baseline cut to two probes (all its rules, their cells and overrides): whole
# ones are 40-50 KB, and a fuzzer that mutates them runs a hundred times slower.
for name in ("epsilon", "marksweep", "gen", "bdwgc", "bdwgc-incremental"):
    b = json.load(open("baselines/shared_ci/%s.json" % name))
    keep = list(b["probes"])[::7][:2]
    b["probes"] = {p: v for p, v in b["probes"].items() if p in keep}
    b["cells"] = [c for c in b["cells"] if c["probe"] in keep]
    b["overrides"] = [o for o in b.get("overrides", []) if o["probe"] in keep]
    with open("%s/baseline/shared_ci-%s-2probes.json" % (corpus, name), "w") as f:
        f.write(json.dumps(b, indent=1) + "\n")

# A baseline of two probes and three metrics, with what the shipped ones lack: an override
# and ledger entries (one with a ref, one without).
b = json.load(open("baselines/shared_ci/bdwgc.json"))
metrics = ["census.heap_used_after_full_bytes", "valgrind.ir", "rss.peak_bytes"]
probes = ["01_nursery_churn", "05_binary_trees"]
b["rules"] = {m: r for m, r in b["rules"].items() if m in metrics}
b["probes"] = {p: v for p, v in b["probes"].items() if p in probes}
b["cells"] = [c for c in b["cells"] if c["probe"] in probes and c["metric"] in metrics]
b["overrides"] = [o for o in b["overrides"] if o["probe"] in probes and o["metric"] in metrics]
b["ledger"] = [
    {"probe": "01_nursery_churn", "metric": "valgrind.ir", "old": 1000, "new": 1010.5,
     "reason": "a barrier on every store", "ref": "https://example.org/pr/1",
     "date": "2026-11-30T10:00:00Z", "who": "A. Person <a@example.org>"},
    {"probe": "05_binary_trees", "metric": "rss.peak_bytes", "old": 4194304, "new": 5e6,
     "reason": "bigger nursery", "date": "2026-11-30T10:00:00Z", "who": "ci"},
]
with open(corpus + "/baseline/trimmed-overrides-ledger.json", "w") as f:
    json.dump(b, f, indent=1)

# One cell, no overrides or ledger keys at all (both are optional).
b = json.load(open("baselines/shared_ci/gen.json"))
cell = b["cells"][0]
b["rules"] = {cell["metric"]: b["rules"][cell["metric"]]}
b["probes"] = {cell["probe"]: b["probes"][cell["probe"]]}
b["cells"] = [cell]
del b["overrides"], b["ledger"]
with open(corpus + "/baseline/trimmed-one-cell.json", "w") as f:
    json.dump(b, f, separators=(",", ":"))

# A manifest of one probe.
m = json.load(open("build/collectors/marksweep/manifest.json"))
m["probes"] = m["probes"][:1]
with open(corpus + "/manifest/trimmed-one-probe.json", "w") as f:
    json.dump(m, f, indent=1)

# Command lines from README.md, one file each, arguments separated by NUL bytes.
lines = [
    "--collector marksweep --size ci --rounds 3",
    "--build /tmp/ms-slow --size ci",
    "--collector gen --probes 01,02,05 --rounds 5 --warmup 0 --meters rusage,census,perf "
    "--events instructions:u,cycles:u --seed 7251130367381734917 --db results/gcratchet.db",
    "--profile shared_ci --collector marksweep --session 4 --format json --strict",
    "marksweep /tmp/ms-slow --probes 01 --seed 51",
    "--profile pinned_host --accept=faster --ref https://example.org/pr/1",
    "--session=12 --format=json --out report.json",
    "--timeout 0 --two-n 4 --cpu 1 --no-aslr --clean-env --env-offset 128 --lock-timeout 600 "
    "--idle-below 0.5 --idle-timeout 300",
    "01 1 01_nursery_churn 14 --help",
]
for i, line in enumerate(lines):
    argv = b"\0".join(a.encode() for a in line.split(" "))
    with open("%s/cli/readme-%02d" % (corpus, i), "wb") as f:
        f.write(argv)
    # session_opts: the first byte picks the verb (measure, ab, pin), as fuzz_session_opts.c reads.
    with open("%s/session_opts/readme-%02d" % (corpus, i), "wb") as f:
        f.write(bytes([i % 3]) + argv)

# json: the edges of RFC 8259 the strict reader must take, besides the inputs above.
edges = [
    b"[]", b"0", b'""', b"-0.5e-3", b' {"a": [true, false, null]} ',
    rb'{"s": "\u00e9\ud83d\ude00 \t \\ \" \/", "\u00e9": 1E+2}',
    b"[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]", b"9007199254740991",
    '{"caf\u00e9": "\u00e9"}'.encode(),  # raw UTF-8 in a key and a value
]
for i, text in enumerate(edges):
    with open("%s/json/edge-%02d.json" % (corpus, i), "wb") as f:
        f.write(text)
PY
for d in census baseline manifest; do
	for f in "$corpus/$d"/*; do
		cp "$f" "$corpus/json/$d-$(basename "$f")"
	done
done
echo "seed-corpus: $(find "$corpus" -type f | wc -l) files in $corpus"
