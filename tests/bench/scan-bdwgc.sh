#!/bin/sh
# scan-bdwgc.sh [DIR] — a range scan (bisect --all) on a history of the bdwgc adapter whose Ir
# moves three times: c5 adds 40 rounds of dependent arithmetic to every gcr_alloc (up), c11
# cuts it to 10 (down), c16 raises it to 16 (a small step up); every other commit adds a line
# to NOTES. On this VM bdwgc's Ir at probe 01 repeats itself, so the scan is exact: one
# run a commit. Prints the scan's
# account; the repository and its store stay in DIR (default a new folder under /tmp).
# PLANTS="5:40 11:10 16:16" (the default) says which commit spins how many rounds; PLANTS=""
# makes a history where nothing moves (an A/A scan: it must find no change).
# METRIC and THRESHOLD choose the figure (default valgrind.ir, 1%).
# COLLECTOR=bdwgc-incremental scans the incremental build instead (the same adapter, whose
# clock-paced collections make its figures vary: the scan runs paired); SCAN_ARGS adds options.
# Not part of the suite: it builds 12 or so commits of libgc's adapter and runs valgrind.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-$(mktemp -d /tmp/gcratchet-scan-bdwgc.XXXXXX)}
R=$D/repo
mkdir -p "$R"
cp -R "$TOP/collectors/bdwgc" "$TOP/collectors/bdwgc-incremental" "$R/"
git -C "$R" init -q
spin() { # ROUNDS: the arithmetic every gcr_alloc does first (0: none)
	sed -i '/^\t\/\* scan-bdwgc: spin \*\//,/^\t\/\* scan-bdwgc: end \*\//d' "$R/bdwgc/bdwgc.c"
	[ "$1" = 0 ] && return 0
	sed -i "/^\tgcr_plant_on_alloc();\$/a\\
\t/* scan-bdwgc: spin */\\
\t{\\
\t\tstatic volatile uint64_t scan_sink;\\
\t\tuint64_t x = scan_sink;\\
\t\tfor (unsigned i = $1; i > 0; i--)\\
\t\t\tx = x * 6364136223846793005u + 1442695040888963407u;\\
\t\tscan_sink = x;\\
\t}\\
\t/* scan-bdwgc: end */" "$R/bdwgc/bdwgc.c"
}
for k in $(seq 1 20); do
	what=notes
	rounds=$(printf '%s\n' ${PLANTS-5:40 11:10 16:16} | sed -n "s/^$k://p")
	if [ -n "$rounds" ]; then
		spin "$rounds"
		what="spin $rounds rounds an allocation"
	else
		echo "note $k" >>"$R/NOTES"
	fi
	git -C "$R" add -A
	git -C "$R" -c user.name=scan -c user.email=scan@example.org commit -q -m "c$k: $what"
done
good=$(git -C "$R" rev-list --reverse HEAD | head -n 1)
echo "scan-bdwgc: repository $R" >&2
cd "$D"
GCR_LOCK_FILE=${GCR_LOCK_FILE:-$D/bench.lock} "$TOP/build/gcratchet" bisect --all \
	--collector-dir "$R/${COLLECTOR:-bdwgc}" --good "$good" --bad HEAD --probe 01 --metric "${METRIC:-valgrind.ir}" \
	--threshold "${THRESHOLD:-1%}" --db "$D/store.db" --json "$D/scan.json" ${SCAN_ARGS:-}
