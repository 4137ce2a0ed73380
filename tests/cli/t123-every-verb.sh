#!/bin/sh
# Every verb once, and most of their outputs, on scripted probes: quick enough to run again
# under the sanitizers. tests/run.sh runs it (with others) against build-asan/gcratchet, where
# a leak (LeakSanitizer, issue 25 item 22: check's text table leaked its line buffer) or any
# sanitizer report makes the verb exit non-zero and the check below fail.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
# 01_steady honours the heap limit of gcr.h (it needs 3 MiB).
echo 3 >"$B/heap.01_steady"
M="--size ci --warmup 0 --meters rusage,census"
# v STATUS COMMAND...: the verb ends with the status, and no sanitizer spoke.
v() {
	want=$1
	shift
	expect_status "$want" "$@"
	expect_no_grep "Sanitizer|runtime error" "$T/err" "no sanitizer report from: $*"
}
# v_ab JSON COMMAND...: an A/A whose verdict may be either: its status is the one its JSON's
# outcome says (ok 0, worse 1; a report under a sanitizer exits 23, which is neither).
v_ab() {
	expect_ab_outcome "$@"
	expect_no_grep "Sanitizer|runtime error" "$T/err" "no sanitizer report from: $*"
}

v 0 "$GCR" --help
v 0 "$GCR" version
v 0 "$GCR" completion bash
v 0 "$GCR" completion synopsis
v 0 "$GCR" completion options sweep
v 2 "$GCR" completion options nosuch
v 0 "$GCR" measure --help
# shellcheck disable=SC2086 # $M is words
v 0 "$GCR" measure --build "$B" --rounds 2 $M
v 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1
v 0 "$GCR" baseline validate "$T/baselines/shared_ci/scripted.json"
for f in table md json junit; do
	v 0 "$GCR" check --profile shared_ci --collector scripted --format "$f"
	v 0 "$GCR" check --profile shared_ci --collector scripted --format "$f" --all
done
# A regression, in every format: the rows that are not ok are drawn.
echo 1100 >"$B/alloc.02_other"
# shellcheck disable=SC2086
v 0 "$GCR" measure --build "$B" --rounds 2 $M
rm "$B/alloc.02_other"
for f in table md json junit; do
	v 1 "$GCR" check --profile shared_ci --collector scripted --format "$f"
done
v 1 "$GCR" check --profile shared_ci --collector scripted --md "$T/c.md" --html "$T/c.html" \
	--samples-href r.html
# No valgrind run here, so no functions: explain says so (its error path, freed like the rest).
v 2 "$GCR" explain --profile shared_ci --collector scripted
v 0 "$GCR" baseline update --profile shared_ci --collector scripted --session 1
v 1 "$GCR" baseline update --profile shared_ci --collector scripted --session 2
v 0 "$GCR" baseline update --profile shared_ci --collector scripted --session 2 \
	--accept "planted in t123"
# shellcheck disable=SC2086
v_ab "$T/ab.json" "$GCR" ab "$B" "$B" --probes 01,02 --rounds 3 $M \
	--md "$T/ab.md" --json "$T/ab.json" --html "$T/ab.html"
v 0 "$GCR" export --session 1 --out "$T/export.json"
v 0 "$GCR" report --session 1 --md "$T/r.md" --json "$T/r.json" --html "$T/r.html"
v_ab "$T/a.json" "$GCR" report --session 3 --md "$T/a.md" --json "$T/a.json" --html "$T/a.html"
v 2 "$GCR" explain --session 3
for what in probes collectors sessions metrics; do
	v 0 "$GCR" list "$what"
done
v 0 "$GCR" history --collector scripted --probe 01_steady --metric census.alloc_bytes
v 0 "$GCR" history --collector scripted --probe 02_other --metric census.alloc_bytes \
	--format json
v 0 "$GCR" report --history --collector scripted --probe 02_other \
	--metric census.alloc_bytes --out "$T/h.html"
v 0 "$GCR" push --to "$T/fleet.db"
v 0 "$GCR" pull --from "$T/fleet.db" --db "$T/copy.db"
mkdir "$T/foreign"
cp "$B/01_steady" "$T/foreign/"
v 0 "$GCR" manifest "$T/foreign" --collector scripted --version 1.0
v 2 "$GCR" manifest "$T/foreign"
v 0 "$GCR" minheap --build "$B" --probes 01 --size ci --repeats 1 --out "$T/mh.json"
expect_grep "^scripted +01_steady +3 " "$T/out" "the search finds 3 MiB"
v 0 "$GCR" sweep --build "$B" --probes 01 --factors 1,2 --repeats 1 $M --rounds 1
v 0 "$GCR" report --session latest --md "$T/s.md" --json "$T/s.json" --html "$T/s.html"
v 0 "$GCR" ratchet --profile shared_ci --build "$B" --rounds 2
# doctor ends 0 or 2 by what this host has: the status must be the one its verdict line says.
"$GCR" doctor --profile shared_ci >"$T/out" 2>"$T/err"
status=$?
case "$status:$(grep '^verdict: ' "$T/out")" in
"0:verdict: shared_ci can be measured here" | "2:verdict: shared_ci cannot be measured here"*) pass ;;
*) fail "doctor: exit $status disagrees with its verdict, or has none: $(tail -n 2 "$T/out")" ;;
esac
expect_no_grep "Sanitizer|runtime error" "$T/err" "no sanitizer report from doctor"
# bisect over a scripted history (bisect-repo.sh): found, shown again, and one with no search.
. "$TOP/tests/cli/bisect-repo.sh"
S="$T/bisect-repo"
script_repo "$S"
script_commit "$S" 1
script_commit "$S" 2
script_commit "$S" 3 alloc-02_steady.txt=2000
script_commit "$S" 4
v 0 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good HEAD~3 --bad HEAD --probe 01,02 \
	--metric census.alloc_bytes --cache "$T/bisect-cache" --json "$T/bisect.json"
v 0 "$GCR" bisect --resume 1 --json "$T/bisect-again.json"
v 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good HEAD~1 --bad HEAD --probe 02 \
	--metric census.alloc_bytes --cache "$T/bisect-cache"
# Errors are paths too: what they allocate before failing is freed.
v 2 "$GCR" check --profile shared_ci --collector nosuch
v 2 "$GCR" export --session 99
v 2 "$GCR" report --session 99 --md "$T/x.md"
v 2 "$GCR" measure --build "$T/nowhere"
v 2 "$GCR" history --collector nosuch --probe 01 --metric census.alloc_bytes
v 2 "$GCR" bisect --build-cmd "sh build.sh" --repo "$S" --good nosuch --bad HEAD --probe 01 \
	--metric census.alloc_bytes
finish
