#!/bin/sh
# needs: pg
# history: a metric's session medians in commit order with the host, the same on a SQLite
# file and on PostgreSQL after a push; --since, --size and --format json; clear errors; the
# order of a git history (--git, or the current directory's repository) where it has them.
. "$(dirname "$0")/lib.sh"
pg_start
B="$T/scripted"
make_script_build "$B" 01_steady
commit() { # the build as if made from commit $1: another manifest, so another build
	jq -c --arg c "$1" '.git_commit = $c' "$B/manifest.json" >"$B/m.json" && mv "$B/m.json" "$B/manifest.json"
}
m() { # alloc_bytes $1, into database $2
	echo "$1" >"$B/alloc.01_steady"
	expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 1 --meters rusage,census \
		--db "$2"
	sleep 1 # sessions are ordered by their start, which has one-second resolution
}
H="$GCR history --collector scripted --probe 01_steady --metric census.alloc_bytes"

commit aaaaaaaaaaaaaaaa
m 1000 "$GCR_DB"
m 1010 "$GCR_DB"
commit bbbbbbbbbbbbbbbb
m 1100 "$GCR_DB"
commit aaaaaaaaaaaaaaaa
m 1020 "$GCR_DB" # a commit measured again later joins its own, ahead of the newer commit
expect_status 0 $H
expect_eq "$(awk 'NR > 1 { print $1, $2, $8 }' "$T/out" | tr '\n' ' ')" \
	"aaaaaaaaaaaa 1 1000 aaaaaaaaaaaa 2 1010 aaaaaaaaaaaa 4 1020 bbbbbbbbbbbb 3 1100 " \
	"commit, session and median, in commit order"
expect_eq "$(awk 'NR > 1 { print $4 "/" $7 }' "$T/out" | sort -u)" "$(hostname)/3" \
	"each row has its host and 3 measured runs (the warm-up left out)"
cp "$T/out" "$T/history.sqlite"

# The same history from PostgreSQL, and a second host's session beside it.
expect_status 0 "$GCR" push --to "$(pg_url fleet)"
expect_status 0 $H --db "$(pg_url fleet)"
if cmp -s "$T/out" "$T/history.sqlite"; then pass; else
	fail "history differs between SQLite and PostgreSQL"
	diff "$T/history.sqlite" "$T/out" >&2
fi
commit cccccccccccccccc
m 1200 "$T/runner.db"
sqlite3 "$T/runner.db" "UPDATE hosts SET hostname = 'ci-runner-7', fingerprint = '00000000000000ff'"
expect_status 0 "$GCR" push --to "$(pg_url fleet)" --db "$T/runner.db"
expect_status 0 $H --db "$(pg_url fleet)" --format json
python3 - "$T/out" >"$T/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "gcratchet-history" and d["metric"] == "census.alloc_bytes", d
got = [(p["commit"][:4], p["host"] == "ci-runner-7", p["median"], p["n"], p["values"]) for p in d["points"]]
want = [("aaaa", False, 1000, 3, [1000] * 3), ("aaaa", False, 1010, 3, [1010] * 3),
        ("aaaa", False, 1020, 3, [1020] * 3), ("bbbb", False, 1100, 3, [1100] * 3),
        ("cccc", True, 1200, 3, [1200] * 3)]
assert got == want, got
PY
expect_eq "$?" 0 "history --format json from PostgreSQL: $(tail -n 1 "$T/py")"

# --since and --size narrow it; nothing left is an error that says what was asked.
since=$(sql "SELECT started_at FROM sessions WHERE id = 3")
expect_status 0 $H --since "$since"
expect_eq "$(awk 'NR > 1 { print $2 }' "$T/out" | tr '\n' ' ')" "3 4 " "--since keeps sessions 3 and 4, bbbb measured first among them"
expect_status 0 $H --since 2000-01-01 --size ci
expect_eq "$(($(wc -l <"$T/out") - 1))" 4 "an early date and the right size keep all"
expect_status 2 $H --size large
expect_grep "no session measured census.alloc_bytes of probe 01_steady with a build of scripted" "$T/err"
expect_status 2 $H --since 2999-01-01 --db "$(pg_url fleet)"
expect_grep "postgresql://gcr@/fleet.*no session measured .* since 2999-01-01" "$T/err"
expect_status 2 $H --since yesterday
expect_grep "--since must be a date" "$T/err"
expect_status 2 "$GCR" history --collector scripted --probe 01_steady --metric census.nope
expect_grep "unknown metric \"census.nope\"" "$T/err"
expect_status 2 "$GCR" history --collector scripted --metric census.alloc_bytes
expect_grep "--probe and --metric are required" "$T/err"
expect_status 2 $H --format csv
expect_grep "--format must be table or json" "$T/err"

# Commit order from git: three commits of a repository, measured newest first. In commit
# order (--git, or run from inside the repository) they come oldest first, and a commit the
# repository lacks (bbbb...) follows them; outside any repository, the order first measured.
R="$T/repo"
git init -q "$R"
for i in 1 2 3; do
	git -C "$R" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "c$i"
done
c1=$(git -C "$R" rev-parse HEAD~2) c2=$(git -C "$R" rev-parse HEAD~1) c3=$(git -C "$R" rev-parse HEAD)
G="$T/git.db"
commit "$c3"
m 3000 "$G"
commit bbbbbbbbbbbbbbbb
m 2500 "$G"
commit "$c1"
m 1000 "$G"
commit "$c2"
m 2000 "$G"
commit "$(echo "$c1" | cut -c1-12)" # an abbreviation names the same commit
m 1001 "$G"
expect_status 0 $H --db "$G" --git "$R"
expect_eq "$(awk 'NR > 1 { print $8 }' "$T/out" | tr '\n' ' ')" "1000 1001 2000 3000 2500 " \
	"--git: oldest commit first, an abbreviated one with its commit, one not in git last"
expect_grep "commit order from the git history of $R .*4 of 5 points" "$T/err" \
	"stderr says git ordered 4 of the 5 points"
(cd "$R" && $H --db "$G" >"$T/out2" 2>"$T/err2")
expect_eq "$(awk 'NR > 1 { print $8 }' "$T/out2" | tr '\n' ' ')" "1000 1001 2000 3000 2500 " \
	"inside the repository: the same order without --git"
(cd "$T" && $H --db "$G" >"$T/out3" 2>"$T/err3")
# (without git the abbreviation is a commit of its own, first measured last)
expect_eq "$(awk 'NR > 1 { print $8 }' "$T/out3" | tr '\n' ' ')" "3000 2500 1000 2000 1001 " \
	"outside any repository: the order each commit was first measured"
expect_eq "$(cat "$T/err3")" "" "and nothing said about git"
expect_status 0 $H --db "$G" --git "$R" --format json
expect_eq "$(jq -c '[.order.by, .order.in_history, [.points[].median]]' "$T/out")" \
	'["git",4,[1000,1001,2000,3000,2500]]' "json: the order and how it was made"
(cd "$T" && $H --db "$G" --format json >"$T/out3")
expect_eq "$(jq -c .order "$T/out3")" '{"by":"first measured"}' "json outside a repository"
expect_status 2 $H --db "$G" --git "$T/nope"
expect_grep "--git $T/nope: not a git repository with a commit" "$T/err"
finish
