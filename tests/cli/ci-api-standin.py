#!/usr/bin/env python3
"""ci-api-standin.py LOG PORTFILE — the part of the GitHub and GitLab REST APIs that
scripts/ci-comment.py calls, for tests/cli/t107-ci-recipe.sh: a pull request's comments
(GET/POST /repos/O/R/issues/N/comments, PATCH /repos/O/R/issues/comments/ID) and a merge
request's notes (GET/POST .../merge_requests/N/notes, PUT .../notes/ID), kept in memory.
Every call is logged to LOG as "METHOD PATH"; the threads and their comments are written to
LOG.state (JSON) after each change. A token without "t107" in it is refused (401). The port
chosen goes to PORTFILE once it listens."""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

state = {}
log, portfile = sys.argv[1], sys.argv[2]
THREAD = re.compile(r"^(.*/(?:issues|merge_requests)/\d+)/(?:comments|notes)(?:/(\d+))?$")
GH_EDIT = re.compile(r"^.*/issues/comments/(\d+)$")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def any(self):
        path, _, query = self.path.partition("?")
        n = int(self.headers.get("Content-Length") or 0)
        data = json.loads(self.rfile.read(n) or b"null")
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, path))
        token = self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN") or ""
        if "t107" not in token:
            return self.reply(401, {"message": "Bad credentials"})
        edit, thread = GH_EDIT.match(path), THREAD.match(path)
        if edit:
            cid = int(edit.group(1))
            keys = [k for k, v in state.items() if any(c["id"] == cid for c in v)]
            if not keys:
                return self.reply(404, {"message": "Not Found"})
            key = keys[0]
        elif thread:
            key, cid = thread.group(1), int(thread.group(2)) if thread.group(2) else None
        else:
            return self.reply(404, {"message": "Not Found"})
        items = state.setdefault(key, [])
        if self.command == "GET":
            # One page holds everything here: a later page is empty.
            return self.reply(200, items if "page=1" in query or "page=" not in query else [])
        if self.command == "POST":
            items.append({"id": 100 + sum(len(v) for v in state.values()), "body": data["body"]})
            changed = items[-1]
        else:
            changed = next((c for c in items if c["id"] == cid), None)
            if changed is None:
                return self.reply(404, {"message": "Not Found"})
            changed["body"] = data["body"]
        with open(log + ".state", "w") as f:
            json.dump(state, f)
        self.reply(201 if self.command == "POST" else 200, changed)

    do_GET = do_POST = do_PATCH = do_PUT = any


server = HTTPServer(("127.0.0.1", 0), Handler)
with open(portfile, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
