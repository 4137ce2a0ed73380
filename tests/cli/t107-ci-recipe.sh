#!/bin/sh
# needs: valgrind
# The CI recipes of docs/ci.md cannot rot: docs/ci.md quotes docs/ci/*.yml verbatim, and the
# pull-request jobs' shell steps (GitHub's run: steps, GitLab's before_script, script and
# after_script), taken from the YAML as written, run in order in a clean clone as the CI would
# run them. GitHub's, on unchanged code: each exits 0, the step summary has the verdict once,
# the JUnit file is valid XML with test cases, and every file the artifact step keeps is
# there. GitLab's, on a planted regression: the script fails, the after_script still writes
# every report, and they carry the regression. Both post their Markdown (under 60,000
# characters, the verdict first) to a stand-in for the GitHub and GitLab APIs: one comment on
# the pull request and one note on the merge request, which a second run edits, never adds to.
#
# Fast, not faithful in two ways, both outside the steps: the clone gets this tree's build/
# (sources made older than it, so make finds it up to date) instead of building for a minute,
# and the collector is epsilon (COLLECTOR, the recipes' own variable) judged against its
# committed baseline cut to the rusage and census meters (GCR_BASELINE_DIR): valgrind's Ir
# runs and the min-heap search would take 70 s more.
. "$(dirname "$0")/lib.sh"

GH=$TOP/docs/ci/github-ratchet.yml
GL=$TOP/docs/ci/gitlab-ci.yml

# ---- docs/ci.md shows the files as they are ---------------------------------------------
# Each is quoted after a line `<!-- docs/ci/NAME -->`, in a ```yaml block.
for f in "$TOP"/docs/ci/*.yml; do
	n=docs/ci/$(basename "$f")
	awk -v m="<!-- $n -->" '
		$0 == m { found = 1; next }
		found == 1 && /^```yaml$/ { found = 2; next }
		found == 2 && /^```$/ { exit }
		found == 2 { print }' "$TOP/docs/ci.md" >"$T/quoted.yml"
	if cmp -s "$f" "$T/quoted.yml"; then pass; else
		fail "docs/ci.md does not quote $n verbatim (after a line <!-- $n -->)"
		diff "$f" "$T/quoted.yml" | head -n 10 >&2
	fi
done

# ---- The steps, from the YAML -----------------------------------------------------------
# Into $T/gh and $T/gl: env.sh (the job's variables), the step scripts in order, the paths the
# artifact steps keep, and what the recipe must say (triggers, `if: always()`, when: always)
# as problems, one a line.
python3 - "$GH" "$GL" "$T" <<'EOF' 2>"$T/extract.err"
import os, shlex, sys, yaml

gh_path, gl_path, tmp = sys.argv[1:4]
problems = []

def write(path, text):
    with open(path, "w") as f:
        f.write(text)

def env_sh(env):
    return "".join("export %s=%s\n" % (k, shlex.quote(str(v))) for k, v in (env or {}).items())

# GitHub: YAML 1.1 reads the key `on` as true.
gh = yaml.safe_load(open(gh_path))
on = gh.get("on", gh.get(True)) or {}
if "pull_request" not in on:
    problems.append("github: the workflow does not run on pull_request")
job = gh["jobs"]["ratchet"]
d = os.path.join(tmp, "gh")
os.makedirs(d)
if "COLLECTOR" not in (job.get("env") or {}):
    problems.append("github: the job does not set COLLECTOR")
write(os.path.join(d, "env.sh"), env_sh(job.get("env")))
n = 0
saw_ratchet = False
for step in job["steps"]:
    name = step.get("name") or step.get("uses")
    if "run" in step:
        n += 1
        write(os.path.join(d, "step%02d.sh" % n), step["run"])
        write(os.path.join(d, "step%02d.name" % n), name)
        if "gcratchet ratchet" in step["run"]:
            saw_ratchet = True
        elif saw_ratchet and step.get("if") != "always()":
            problems.append("github: step %r after the ratchet has no if: always()" % name)
    elif step.get("uses", "").startswith("actions/upload-artifact"):
        if step.get("if") != "always()":
            problems.append("github: the artifact step has no if: always()")
        write(os.path.join(d, "artifacts"), step["with"]["path"])
if not saw_ratchet:
    problems.append("github: no step runs gcratchet ratchet")
comment = [st for st in job["steps"] if "ci-comment.py" in st.get("run", "")]
if not comment:
    problems.append("github: no step posts the pull-request comment (scripts/ci-comment.py)")
elif "GITHUB_TOKEN" not in (comment[0].get("env") or {}):
    problems.append("github: the comment step does not pass GITHUB_TOKEN")
if (job.get("permissions") or {}).get("pull-requests") != "write":
    problems.append("github: the job may not write pull-request comments (permissions)")

# GitLab: the ratchet job's scripts; before_script and script share a shell, after_script
# has its own.
gl = yaml.safe_load(open(gl_path))
job = gl["ratchet"]
d = os.path.join(tmp, "gl")
os.makedirs(d)
if not any("merge_request_event" in r.get("if", "") for r in job.get("rules", [])):
    problems.append("gitlab: the ratchet job does not run on merge requests")
if "COLLECTOR" not in (job.get("variables") or {}):
    problems.append("gitlab: the job does not set COLLECTOR")
write(os.path.join(d, "env.sh"), env_sh(job.get("variables")))
write(os.path.join(d, "step01.sh"), "\n".join(job.get("before_script", []) + job["script"]) + "\n")
write(os.path.join(d, "step01.name"), "before_script + script")
write(os.path.join(d, "step02.sh"), "\n".join(job["after_script"]) + "\n")
if not any("ci-comment.py" in line for line in job["after_script"]):
    problems.append("gitlab: the after_script posts no merge-request note (scripts/ci-comment.py)")
write(os.path.join(d, "step02.name"), "after_script")
art = job["artifacts"]
if art.get("when") != "always":
    problems.append("gitlab: artifacts are not kept when: always")
junit = art["reports"]["junit"]
if junit not in art["paths"]:
    problems.append("gitlab: the JUnit report is not among the artifacts' paths")
write(os.path.join(d, "artifacts"), "\n".join(art["paths"]) + "\n")
write(os.path.join(d, "junit"), junit + "\n")
write(os.path.join(tmp, "problems"), "".join(p + "\n" for p in problems))
EOF
if [ $? -ne 0 ]; then
	fail "reading the recipes' YAML: $(tail -n 3 "$T/extract.err")"
	finish
fi
expect_eq "$(cat "$T/problems")" "" "what the recipes must say"

# ---- A clean clone with this tree's build -----------------------------------------------
C=$T/clone
git clone -q "$TOP" "$C" || {
	fail "git clone $TOP"
	finish
}
find "$C" -path "$C/.git" -prune -o -exec touch -h -d '2000-01-01 00:00:00' {} +
mkdir "$C/build"
cp -a "$TOP/build/gcratchet" "$TOP/build/gcratchet-launch" "$TOP/build/obj" "$TOP/build/collectors" "$C/build/"

mkdir -p "$T/baselines/shared_ci"
jq 'def cut: startswith("valgrind.") or startswith("perf.") or startswith("minheap.");
	.meters = ["rusage", "census"] | .cells |= map(select(.metric | cut | not))
	| .rules |= with_entries(select(.key | cut | not))' \
	"$TOP/baselines/shared_ci/epsilon.json" >"$T/baselines/shared_ci/epsilon.json"
# What each CI sets that the steps use, and the fast choices above.
cat >"$T/gh/ci.sh" <<EOF
export CI=true GITHUB_ACTIONS=true GITHUB_WORKSPACE='$C' GITHUB_STEP_SUMMARY='$T/summary.md'
EOF
cat >"$T/gl/ci.sh" <<EOF
export CI=true GITLAB_CI=true CI_PROJECT_DIR='$C'
unset GITHUB_STEP_SUMMARY
EOF
# GCR_FLEET_URL is what the repository's secret (GitLab: its variable) would set.
cat >"$T/fast.sh" <<EOF
export HOME='$T/home' COLLECTOR=epsilon GCR_BASELINE_DIR='$T/baselines' GCR_FLEET_URL='$T/fleet.db'
unset GCR_DB
EOF
mkdir -p "$T/home"

# ---- A stand-in for the GitHub and GitLab APIs the comment step calls -----------------------
python3 "$TOP/tests/cli/ci-api-standin.py" "$T/api.log" "$T/api.port" &
api_pid=$!
trap 'kill $api_pid 2>/dev/null; rm -rf "$T"' EXIT
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -s "$T/api.port" ] && break; sleep 0.2; done
API="http://127.0.0.1:$(cat "$T/api.port")"
echo '{"pull_request": {"number": 5}}' >"$T/event.json"
{
	echo "export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH='$T/event.json' GITHUB_REPOSITORY=o/r"
	echo "export GITHUB_API_URL='$API' GITHUB_TOKEN=t107-token GITHUB_RUN_ID=7 GITHUB_SERVER_URL=https://gh.example"
} >>"$T/gh/ci.sh"
{
	echo "export CI_MERGE_REQUEST_IID=9 CI_PROJECT_ID=group/proj CI_API_V4_URL='$API/api/v4'"
	echo "export GCR_NOTE_TOKEN=t107-note CI_JOB_URL=https://gl.example/job/3"
} >>"$T/gl/ci.sh"
# comments THREAD: how many comments the pull (merge) request whose API path ends in THREAD
# holds; the first one's body goes to $T/comment.0.
comments() {
	python3 -c 'import json, sys
try:
    s = json.load(open(sys.argv[1]))
except OSError:
    s = {}
items = next((v for k, v in s.items() if k.endswith(sys.argv[2])), [])
if items:
    open(sys.argv[3] + "/comment.0", "w").write(items[0]["body"])
print(len(items))' "$T/api.log.state" "$1" "$T"
}
# run_step DIR NAME: the step of DIR named NAME once more, as run_job runs it: exit 0.
run_step() {
	for s in "$1"/step*.sh; do
		[ "$(cat "${s%.sh}.name")" = "$2" ] || continue
		if (cd "$C" && bash -c '. "$1/env.sh"; . "$2"; . "$1/ci.sh"; exec bash -e "$3"' _ "$1" \
			"$T/fast.sh" "$s") >"$T/step.out" 2>&1; then pass; else
			fail "$(basename "$1") step \"$2\" failed the second time"
			tail -n 10 "$T/step.out" >&2
		fi
	done
}

# run_job DIR STATUS...: each step of DIR in order, in the clone, under bash -e as both CIs
# run them; the i-th must exit with the i-th STATUS (the last one given for the rest).
run_job() {
	dir=$1
	shift
	for s in "$dir"/step*.sh; do
		want=$1
		[ $# -gt 1 ] && shift
		name=$(cat "${s%.sh}.name")
		(cd "$C" && bash -c '. "$1/env.sh"; . "$2"; . "$1/ci.sh"; exec bash -e "$3"' _ "$dir" \
			"$T/fast.sh" "$s") >"$T/step.out" 2>&1
		st=$?
		if [ "$st" -eq "$want" ]; then pass; else
			fail "$(basename "$dir") step \"$name\" exited $st, expected $want"
			tail -n 25 "$T/step.out" >&2
		fi
	done
}

# the_artifacts DIR: every path the artifact step keeps is a non-empty file in the clone.
the_artifacts() {
	while IFS= read -r a; do
		[ -n "$a" ] || continue
		[ -s "$C/$a" ] && pass || fail "$(basename "$1"): the artifact $a is not there"
	done <"$1/artifacts"
}

# the_junit FILE FAILURES: valid XML with test cases, FAILURES of them failed.
the_junit() {
	if xmllint --noout "$1" 2>"$T/xmllint.err"; then pass; else
		fail "$1 is not valid XML: $(head -n 3 "$T/xmllint.err")"
	fi
	cases=$(xmllint --xpath 'count(//testcase)' "$1" 2>/dev/null || echo 0)
	[ "${cases%.*}" -gt 0 ] && pass || fail "$1 has no testcase"
	expect_eq "$(xmllint --xpath 'count(//testcase/failure)' "$1" 2>/dev/null)" "$2" "failed test cases in $1"
}

# ---- GitHub Actions ----------------------------------------------------------------------
start=$(date +%s)
run_job "$T/gh" 0
expect_eq "$(grep -c '^\*\*verdict: ok\*\*' "$T/summary.md" 2>/dev/null)" 1 \
	"the step summary's verdict lines"
the_artifacts "$T/gh"
the_junit "$C/gcratchet-junit.xml" 0
expect_grep '<html' "$C/gcratchet-report.html"
# The check page leads with the verdict and links the session's page kept beside it.
expect_grep '^<h1>gcratchet check: ' "$C/gcratchet-check.html"
expect_grep '^<div class="banner good" id="verdict">verdict: ok ' "$C/gcratchet-check.html"
expect_grep '<a href="gcratchet-report.html">' "$C/gcratchet-check.html"
# One comment on pull request 5, the Markdown under its marker; a later push edits it.
size=$(wc -c <"$C/gcratchet-comment.md")
expect_eq "$([ "$size" -lt 60000 ] && echo under)" under "the comment's Markdown is $size bytes"
expect_eq "$(comments issues/5)" 1 "comments on the pull request after the job"
expect_grep '^<!-- gcratchet-comment ratchet -->$' "$T/comment.0"
expect_grep '^\*\*verdict: ok\*\*' "$T/comment.0"
expect_grep 'artifacts of https://gh.example/o/r/actions/runs/7' "$T/comment.0"
run_step "$T/gh" "Comment on the pull request"
expect_eq "$(comments issues/5)" 1 "comments on the pull request after a second push"
expect_eq "$(grep -c '^PATCH /repos/o/r/issues/comments/' "$T/api.log")" 1 "the second push edited the comment"
expect_eq "$(sqlite3 "$T/fleet.db" "SELECT count(*) FROM sessions")" 1 "the GitHub job pushed its session to the fleet"
echo "github job: $(($(date +%s) - start)) s"

# ---- GitLab CI, in the clone made clean again, on a regression --------------------------
# The same ratchet as above, so here the other verdict: a baseline whose probe 01 allocated
# 1 MiB less (census.alloc_bytes is exact) makes the script exit 1, a regression, and the
# after_script still writes every report, the regression in them.
git -C "$C" clean -fdxq -e /build/
rm -f "$T/summary.md"
mkdir -p "$T/planted/shared_ci"
jq '.cells |= map(if .probe == "01_nursery_churn" and .metric == "census.alloc_bytes"
	then .median -= 1048576 | .min -= 1048576 | .max -= 1048576 else . end)' \
	"$T/baselines/shared_ci/epsilon.json" >"$T/planted/shared_ci/epsilon.json"
echo "export GCR_BASELINE_DIR='$T/planted'" >>"$T/gl/ci.sh"
start=$(date +%s)
run_job "$T/gl" 1 0
the_artifacts "$T/gl"
the_junit "$C/$(cat "$T/gl/junit")" 1
expect_grep '^\*\*verdict: REGRESSION\*\*' "$C/gcratchet-summary.md"
expect_grep 'census.alloc_bytes.*REGRESSED' "$C/gcratchet-summary.md"
expect_eq "$(head -n 1 "$C/gcratchet-summary.md" | cut -c1-31)" "### gcratchet check: REGRESSION" \
	"the summary's first line is the verdict"
expect_grep '<div class="banner bad" id="verdict">verdict: REGRESSION ' "$C/gcratchet-check.html"
expect_grep 'census.alloc_bytes</td>.*REGRESSED' "$C/gcratchet-check.html"
# One note on merge request 9; the pipeline of a later push edits it.
expect_eq "$(comments merge_requests/9)" 1 "notes on the merge request after the job"
expect_grep '^\*\*verdict: REGRESSION\*\*' "$T/comment.0"
run_step "$T/gl" "after_script"
expect_eq "$(comments merge_requests/9)" 1 "notes on the merge request after a second pipeline"
expect_eq "$(grep -c '^PUT /api/v4/projects/group%2Fproj/merge_requests/9/notes/' "$T/api.log")" 1 \
	"the second pipeline edited the note"
[ ! -e "$T/summary.md" ] && pass || fail "the GitLab job wrote a GitHub step summary"
expect_eq "$(sqlite3 "$T/fleet.db" "SELECT count(*) FROM sessions")" 2 "the GitLab job pushed its session too"
echo "gitlab job: $(($(date +%s) - start)) s"

finish
