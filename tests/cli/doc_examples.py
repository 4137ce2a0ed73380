#!/usr/bin/env python3
"""doc_examples.py — runs the worked examples of a Markdown file and compares what they print
with what the file shows (issue 29, item 5).

An example is a fenced block right after a marker line:

    <!-- example: NAME -->                      run it
    <!-- example: NAME; vary REGEX; vary REGEX --> and let these figures differ too

In the block, a line "$ COMMAND" is run with sh in the checkout's top folder, with a
database and bench lock of the file's own (the examples of a file run in order and share
them, so a later one may use an earlier one's session) and "/tmp/" in the command standing
for a scratch folder of the file's own (where the output says the scratch folder, it is
read as /tmp/ again); the lines up to the next "$ " line are what COMMAND prints on stdout (a command ending in 2>&1
shows its stderr too), in order, each line the whole line. A line "..." stands for any number
of lines. Figures that change from run to run are allowed to differ: times ("0.212 s",
"8.3 s", "~1m05s left"), sizes (MiB, MB, KiB, kB, bytes), seeds, hashes, dates, paths to the
build folders, a host's name, a run's Ir, decimals (p, q, percentages), and whatever the
marker's vary patterns match; every other character, counts included, must be the same.
The example's database is results/gcratchet.db, the default, in commands and in what they print
(it is a file of the example's own, not the checkout's).

Usage: doc_examples.py GCRATCHET TOP FILE...   (exit 0 when every example printed what it shows)
"""
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!-- example: ([A-Za-z0-9_.-]+)((?:; vary [^;]+)*) -->$")
VARY = [
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",            # timestamps
    r"\bseed \d+",                                  # shuffle seeds
    r"\b[0-9a-f]{7,40}\b(\.\.\.)?",                 # commits and digests
    r"~?\d+m\d\ds left|~\d+s left",                 # the time-left estimate
    r"\b\d+(\.\d+)? ?(s|ms|us|ns|MiB|KiB|GiB|MB|kB|GB|B)\b",  # times and sizes
    r"(\S*/)?build/collectors/",                    # where the checkout is
    r"\bon \S+(, session)",                         # the host a baseline was pinned on
    r"\bhost \S+",                                  # the host a session ran on
    r"\bIr \d+",                                    # a run's Ir (the compiler's)
    r"[+-]?\d+\.\d+%?",                              # decimals: p, q, MMU, percentages
]
PLACE = "\x00"


def normalise(line, vary):
    for pattern in VARY + vary:
        line = re.sub(pattern, PLACE, line)
    return " ".join(line.split())


def matches(want, got, vary):
    """want (with "..." lines) against got, line by line after normalise."""
    want = [w if w.strip() == "..." else normalise(w, vary) for w in want]
    got = [normalise(g, vary) for g in got]
    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            ok = j == len(got)
        elif want[i].strip() == "...":
            ok = any(at(i + 1, k) for k in range(j, len(got) + 1))
        else:
            ok = j < len(got) and want[i] == got[j] and at(i + 1, j + 1)
        memo[(i, j)] = ok
        return ok

    return at(0, 0)


def examples(path):
    """(name, vary patterns, line number, [(command, [lines shown])]) for each marked block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for n, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        vary = [v.strip()[len("vary "):] for v in m.group(2).split(";") if v.strip()]
        if n + 1 >= len(lines) or not lines[n + 1].startswith("```"):
            sys.exit(f"{path}:{n + 1}: the example marker is not followed by a ``` block")
        steps, k = [], n + 2
        while k < len(lines) and not lines[k].startswith("```"):
            if lines[k].startswith("$ "):
                steps.append((lines[k][2:], []))
            elif steps:
                steps[-1][1].append(lines[k])
            else:
                sys.exit(f"{path}:{k + 1}: example {m.group(1)}: output before any $ command")
            k += 1
        if not steps:
            sys.exit(f"{path}:{n + 1}: example {m.group(1)} has no $ command")
        found.append((m.group(1), vary, n + 1, steps))
    return found


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: doc_examples.py GCRATCHET TOP FILE...")
    gcr, top = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failed = passed = 0
    for path in sys.argv[3:]:
        with tempfile.TemporaryDirectory(prefix="gcratchet-doc.") as work:
            os.mkdir(os.path.join(work, "bin"))
            os.symlink(gcr, os.path.join(work, "bin", "gcratchet"))
            env = dict(os.environ)
            env["PATH"] = os.path.join(work, "bin") + os.pathsep + env.get("PATH", "")
            env["GCR_DB"] = os.path.join(work, "results", "gcratchet.db")
            env["GCR_LOCK_FILE"] = os.path.join(work, "bench.lock")
            env.pop("NO_COLOR", None)
            os.mkdir(os.path.join(work, "results"))
            for name, vary, line, steps in examples(path):
                for command, want in steps:
                    run = command.replace("/tmp/", work + "/")
                    run = run.replace("results/gcratchet.db", env["GCR_DB"])
                    r = subprocess.run(["sh", "-c", run],
                                       cwd=top, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, errors="replace",
                                       timeout=600)
                    out = r.stdout.replace(env["GCR_DB"], "results/gcratchet.db")
                    out = out.replace(work + "/", "/tmp/")
                    got = out.rstrip("\n").split("\n") if out else []
                    while want and want[-1] == "":
                        want = want[:-1]
                    if matches(want, got, vary):
                        passed += 1
                        continue
                    failed += 1
                    print(f"FAILED: {path}:{line}: example {name}: $ {command} "
                          f"(exit {r.returncode}) printed what the file does not show:",
                          file=sys.stderr)
                    for w in want:
                        print(f"  shown:   {w}", file=sys.stderr)
                    for g in got:
                        print(f"  printed: {g}", file=sys.stderr)
                    for e in r.stderr.rstrip("\n").split("\n")[-5:]:
                        print(f"  stderr:  {e}", file=sys.stderr)
    print(f"doc_examples: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
