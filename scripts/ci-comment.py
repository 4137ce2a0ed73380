#!/usr/bin/env python3
"""ci-comment.py FILE.md [--name NAME] [--strict]

Posts FILE.md (gcratchet's Markdown: ratchet --md, check --format md) as one comment on the
pull request (GitHub Actions) or one note on the merge request (GitLab CI) the job runs for,
and edits that comment on every later push instead of adding another: the comment carries a
hidden marker, <!-- gcratchet-comment NAME -->, and the one that has it is updated. NAME
(default "ratchet") tells two jobs' comments apart (a nightly, another collector).

GitHub: needs GITHUB_TOKEN (the job's, with `permissions: pull-requests: write`) and runs on
pull_request events; the number comes from $GITHUB_EVENT_PATH. GitLab: needs GCR_NOTE_TOKEN,
a project access token with the api scope (CI_JOB_TOKEN cannot write notes), and runs in a
merge request pipeline (CI_MERGE_REQUEST_IID). Anywhere else it says why it does nothing.

The comment is a convenience: the verdict is the ratchet step's. A failed API call is
reported and the script exits 0, unless --strict (exit 1). Standard library only; the token
is sent in a header and never printed.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

# GitHub refuses a comment body over 65,536 characters; gcratchet's Markdown stays below 60,000.
LIMIT = 65000


def say(msg, warning=False):
    if warning and os.environ.get("GITHUB_ACTIONS") == "true":
        print("::warning::ci-comment: " + msg)
    else:
        print("ci-comment: " + msg)


def request(method, url, headers, body=None):
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers = dict(headers, **{"Content-Type": "application/json"})
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read().decode("utf-8")
        return json.loads(text) if text.strip() else None


def find(list_url, headers, marker):
    """The id of the first comment (note) whose body holds the marker, or None."""
    page = 1
    while True:
        sep = "&" if "?" in list_url else "?"
        items = request("GET", "%s%sper_page=100&page=%d" % (list_url, sep, page), headers)
        if not items:
            return None
        for item in items:
            if marker in (item.get("body") or ""):
                return item["id"]
        if len(items) < 100:
            return None
        page += 1


def github(body, marker):
    event = os.environ.get("GITHUB_EVENT_NAME", "")
    if event not in ("pull_request", "pull_request_target"):
        return "not a pull request (GITHUB_EVENT_NAME=%s): no comment" % (event or "unset")
    token = os.environ.get("GITHUB_TOKEN", "")
    if not token:
        return "GITHUB_TOKEN is not set: no comment (give the step env GITHUB_TOKEN)"
    with open(os.environ["GITHUB_EVENT_PATH"]) as f:
        number = json.load(f)["pull_request"]["number"]
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo = os.environ["GITHUB_REPOSITORY"]
    headers = {
        "Authorization": "Bearer " + token,
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "gcratchet-ci-comment",
    }
    base = "%s/repos/%s/issues" % (api, repo)
    found = find("%s/%d/comments" % (base, number), headers, marker)
    if found is None:
        request("POST", "%s/%d/comments" % (base, number), headers, {"body": body})
        return "commented on pull request #%d" % number
    request("PATCH", "%s/comments/%s" % (base, found), headers, {"body": body})
    return "updated comment %s on pull request #%d" % (found, number)


def gitlab(body, marker):
    iid = os.environ.get("CI_MERGE_REQUEST_IID", "")
    if not iid:
        return "not a merge request pipeline (no CI_MERGE_REQUEST_IID): no note"
    token = os.environ.get("GCR_NOTE_TOKEN", "")
    if not token:
        return "GCR_NOTE_TOKEN is not set: no note (a project access token with api scope)"
    api = os.environ["CI_API_V4_URL"].rstrip("/")
    project = urllib.parse.quote(os.environ["CI_PROJECT_ID"], safe="")
    headers = {"PRIVATE-TOKEN": token, "User-Agent": "gcratchet-ci-comment"}
    notes = "%s/projects/%s/merge_requests/%s/notes" % (api, project, iid)
    found = find(notes, headers, marker)
    if found is None:
        request("POST", notes, headers, {"body": body})
        return "noted on merge request !%s" % iid
    request("PUT", "%s/%s" % (notes, found), headers, {"body": body})
    return "updated note %s on merge request !%s" % (found, iid)


def main(argv):
    args, name, strict = [], "ratchet", False
    it = iter(argv)
    for a in it:
        if a == "--name":
            name = next(it, "")
        elif a == "--strict":
            strict = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if len(args) != 1 or not name:
        print("usage: ci-comment.py FILE.md [--name NAME] [--strict]", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8", errors="replace") as f:
            md = f.read()
    except OSError as e:
        say("%s: %s: no comment" % (args[0], e.strerror), warning=True)
        return 1 if strict else 0
    marker = "<!-- gcratchet-comment %s -->" % name
    body = marker + "\n" + md
    run = os.environ.get("CI_JOB_URL")
    if os.environ.get("GITHUB_RUN_ID"):
        run = "%s/%s/actions/runs/%s" % (os.environ.get("GITHUB_SERVER_URL", "https://github.com"),
                                         os.environ.get("GITHUB_REPOSITORY", ""),
                                         os.environ["GITHUB_RUN_ID"])
    if run:
        body += "\n\nThe whole report (check page, samples, database): the artifacts of %s\n" % run
    if len(body) > LIMIT:
        body = body[:LIMIT] + "\n\n_(cut at %d characters: the rest is in the artifacts)_\n" % LIMIT
    try:
        if os.environ.get("GITHUB_ACTIONS") == "true":
            say(github(body, marker))
        elif os.environ.get("GITLAB_CI") == "true":
            say(gitlab(body, marker))
        else:
            say("neither GitHub Actions nor GitLab CI: no comment")
    except (urllib.error.URLError, OSError, KeyError, ValueError) as e:
        say("could not post the comment: %s" % e, warning=True)
        return 1 if strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
