#!/bin/sh
# readme-synopsis.sh — README.md's Commands block is every verb's usage lines, as
# `gcratchet completion synopsis` prints them from the --help texts (whose options
# tests/cli/t174 holds to each verb's option table). This writes the block between the
# README's "<!-- synopsis: begin" and "<!-- synopsis: end -->" lines, or with --check
# prints how the README differs and exits 1.
# Usage: scripts/readme-synopsis.sh [--check] [GCRATCHET] [README]
set -eu
check=0
[ "${1:-}" = --check ] && check=1 && shift
gcr=${1:-build/gcratchet}
readme=${2:-README.md}
block=$(mktemp) new=$(mktemp)
trap 'rm -f "$block" "$new"' EXIT
{
	echo '```'
	"$gcr" completion synopsis
	echo '```'
} >"$block"
grep -q '^<!-- synopsis: begin' "$readme" && grep -q '^<!-- synopsis: end -->' "$readme" || {
	echo "readme-synopsis: $readme has no <!-- synopsis: begin ... --> and <!-- synopsis: end --> lines" >&2
	exit 2
}
awk -v block="$block" '
	/^<!-- synopsis: end -->/ { skip = 0 }
	!skip { print }
	/^<!-- synopsis: begin/ { while ((getline line < block) > 0) print line; skip = 1 }
' "$readme" >"$new"
if [ "$check" -eq 1 ]; then
	if ! cmp -s "$readme" "$new"; then
		echo "readme-synopsis: $readme's Commands block differs from gcratchet completion synopsis (make readme-synopsis writes it):" >&2
		diff -u "$readme" "$new" >&2 || true
		exit 1
	fi
	exit 0
fi
cat "$new" >"$readme"
