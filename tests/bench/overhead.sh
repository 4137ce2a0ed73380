#!/bin/sh
# overhead — a benchmark, not a test: what `gcratchet measure` costs per run on top of a bare
# fork/exec/wait4 of the same probe. Each of K sessions pairs, in alternating order,
#   (a) gcratchet measure --collector epsilon --probes 01 --two-n 1,2 --meters rusage,census
#       with R rounds + 1 warm-up: N = 2 (R + 1) runs (no valgrind; its own lock, and its own
#       database, made by an untimed session first, as results/gcratchet.db is there after
#       the first);
#   (b) build/bench/overhead running the same probe binary N times, N/2 with --iterations 1 and
#       N/2 with --iterations 2 as (a) does, with the environment (a)'s runs get (the fixed one
#       plus GCR_CENSUS_FD=3, descriptor 3 open on /dev/null), in a scratch folder.
# Each side is timed whole, start-up included, by `overhead -t`: its wall time, and its CPU time
# (user + system of its whole process tree, which a busy host disturbs less). A session's
# overhead per run is (wall(a) - wall(b)) / N, the same for CPU, and its ratio wall(a) / wall(b).
# The last line is the median over the sessions of each, with the 1-minute load before and
# after (docs/overhead.md).
# Usage: sh tests/bench/overhead.sh [-k SESSIONS] [-n RUNS] [-c COLLECTOR] [-p PROBE]
#        (defaults 5, 200, epsilon, 01; `make bench-overhead` builds it and runs this)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GCR="${GCR:-$TOP/build/gcratchet}"
BARE="${GCR_BENCH_BARE:-$TOP/build/bench/overhead}"
K=5 N=200 COLLECTOR=epsilon PROBE=01
while getopts k:n:c:p: opt; do
	case $opt in
	k) K=$OPTARG ;;
	n) N=$OPTARG ;;
	c) COLLECTOR=$OPTARG ;;
	p) PROBE=$OPTARG ;;
	*)
		echo "usage: sh tests/bench/overhead.sh [-k SESSIONS] [-n RUNS] [-c COLLECTOR] [-p PROBE]" >&2
		exit 2
		;;
	esac
done
case "$K.$N" in
*[!0-9.]* | .* | *.) echo "overhead: -k and -n take whole numbers" >&2 && exit 2 ;;
esac
if [ "$K" -lt 1 ] || [ "$N" -lt 4 ] || [ $((N % 2)) -ne 0 ]; then
	echo "overhead: -k must be at least 1 and -n an even number of at least 4" >&2
	exit 2
fi
for f in "$GCR" "$BARE"; do
	[ -x "$f" ] || { echo "overhead: $f is missing: run make bench-overhead" >&2 && exit 2; }
done
BUILD="$TOP/build/collectors/$COLLECTOR"
EXE=$(jq -r --arg p "$PROBE" '.probes[] | select(.name == $p or (.name | startswith($p + "_"))) | .file' \
	"$BUILD/manifest.json" 2>/dev/null | head -n 1)
if [ -z "$EXE" ] || [ ! -x "$BUILD/$EXE" ]; then
	echo "overhead: $BUILD has no probe $PROBE: run make" >&2
	exit 2
fi
EXE="$BUILD/$EXE"
T=$(mktemp -d /tmp/gcratchet-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/wd"
ROUNDS=$((N / 2 - 1))
HALF=$((N / 2))

# One side each, timed whole by `overhead -t`: prints "WALL_NS CPU_NS" (CPU: user + system
# time of the side's whole process tree).
run_measure() { # session
	GCR_LOCK_FILE="$T/bench.lock" "$BARE" -t "$GCR" measure --collector "$COLLECTOR" \
		--probes "$PROBE" --two-n 1,2 --rounds "$ROUNDS" --warmup 1 --meters rusage,census \
		--seed "$1" --db "$T/results.db" </dev/null >/dev/null 2>"$T/measure.err" ||
		{ echo "overhead: gcratchet measure failed:" >&2 && tail -n 5 "$T/measure.err" >&2 && return 2; }
	tail -n 1 "$T/measure.err"
}
run_bare() {
	: >"$T/bare.times"
	for n in 1 2; do
		(cd "$T/wd" && env -i HOME=/tmp LANG=C LC_ALL=C PATH=/usr/local/bin:/usr/bin:/bin TZ=UTC \
			GCR_CENSUS_FD=3 "$BARE" -t "$BARE" "$HALF" "$EXE" --iterations "$n" \
			</dev/null >/dev/null 2>"$T/bare.err" 3>/dev/null) ||
			{ echo "overhead: the bare loop failed:" >&2 && tail -n 5 "$T/bare.err" >&2 && return 2; }
		tail -n 1 "$T/bare.err" >>"$T/bare.times"
	done
	awk '{ w += $1; c += $2 } END { print w, c }' "$T/bare.times"
}

# The database exists, as results/gcratchet.db does after the first session: creating it is
# not a cost of every session. This untimed session also warms the caches for both sides.
GCR_LOCK_FILE="$T/bench.lock" "$GCR" measure --collector "$COLLECTOR" --probes "$PROBE" \
	--two-n 1,2 --rounds 1 --warmup 0 --meters rusage,census --db "$T/results.db" \
	</dev/null >/dev/null 2>"$T/measure.err" ||
	{ echo "overhead: gcratchet measure failed:" >&2 && tail -n 5 "$T/measure.err" >&2 && exit 2; }
load_before=$(cut -d' ' -f1 /proc/loadavg)
i=1
: >"$T/pairs"
while [ "$i" -le "$K" ]; do
	if [ $((i % 2)) -eq 1 ]; then
		a=$(run_measure "$i") || exit 2
		b=$(run_bare) || exit 2
	else
		b=$(run_bare) || exit 2
		a=$(run_measure "$i") || exit 2
	fi
	echo "$a $b" >>"$T/pairs"
	echo "$a $b" | awk -v n="$N" -v i="$i" '{
		printf "session %d: measure %.1f ms (cpu %.1f), bare %.1f ms (cpu %.1f): %+.3f ms per run (cpu %+.3f), ratio %.3f\n",
			i, $1 / 1e6, $2 / 1e6, $3 / 1e6, $4 / 1e6, ($1 - $3) / n / 1e6, ($2 - $4) / n / 1e6, $1 / $3 }'
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
awk -v n="$N" -v k="$K" -v lb="$load_before" -v la="$load_after" -v c0="$COLLECTOR" -v p="$PROBE" '
	function median(v, m,   i, j, t) {
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	{ d[NR] = ($1 - $3) / n / 1e6; c[NR] = ($2 - $4) / n / 1e6; r[NR] = $1 / $3; bare[NR] = $3 / n / 1e6 }
	END {
		printf "overhead: %+.3f ms per run above a bare fork/exec/wait4 (%.3f ms a run), cpu %+.3f ms, ratio %.3f: median of %d paired sessions of %d runs (%s, probe %s); load %s before, %s after\n",
			median(d, k), median(bare, k), median(c, k), median(r, k), k, n, c0, p, lb, la
	}' "$T/pairs"
