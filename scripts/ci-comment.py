#!/usr/bin/env python3
"""ci-comment.py FILE.md [--name NAME] [--strict] [--dry-run]

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

--dry-run makes no request: it says where the comment would go (the pull request or merge
request, the API calls that would make or edit it, whether the token is set) and prints the
body it would post, then exits 0. Run it anywhere (outside CI it says it would post nothing,
and why) to see a comment before a job posts it.
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


class Target:
    """Where the comment goes: the thread's comments (list), how one is made and edited."""

    def __init__(self, where, token_name, token, list_url, create, edit, headers):
        self.where, self.token_name, self.token = where, token_name, token
        self.list_url, self.create, self.edit, self.headers = list_url, create, edit, headers


def github_target():
    """The pull request's Target, or the reason there is none (a string)."""
    event = os.environ.get("GITHUB_EVENT_NAME", "")
    if event not in ("pull_request", "pull_request_target"):
        return "not a pull request (GITHUB_EVENT_NAME=%s): no comment" % (event or "unset")
    token = os.environ.get("GITHUB_TOKEN", "")
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
    return Target("pull request #%d of %s" % (number, repo), "GITHUB_TOKEN", token,
                  "%s/%d/comments" % (base, number), ("POST", "%s/%d/comments" % (base, number)),
                  ("PATCH", base + "/comments/{id}"), headers)


def gitlab_target():
    """The merge request's Target, or the reason there is none (a string)."""
    iid = os.environ.get("CI_MERGE_REQUEST_IID", "")
    if not iid:
        return "not a merge request pipeline (no CI_MERGE_REQUEST_IID): no note"
    token = os.environ.get("GCR_NOTE_TOKEN", "")
    api = os.environ["CI_API_V4_URL"].rstrip("/")
    project = urllib.parse.quote(os.environ["CI_PROJECT_ID"], safe="")
    headers = {"PRIVATE-TOKEN": token, "User-Agent": "gcratchet-ci-comment"}
    notes = "%s/projects/%s/merge_requests/%s/notes" % (api, project, iid)
    return Target("merge request !%s of project %s" % (iid, os.environ["CI_PROJECT_ID"]),
                  "GCR_NOTE_TOKEN", token, notes, ("POST", notes), ("PUT", notes + "/{id}"),
                  headers)


TOKEN_HELP = {
    "GITHUB_TOKEN": "give the step env GITHUB_TOKEN",
    "GCR_NOTE_TOKEN": "a project access token with api scope",
}


def post(target, body, marker):
    """Edits the thread's comment holding the marker, else adds one; says which."""
    if not target.token:
        return "%s is not set: no comment (%s)" % (target.token_name, TOKEN_HELP[target.token_name])
    found = find(target.list_url, target.headers, marker)
    if found is None:
        request(target.create[0], target.create[1], target.headers, {"body": body})
        return "commented on %s" % target.where
    request(target.edit[0], target.edit[1].replace("{id}", str(found)), target.headers,
            {"body": body})
    return "updated comment %s on %s" % (found, target.where)


def dry_run(target, body, marker):
    """What post would do, without a request: where, how, and the body."""
    if isinstance(target, str):
        say("dry run: would post nothing: " + target)
    else:
        say("dry run: would post %d characters to %s: %s %s, or %s %s when the comment "
            "holding %s is there (%s %s)" % (
                len(body), target.where, target.create[0], target.create[1], target.edit[0],
                target.edit[1].replace("{id}", "ID"), marker, target.token_name,
                "is set" if target.token else "is NOT set: a real run would post nothing"))
    print("ci-comment: the body follows")
    sys.stdout.write(body if body.endswith("\n") else body + "\n")


def main(argv):
    args, name, strict, dry = [], "ratchet", False, False
    it = iter(argv)
    for a in it:
        if a == "--name":
            name = next(it, "")
        elif a == "--strict":
            strict = True
        elif a == "--dry-run":
            dry = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if len(args) != 1 or not name:
        print("usage: ci-comment.py FILE.md [--name NAME] [--strict] [--dry-run]", file=sys.stderr)
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
            target = github_target()
        elif os.environ.get("GITLAB_CI") == "true":
            target = gitlab_target()
        else:
            target = "neither GitHub Actions nor GitLab CI: no comment"
        if dry:
            dry_run(target, body, marker)
        elif isinstance(target, str):
            say(target)
        else:
            say(post(target, body, marker))
    except (urllib.error.URLError, OSError, KeyError, ValueError) as e:
        say("could not post the comment: %s" % e, warning=True)
        return 1 if strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
