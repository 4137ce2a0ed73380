#!/bin/sh
# scan-v8.sh [DIR] — a range scan (bisect --all --build-cmd) on a history of the V8 builds
# (js/build.sh's js-default) whose young generation is resized three times: c5 fixes the
# semi-spaces at 16 MiB (far fewer minor collections than node's default, which stays at 1 MiB
# on this probe at ci), c11 at 2 MiB (more), c16 at 3 MiB (a third fewer); every other commit
# adds a line to NOTES. V8's collections
# are paced by its background threads (clock_paced): its counts vary from run to run, so the
# scan runs paired, each commit between its measured neighbours. METRIC (default
# census.minor_collections), THRESHOLD (default 5%) and PROBE (default 01) choose the figure;
# PLANTS="" makes a history where nothing moves (an A/A scan). Not part of the suite.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-$(mktemp -d /tmp/gcratchet-scan-v8.XXXXXX)}
R=$D/repo
mkdir -p "$R"
cp -R "$TOP/js" "$R/js"
git -C "$R" init -q
semi() { # FLAGS: js-default's collector flags
	sed -i "s|^\tdefault) gc=.* paced=clock_paced ;;|\tdefault) gc='$1' paced=clock_paced ;;|" "$R/js/build.sh"
	grep -q "^	default) gc='$1' paced" "$R/js/build.sh"
}
for k in $(seq 1 20); do
	flags=$(printf '%s\n' ${PLANTS-5:16 11:2 16:3} | sed -n "s/^$k://p")
	if [ -n "$flags" ]; then
		semi "--min-semi-space-size=$flags --max-semi-space-size=$flags"
		what="semi-spaces at $flags MiB"
	else
		echo "note $k" >>"$R/NOTES"
		what=notes
	fi
	git -C "$R" add -A
	git -C "$R" -c user.name=scan -c user.email=scan@example.org commit -q -m "c$k: $what"
done
good=$(git -C "$R" rev-list --reverse HEAD | head -n 1)
cd "$D"
GCR_LOCK_FILE=${GCR_LOCK_FILE:-$D/bench.lock} "$TOP/build/gcratchet" bisect --all \
	--build-cmd 'sh js/build.sh "$GCR_BISECT_OUT.d" default && mv "$GCR_BISECT_OUT.d/collectors/js-default" "$GCR_BISECT_OUT" && rm -rf "$GCR_BISECT_OUT.d"' \
	--repo "$R" --good "$good" --bad HEAD --probe "${PROBE:-01}" \
	--metric "${METRIC:-census.minor_collections}" --threshold "${THRESHOLD:-5%}" \
	--db "$D/store.db" --json "$D/scan.json" ${SCAN_ARGS:-}
