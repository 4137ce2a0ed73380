#!/bin/sh
# The nightly recipe (docs/ci/github-nightly.yml) cannot rot: its report steps, taken from the
# YAML as written, run in order after a session of the kind its Ratchet step stores, against a
# pinned_host baseline pinned here, and each exits 0 and writes what the artifact step keeps.
# Its report --history step names probe 01 by number, as every verb takes it (issue 29: it
# exited 2 every night). The Dependencies, Build, doctor and Ratchet steps are left out: the
# build is this tree's, and doctor and --idle-below wait for a quiet host this is not.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
NIGHTLY=$TOP/docs/ci/github-nightly.yml

python3 - "$NIGHTLY" "$T/gh" <<'PY' 2>"$T/extract.err"
import os, shlex, sys, yaml
path, tmp = sys.argv[1:3]
os.makedirs(tmp)
job = yaml.safe_load(open(path))["jobs"]["pinned-host"]
with open(os.path.join(tmp, "env.sh"), "w") as f:
    for k, v in (job.get("env") or {}).items():
        if k != "GCR_DB":  # the host's own store; the test's is $GCR_DB
            f.write("export %s=%s\n" % (k, shlex.quote(str(v))))
n = 0
for step in job["steps"]:
    if "run" in step and step.get("if") == "always()":
        n += 1
        with open(os.path.join(tmp, "step%02d.sh" % n), "w") as f:
            f.write(step["run"])
    elif step.get("uses", "").startswith("actions/upload-artifact"):
        with open(os.path.join(tmp, "artifacts"), "w") as f:
            f.write(step["with"]["path"])
PY
[ $? -eq 0 ] && pass || { fail "reading the nightly recipe: $(tail -n 3 "$T/extract.err")"; finish; }
. "$T/gh/env.sh"
[ -n "${COLLECTOR:-}" ] && pass || fail "the nightly job sets no COLLECTOR"

# What the Ratchet step leaves: a pinned_host baseline's session, then a second night's.
M="--collector $COLLECTOR --probes 01,02 --size ci --rounds 11 --warmup 0 --meters rusage,census"
expect_status 0 "$GCR" measure $M
expect_status 0 "$GCR" baseline pin --profile pinned_host --collector "$COLLECTOR" \
	--session latest --accept-noise "t170 runs on any host"
expect_status 0 "$GCR" measure $M

# run_job WORKDIR STEPDIR MIN WHAT: in a fresh WORKDIR (build/ linked, as in a checkout), runs
# STEPDIR's step*.sh in order, each of which must exit 0, at least MIN of them; then every file
# STEPDIR/artifacts names must have been written.
run_job() {
	mkdir "$1" && cd "$1" || exit 2
	ln -s "$TOP/build" build
	steps=0
	for s in "$2"/step*.sh; do
		steps=$((steps + 1))
		if sh -e "$s" >"$T/out" 2>"$T/err"; then pass; else
			fail "$4 step $steps: exit $?: $(cat "$s")"
			tail -n 5 "$T/err" >&2
		fi
	done
	[ "$steps" -ge "$3" ] && pass || fail "$4 has $steps report steps, expected $3"
	while read -r f; do
		[ -z "$f" ] && continue
		[ -s "$f" ] && pass || fail "$4 keeps $f, which no step wrote"
	done <"$2/artifacts"
}
run_job "$T/job" "$T/gh" 2 "the GitHub nightly job"
grep -q '01_nursery_churn' gcratchet-history.html && pass ||
	fail "the history page does not name 01_nursery_churn"

# Every spelling of a probe reaches the same history; an unknown number is named.
cd "$T" || exit 2
for p in 1 01 01_nursery_churn; do
	"$GCR" history --collector "$COLLECTOR" --probe "$p" --metric census.alloc_bytes \
		--format json >"$T/h.$p" 2>"$T/err"
	expect_eq "$(jq -r '.probe' "$T/h.$p") $(jq '.points | length' "$T/h.$p")" \
		"01_nursery_churn 2" "history --probe $p"
done
expect_status 2 "$GCR" history --collector "$COLLECTOR" --probe 7 --metric census.alloc_bytes
expect_grep 'unknown probe "7" \(valid: 01_nursery_churn, 02_survivor_promotion\)' "$T/err"
# GitLab's nightly job (docs/ci/gitlab-ci.yml, ratchet-pinned-host) the same way: after the
# same nights, its after_script lines, as written, each exit 0 and write what its artifacts
# keep. (t107 runs GitLab's merge-request job whole.)
python3 - "$TOP/docs/ci/gitlab-ci.yml" "$T/gl" <<'PY' 2>"$T/extract.err"
import os, shlex, sys, yaml
path, out = sys.argv[1:3]
os.makedirs(out)
job = yaml.safe_load(open(path))["ratchet-pinned-host"]
assert any(r.get("if", "").find("schedule") >= 0 for r in job["rules"]), "not scheduled"
with open(os.path.join(out, "env.sh"), "w") as f:
    for k, v in (job.get("variables") or {}).items():
        if k != "GCR_DB":
            f.write("export %s=%s\n" % (k, shlex.quote(str(v))))
for n, line in enumerate(job["after_script"], 1):
    with open(os.path.join(out, "step%02d.sh" % n), "w") as f:
        f.write(line + "\n")
with open(os.path.join(out, "artifacts"), "w") as f:
    f.write("\n".join(job["artifacts"]["paths"]) + "\n")
assert job["artifacts"]["when"] == "always", "artifacts not kept when the job fails"
PY
[ $? -eq 0 ] && pass || { fail "reading the GitLab recipe: $(tail -n 3 "$T/extract.err")"; finish; }
. "$T/gl/env.sh"
run_job "$T/gljob" "$T/gl" 3 "the GitLab nightly job"
expect_grep '<testcase ' gcratchet-junit.xml "the GitLab nightly JUnit report has no test case"
cd "$T" || exit 2
finish
