# store-scale-data.sh — sourced by store-scale.sh and push-copy.sh (after tests/cli/lib.sh, with
# SESSIONS and RUNS set): builds $GCR_DB, a SQLite store of SESSIONS x RUNS runs from one real
# session, each run with the seed run's samples, values jittered (default 100 x 1000 x 10 =
# 1,000,000 samples), and pins shared_ci on the seed session.
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
"$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census >/dev/null 2>&1 ||
	{ echo "store-scale: the seed session failed" >&2; exit 2; }
"$GCR" baseline pin --profile shared_ci --collector scripted --session 1 >/dev/null 2>&1 ||
	{ echo "store-scale: pinning the seed session failed" >&2; exit 2; }
per_run=$(sql "SELECT count(*) FROM samples WHERE run_id = (SELECT min(id) FROM runs WHERE probe = '01_steady')")
# Copies of the seed session (started after it, so that check judges the last copy), each with RUNS runs of the seed run's samples, values jittered.
sql "
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $SESSIONS)
INSERT INTO sessions(host_id, command, started_at, finished_at, status, seed, size, rounds, warmup,
	probes, meters, load_before, load_after, harness_version, facts, pid, boot_id, uuid)
SELECT host_id, command, strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+' || i || ' hours'),
	strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+' || i || ' hours', '+30 minutes'), 'complete',
	i, size, $RUNS / 2, 0, probes, meters, load_before, load_after, harness_version, facts,
	1000000 + i, boot_id, lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
	substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
FROM sessions, k WHERE sessions.id = 1;
INSERT INTO session_builds(session_id, position, build_id, label, knobs)
SELECT s.id, sb.position, sb.build_id, sb.label, sb.knobs FROM sessions s, session_builds sb
WHERE s.id > 1 AND sb.session_id = 1;
WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < $RUNS)
INSERT INTO runs(session_id, build_id, probe, size, round, seq, warmup, kind, status, detail,
	checksum, premise, stderr_tail, started_at, arm)
SELECT s.id, r.build_id, CASE j % 2 WHEN 1 THEN '01_steady' ELSE '02_other' END, r.size,
	(j + 1) / 2, j, 0, 'timed', 'ok', NULL, r.checksum, r.premise, '', s.started_at, 0
FROM sessions s, k, runs r WHERE s.id > 1 AND r.id = (SELECT min(id) FROM runs);
INSERT INTO samples(run_id, metric, value)
SELECT r.id, x.metric, x.value * (1 + (abs(random()) % 1000) / 100000.0)
FROM runs r, samples x WHERE r.session_id > 1
	AND x.run_id = (SELECT min(id) FROM runs WHERE probe = '01_steady');"
n=$(sql "SELECT count(*) FROM samples")
echo "store-scale: $(sql "SELECT count(*) FROM sessions") sessions, $(sql "SELECT count(*) FROM runs") runs, $n samples ($per_run per run); SQLite file $(du -m "$GCR_DB" | cut -f1) MiB"

