#!/bin/sh
# docs/probes.md's checksum recipes are complete: tests/port/probes.py, a Python port of every
# probe's checksum written from that page alone (without reading probes/*.c), prints the C
# probe's checksum (issue 40). Counts and checksums are read from the page's own tables, so
# the page, the C probes and the port must all agree:
# - every probe at the "first check at small counts" table's --iterations N (seconds in all);
# - at ci, the probes whose ci run takes Python well under a second (CI_PROBES); the others
#   take 1-4 s each at ci, which the small counts already cover branch by branch.
# A probe built by make with no row in the table fails, so a new probe needs its recipe, its
# small count and a port function. The C probes are epsilon's (every collector prints the same
# checksums: t040).
. "$(dirname "$0")/lib.sh"

DOC=$TOP/docs/probes.md
PORT=$TOP/tests/port/probes.py
BIN=$TOP/build/collectors/epsilon
CI_PROBES="06_fragmentation 07_array_growth 10_large_objects 13_memory_return 15_request_latency"

if ! command -v python3 >/dev/null 2>&1; then
	fail "no python3 on PATH: scripts/setup.sh installs it"
	finish
fi

# table_rows HEADING_PATTERN: the rows "| NN_name | ... |" of the first table after the line
# matching HEADING_PATTERN, as "NN_name cell2 cell3 ..." with backquotes and spaces removed
# from the cells.
table_rows() {
	awk -v pat="$1" '
		!on && $0 ~ pat { on = 1; next }
		on && /^\| [0-9][0-9]_[a-z_]+ \|/ { seen = 1; print; next }
		on && seen { exit }
	' "$DOC" | sed 's/`//g; s/ *| */|/g; s/^|//; s/|$//' | tr '|' ' '
}

table_rows '^\*\*A first check at small counts' >"$T/small"
table_rows '^\*\*The checksums\*\* every collector prints' >"$T/sizes"
expect_eq "$(wc -l <"$T/small" | tr -d ' ')" 15 "rows of docs/probes.md's small-counts table"
expect_eq "$(wc -l <"$T/sizes" | tr -d ' ')" 15 "rows of docs/probes.md's ci/default/large table"

# compare PROBE SIZE-ARGS DOC-CHECKSUM: the C probe, the port and the page print one checksum.
compare() {
	probe=$1 args=$2 want=$3
	# shellcheck disable=SC2086 # the size arguments split on purpose
	c=$("$BIN/$probe" $args 2>"$T/c.err")
	st=$?
	if [ "$st" -ne 0 ]; then
		fail "$probe $args: the C probe exited $st"
		sed 's/^/  stderr: /' "$T/c.err" >&2
		return
	fi
	# shellcheck disable=SC2086
	py=$(python3 "$PORT" "$probe" $args 2>"$T/py.err")
	st=$?
	if [ "$st" -ne 0 ]; then
		fail "$probe $args: the port exited $st"
		sed 's/^/  stderr: /' "$T/py.err" | tail -n 5 >&2
		return
	fi
	expect_eq "$py" "$c" "$probe $args: the port from docs/probes.md against the C probe"
	expect_eq "$c" "checksum $want" "$probe $args: the C probe against docs/probes.md's table"
}

for bin in "$BIN"/[0-9][0-9]_*; do
	probe=$(basename "$bin")
	grep -q "^$probe " "$T/small" ||
		fail "$probe: no row in docs/probes.md's small-counts table (a new probe needs a recipe, a count and a port)"
done

while read -r probe n sum; do
	compare "$probe" "--iterations $n" "$sum"
done <"$T/small"

for probe in $CI_PROBES; do
	sum=$(awk -v p="$probe" '$1 == p { print $2 }' "$T/sizes")
	compare "$probe" ci "$sum"
done

finish
