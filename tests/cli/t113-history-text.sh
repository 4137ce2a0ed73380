#!/bin/sh
# Text another host stored reaches `history` whole and harmless (issue 25, item 21): its table
# cuts a commit after 12 characters, never inside one, keeps each row on one line whatever
# the commit, host or build holds (a newline, a control character, a byte that is not UTF-8),
# and keeps its columns; the HTML page cuts the same way and --format json stays JSON. The
# "check it with sqlite3 PATH" advice for a damaged database quotes PATH for a POSIX shell,
# so that pasting it runs sqlite3 on that file and nothing else.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
B="$T/scripted"
make_script_build "$B" 01_steady
for i in 1 2 3; do
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 2 --warmup 0 --meters rusage,census
	sleep 1 # sessions are ordered by their start, which has one-second resolution
done
# Builds as other hosts could have stored them: a commit whose 12th byte is inside a
# character, one with a newline, and a host name with an escape sequence and a stray byte.
sql "UPDATE builds SET git_commit = 'aa€€€€€tail' WHERE id = 1"
sql "INSERT INTO builds (name, collector, collector_version, git_commit, dir, manifest, manifest_hash)
     SELECT name, collector, collector_version, 'line one' || char(10) || 'line two', dir, manifest,
     manifest_hash || 'x' FROM builds WHERE id = 1" 2>"$T/sqlerr" || { fail "adding a build: $(cat "$T/sqlerr")"; finish; }
nb=$(sql "SELECT max(id) FROM builds")
sql "UPDATE session_builds SET build_id = $nb WHERE session_id = 2"
sql "UPDATE runs SET build_id = $nb WHERE session_id = 2"
sql "UPDATE hosts SET hostname = 'ci' || char(27) || '[31mred' || CAST(X'FF' AS TEXT) || char(10) || 'x'"
H="$GCR history --collector scripted --probe 01_steady --metric census.alloc_bytes"

expect_status 0 $H
python3 - "$T/out" >"$T/py" 2>&1 <<'PY'
import sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")  # valid UTF-8, or this fails
lines = text.split("\n")[:-1]
assert len(lines) == 4, lines  # the header and one row a session
for l in lines:
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in l), "a control character: " + repr(l)
rows = lines[1:]
assert rows[0].startswith("aa€€€€€tail "), repr(rows[0])  # 11 characters, padded to 12
assert sum(r.startswith("line one lin  ") for r in rows) == 1, rows  # the newline a space
# Every column starts at the same character in every row: the session number at 14.
for r in rows:
    assert r[12:14] == "  " and r[14].isdigit(), repr(r)
    assert r.split()[-1] == "1000", repr(r)
print("ok")
PY
expect_eq "$(tail -n 1 "$T/py")" ok "the history table: $(tail -n 3 "$T/py" | tr '\n' ' ')"

# A commit longer than 12 characters whose 12th byte is inside one: cut before it.
sql "UPDATE builds SET git_commit = 'aa€€€€€€€€€€€€€' WHERE id = 1"
expect_status 0 $H
expect_eq "$(python3 -c 'import sys; print(open(sys.argv[1], encoding="utf-8").read().split("\n")[1][:15])' "$T/out" 2>&1)" \
	"aa€€€€€€€€€€  1" "a commit cut at 12 characters"

# The HTML page: the same cut, no replacement character for half a character.
expect_status 0 "$GCR" report --history --collector scripted --probe 01_steady \
	--metric census.alloc_bytes --out "$T/h.html"
expect_grep "<code>aa€€€€€€€€€€</code>" "$T/h.html"
expect_no_grep "<code>[^<]*�" "$T/h.html" "a replacement character for a commit cut in the history page"
expect_no_grep ">aa€€€€€€€€€€€" "$T/h.html" "a commit of more than 12 characters in the history page"
# JSON: still JSON, whatever bytes the host name holds.
expect_status 0 $H --format json
python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); print(d["points"][0]["host"])' \
	"$T/out" >"$T/py" 2>&1
expect_grep "^ci.\[31mred" "$T/py" "history --format json: $(tail -n 1 "$T/py")"

# The advice for a damaged database, pasted into a shell, runs sqlite3 on that file only.
D="$T/q'; touch PWNED; echo '.db"
cp "$GCR_DB" "$D"
page=$(sqlite3 "$D" "PRAGMA page_size")
root=$(sqlite3 "$D" "SELECT rootpage FROM sqlite_master WHERE name = 'samples'")
head -c "$page" /dev/zero | tr '\0' 'U' | dd of="$D" bs="$page" seek=$((root - 1)) conv=notrunc 2>/dev/null
expect_status 2 "$GCR" export --session 1 --db "$D"
expect_grep "the database is damaged: check it with sqlite3 " "$T/err"
advice=$(sed -n "s/.*check it with \(sqlite3 .* 'PRAGMA integrity_check'\).*/\1/p" "$T/err")
(cd "$T" && sh -c "$advice") >"$T/pasted" 2>&1
[ ! -e "$T/PWNED" ] && pass || fail "pasting the advice ran what the path held: $advice"
expect_grep "Tree|Page|never used|wrong # of entries|row .* missing|ok" "$T/pasted" \
	"the pasted advice did not check $D: $(head -c 300 "$T/pasted")"
finish
