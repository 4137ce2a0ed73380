#!/bin/sh
# overhead — a benchmark, not a test: what `gcratchet measure` costs per run on top of a bare
# fork/exec/wait4 of the same probe. Each of K sessions pairs, in alternating order,
#   (a) gcratchet measure --collector epsilon --probes 01 --two-n 1,2 --meters rusage,census
#       with R rounds + 1 warm-up: N = 2 (R + 1) runs (no valgrind, its own database and lock);
#   (b) build/bench/overhead running the same probe binary N times, N/2 with --iterations 1 and
#       N/2 with --iterations 2 as (a) does, with the environment (a)'s runs get (the fixed one
#       plus GCR_CENSUS_FD=3, descriptor 3 open on /dev/null), in a scratch folder.
# Each side is timed whole, start-up included, by the same clock; the session's overhead per
# run is (wall(a) - wall(b)) / N and its ratio wall(a) / wall(b). The last line is the median
# over the sessions of each, with the 1-minute load before and after (docs/overhead.md).
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

now_ns() { date +%s%N; }

# One side, timed whole; prints its wall time in ns.
run_measure() { # session
	t0=$(now_ns)
	GCR_LOCK_FILE="$T/bench.lock" "$GCR" measure --collector "$COLLECTOR" --probes "$PROBE" \
		--two-n 1,2 --rounds "$ROUNDS" --warmup 1 --meters rusage,census --seed "$1" \
		--db "$T/s$1.db" >/dev/null 2>"$T/measure.err" </dev/null ||
		{ echo "overhead: gcratchet measure failed:" >&2 && tail -n 5 "$T/measure.err" >&2 && exit 2; }
	t1=$(now_ns)
	echo $((t1 - t0))
}
run_bare() {
	t0=$(now_ns)
	(cd "$T/wd" && for n in 1 2; do
		env -i HOME=/tmp LANG=C LC_ALL=C PATH=/usr/local/bin:/usr/bin:/bin TZ=UTC GCR_CENSUS_FD=3 \
			"$BARE" "$HALF" "$EXE" --iterations "$n" </dev/null >/dev/null 2>&1 3>/dev/null ||
			exit 2
	done) || { echo "overhead: the bare loop failed" >&2 && exit 2; }
	t1=$(now_ns)
	echo $((t1 - t0))
}

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
	awk -v a="$a" -v b="$b" -v n="$N" -v i="$i" 'BEGIN {
		printf "session %d: measure %.1f ms, bare %.1f ms: %+.3f ms per run, ratio %.3f\n",
			i, a / 1e6, b / 1e6, (a - b) / n / 1e6, a / b }'
	rm -f "$T/s$i.db" "$T/s$i.db-wal" "$T/s$i.db-shm"
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
awk -v n="$N" -v k="$K" -v lb="$load_before" -v la="$load_after" -v c="$COLLECTOR" -v p="$PROBE" '
	function median(v, m,   i, j, t) {
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	{ d[NR] = ($1 - $2) / n / 1e6; r[NR] = $1 / $2; bare[NR] = $2 / n / 1e6 }
	END {
		printf "overhead: %+.3f ms per run above a bare fork/exec/wait4 (%.3f ms), ratio %.3f: median of %d paired sessions of %d runs (%s, probe %s); load %s before, %s after\n",
			median(d, k), median(bare, k), median(r, k), k, n, c, p, lb, la
	}' "$T/pairs"
