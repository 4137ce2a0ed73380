#!/bin/sh
# make install puts the bash completion and a man page per verb beside the CLI (issue 43, item
# 10), and ci-comment.py --dry-run shows a comment without posting it. Under DESTDIR: the
# completion is `gcratchet completion bash`'s script at share/bash-completion/completions/
# gcratchet, and bash completes verbs from it; share/man/man1/ has gcratchet.1, naming every
# verb, and gcratchet-VERB.1 for each, which man renders without a warning and which names
# every option VERB --help lists; uninstall removes them and nothing else there. ci-comment.py
# --dry-run says where it would post (GitHub, GitLab, neither) and prints the body, exit 0,
# with no request: the API it names is a closed port, which a real run fails to reach. The CI
# recipes (docs/ci/) fetch the whole history, which history and report --history order by.
. "$(dirname "$0")/lib.sh"

S=$T/stage
P=$S/usr/local
COMP=$P/share/bash-completion/completions/gcratchet
MAN=$P/share/man/man1
mkdir -p "$MAN"
echo "another package's page" >"$MAN/other.1"

expect_status 0 make -s -C "$TOP" install DESTDIR="$S" PREFIX=/usr/local

# ---- The completion --------------------------------------------------------------------
if [ -f "$COMP" ]; then
	pass
	"$GCR" completion bash >"$T/comp.want"
	expect_eq "$(cmp -s "$COMP" "$T/comp.want" && echo same)" same \
		"the installed completion is gcratchet completion bash's script"
	if command -v bash >/dev/null; then
		# What bash-completion does at the first Tab after `gcratchet`: source the file.
		got=$(bash -c '. "$1"; COMP_WORDS=(gcratchet che); COMP_CWORD=1; _gcratchet
			echo "${COMPREPLY[*]}"' sh "$COMP" 2>&1)
		expect_eq "$got" check "bash completes \"gcratchet che\" from the installed file"
	else
		skip "no bash: the installed completion is not sourced"
	fi
else
	fail "make install did not write $COMP"
fi

# ---- The man pages: one per verb, each rendering cleanly with every option -------------
"$GCR" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' >"$T/verbs"
[ "$(wc -l <"$T/verbs")" -ge 15 ] && pass || fail "gcratchet --help lists $(wc -l <"$T/verbs") verbs"
if command -v man >/dev/null; then
	render() { MANWIDTH=80 man -l --warnings "$1"; }
elif command -v groff >/dev/null; then
	render() { groff -man -ww -Tutf8 -P-c "$1"; }
else
	render() { return 1; }
fi
if ! command -v man >/dev/null && ! command -v groff >/dev/null; then
	skip "neither man nor groff: the pages are not rendered"
elif [ ! -f "$MAN/gcratchet.1" ]; then
	fail "make install did not write $MAN/gcratchet.1"
else
	render "$MAN/gcratchet.1" >"$T/index" 2>"$T/index.err"
	expect_eq "$(cat "$T/index.err")" "" "warnings rendering gcratchet.1"
	while read -r verb; do
		grep -q "gcratchet-$verb(1)" "$T/index" && pass ||
			fail "gcratchet.1 does not name gcratchet-$verb(1)"
		page=$MAN/gcratchet-$verb.1
		if [ ! -f "$page" ]; then
			fail "make install did not write $page"
			continue
		fi
		render "$page" >"$T/page" 2>"$T/page.err"
		expect_eq "$(cat "$T/page.err")" "" "warnings rendering gcratchet-$verb.1"
		grep -q "^NAME" "$T/page" && grep -q "^SYNOPSIS" "$T/page" && pass ||
			fail "gcratchet-$verb.1 has no NAME or SYNOPSIS"
		# Every option --help lists (its subcommands' too), in ASCII hyphens, as typed.
		"$GCR" "$verb" --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' | sort -u >"$T/opts"
		missing=""
		while read -r opt; do
			grep -qF -- "$opt" "$T/page" || missing="$missing $opt"
		done <"$T/opts"
		expect_eq "$missing" "" "options of $verb --help missing from gcratchet-$verb.1"
		# The exit statuses, as --help words them.
		want=$("$GCR" "$verb" --help | sed -n '/^Exit status: /,$p' | tr -s ' \n' '  ' |
			sed 's/^Exit status: //; s/ *$//')
		if [ -n "$want" ]; then
			tr -s ' \n' '  ' <"$T/page" | grep -qF -- "$want" && pass ||
				fail "gcratchet-$verb.1 does not say its exit statuses: $want"
		fi
	done <"$T/verbs"
fi

# ---- Uninstall removes them, and only them ------------------------------------------------
expect_status 0 make -s -C "$TOP" uninstall DESTDIR="$S" PREFIX=/usr/local
left=$(find "$P/share" -type f | sed "s|^$P/||" | sort | tr '\n' ' ')
expect_eq "$left" "share/man/man1/other.1 " "what uninstall left under share/"

# ---- ci-comment.py --dry-run --------------------------------------------------------------
CC=$TOP/scripts/ci-comment.py
printf '## gcratchet: ok\n\nnothing moved\n' >"$T/c.md"
echo '{"pull_request": {"number": 7}}' >"$T/event.json"
# A port nothing listens on: a request there fails at once.
DEAD=http://127.0.0.1:9
gh() {
	env -u GITLAB_CI GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
		GITHUB_EVENT_PATH="$T/event.json" GITHUB_REPOSITORY=o/r GITHUB_API_URL=$DEAD \
		GITHUB_TOKEN=secret-t207 "$@"
}
expect_status 0 gh python3 "$CC" "$T/c.md" --dry-run
expect_grep "would post [0-9]+ characters to pull request #7 of o/r: POST $DEAD/repos/o/r/issues/7/comments, or PATCH $DEAD/repos/o/r/issues/comments/ID" "$T/out"
expect_grep '^<!-- gcratchet-comment ratchet -->$' "$T/out"
expect_grep '^nothing moved$' "$T/out"
expect_no_grep 'could not post|secret-t207' "$T/out"
# The same without --dry-run does try that address (and fails there, warning, exit 0).
expect_status 0 gh python3 "$CC" "$T/c.md"
expect_grep 'could not post the comment' "$T/out"
# GitLab, with another name; the project's path quoted as the API wants it.
expect_status 0 env -u GITHUB_ACTIONS GITLAB_CI=true CI_MERGE_REQUEST_IID=3 \
	CI_API_V4_URL=$DEAD/api/v4 CI_PROJECT_ID=group/proj python3 "$CC" "$T/c.md" --dry-run --name nightly
expect_grep "to merge request !3 of project group/proj: POST $DEAD/api/v4/projects/group%2Fproj/merge_requests/3/notes, or PUT .*/notes/ID" "$T/out"
expect_grep 'GCR_NOTE_TOKEN is NOT set' "$T/out"
expect_grep '^<!-- gcratchet-comment nightly -->$' "$T/out"
# Neither: nothing to post to, and still the body.
expect_status 0 env -u GITHUB_ACTIONS -u GITLAB_CI python3 "$CC" "$T/c.md" --dry-run
expect_grep 'would post nothing: neither GitHub Actions nor GitLab CI' "$T/out"
expect_grep '^nothing moved$' "$T/out"

# ---- The recipes fetch the whole history (history orders sessions by it) -------------------
# Every GitHub checkout step with fetch-depth: 0, every GitLab job with GIT_DEPTH 0.
if python3 -c 'import yaml' 2>/dev/null; then
	python3 - "$TOP"/docs/ci/*.yml >"$T/shallow" <<'EOF'
import sys, yaml
for path in sys.argv[1:]:
    doc = yaml.safe_load(open(path))
    for name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/checkout"):
                if str((step.get("with") or {}).get("fetch-depth")) != "0":
                    print("%s: job %s checks out without fetch-depth: 0" % (path, name))
    if "jobs" not in doc:
        for name, job in doc.items():
            if isinstance(job, dict) and "script" in job:
                if str((job.get("variables") or {}).get("GIT_DEPTH")) != "0":
                    print("%s: job %s clones without GIT_DEPTH: 0" % (path, name))
EOF
	expect_eq "$(cat "$T/shallow")" "" "shallow checkouts in docs/ci"
else
	skip "no python3-yaml: the recipes' checkouts are not read"
fi
finish
