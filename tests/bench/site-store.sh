#!/bin/sh
# site-store — a fleet's store in seconds, for report --site (and its test, t204): COLLECTORS
# scripted collectors (alpha, beta, gamma, ...) x PROBES probes x COMMITS commits (default
# 3 x 15 x 20). Each collector is measured once for real (rusage and census, one round) and
# pinned (shared_ci); the other commits are copies of that session made in SQL, each with a
# build of its own commit, so the history has one point per commit. Two changes are planted:
#   - beta's 05 allocates 5% more (census.alloc_bytes) from commit STEP (default 15) on: a
#     step that stays, and beta's newest check is REGRESSED;
#   - alpha's 01 has a second build of the newest commit but one (same commit, same name,
#     another manifest: a planted build) that allocates 5% more: one point out of the band.
# Usage: sh tests/bench/site-store.sh OUTDIR [COLLECTORS [PROBES [COMMITS]]]
#   writes OUTDIR/results.db and OUTDIR/baselines/shared_ci/<collector>.json
. "$(dirname "$0")/../cli/lib.sh"
OUT=${1:?usage: site-store.sh OUTDIR [COLLECTORS [PROBES [COMMITS]]]}
NCOL=${2:-3} NPROBE=${3:-15} NCOMMIT=${4:-20} STEP=${STEP:-15}
mkdir -p "$OUT/baselines" || exit 2
OUT=$(cd "$OUT" && pwd)
export GCR_DB="$OUT/results.db" GCR_BASELINE_DIR="$OUT/baselines"
rm -f "$GCR_DB"
names="alpha beta gamma delta epsilon zeta eta theta"
probes=$(i=1; while [ $i -le "$NPROBE" ]; do printf '%02d_probe%02d ' $i $i; i=$((i + 1)); done)
commit() { printf 'commit %s' "$1" | sha1sum | cut -c1-40; } # the hash of commit $1

k=0
for c in $names; do
	k=$((k + 1))
	[ $k -le "$NCOL" ] || break
	B="$T/$c"
	BUILD_NAME=$c make_script_build "$B" $probes
	# Another collector: its manifest and its census say so.
	for f in "$B"/manifest.json "$B"/[0-9]*; do
		sed -i "s/\"collector\":\"scripted\"/\"collector\":\"$c\"/" "$f"
	done
	jq -c --arg g "$(commit 1)" '.git_commit = $g' "$B/manifest.json" >"$B/m" && mv "$B/m" "$B/manifest.json"
	seal_manifest "$B"
	i=0
	for p in $probes; do
		i=$((i + 1))
		echo $((300000000 + 7000000 * i + 1000000 * k)) >"$B/alloc.$p"
	done
	"$GCR" measure --build "$B" --size ci --rounds 1 --warmup 0 --meters rusage,census \
		>"$T/measure.out" 2>&1 || { cat "$T/measure.out" >&2; echo "site-store: measuring $c failed" >&2; exit 2; }
	s=$(sql "SELECT max(id) FROM sessions")
	"$GCR" baseline pin --profile shared_ci --collector "$c" --session "$s" >"$T/pin.out" 2>&1 ||
		{ cat "$T/pin.out" >&2; echo "site-store: pinning $c failed" >&2; exit 2; }
	# Commits 2..COMMITS: copies of session s, an hour apart, each with its commit's build.
	j=2
	while [ $j -le "$NCOMMIT" ]; do
		scale=1 probe=none extra=
		if [ "$c" = beta ] && [ $j -ge "$STEP" ]; then scale=1.05 probe=05_probe05; fi
		# The planted build: alpha's newest commit but one, measured twice, once planted.
		if [ "$c" = alpha ] && [ $j -eq $((NCOMMIT - 1)) ]; then extra=plant; fi
		for variant in normal $extra; do
			sc=$scale pr=$probe tag=
			if [ "$variant" = plant ]; then sc=1.05 pr=01_probe01 tag=-plant; fi
			sql "
INSERT INTO builds(name, collector, collector_version, git_commit, dir, manifest, manifest_hash, capabilities)
SELECT name, collector, collector_version, '$(commit $j)', dir, manifest, lower(hex(randomblob(32))), capabilities
FROM builds WHERE id = (SELECT build_id FROM session_builds WHERE session_id = $s);
CREATE TEMP TABLE nb AS SELECT last_insert_rowid() AS id;
INSERT INTO sessions(host_id, command, started_at, finished_at, status, seed, size, rounds, warmup,
	probes, meters, load_before, load_after, harness_version, facts, pid, boot_id, uuid)
SELECT host_id, command, strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+$j hours', '+$([ -n "$tag" ] && echo 0 || echo 30) minutes'),
	strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+$j hours', '+50 minutes'), 'complete', seed + $j, size,
	rounds, warmup, probes, meters, load_before, load_after, harness_version, facts, pid + $j * 2$([ -n "$tag" ] && echo " + 1"),
	boot_id, lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
	|| '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
FROM sessions WHERE id = $s;
CREATE TEMP TABLE ns AS SELECT last_insert_rowid() AS id;
INSERT INTO session_builds(session_id, position, build_id, label, knobs)
SELECT (SELECT id FROM ns), position, (SELECT id FROM nb), label, knobs FROM session_builds WHERE session_id = $s;
INSERT INTO runs(session_id, build_id, probe, size, round, seq, warmup, kind, status, detail,
	checksum, premise, stderr_tail, started_at, arm)
SELECT (SELECT id FROM ns), (SELECT id FROM nb), probe, size, round, seq, warmup, kind, status, detail,
	checksum, premise, stderr_tail, started_at, arm FROM runs WHERE session_id = $s ORDER BY id;
INSERT INTO samples(run_id, metric, value)
SELECT n.id, x.metric, CASE WHEN x.metric = 'census.alloc_bytes' AND r.probe = '$pr'
	THEN round(x.value * $sc) ELSE x.value END
FROM runs r JOIN samples x ON x.run_id = r.id
JOIN runs n ON n.session_id = (SELECT id FROM ns) AND n.seq = r.seq AND n.arm = r.arm AND n.kind = r.kind
WHERE r.session_id = $s;" || { echo "site-store: copying session $s failed" >&2; exit 2; }
		done
		j=$((j + 1))
	done
done
echo "site-store: $(sql "SELECT count(DISTINCT collector) FROM builds") collectors, $(sql "SELECT count(*) FROM sessions") sessions, $(sql "SELECT count(*) FROM runs") runs in $GCR_DB; baselines in $GCR_BASELINE_DIR"
