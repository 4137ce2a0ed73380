#!/bin/sh
# version-stamp.sh OUT — writes OUT, the header that tells `gcratchet --version` which commit
# the harness was built from, and whether harness/, reports/, collectors/include/ or the
# Makefile then differed from it. OUT is rewritten only when that changes, so make recompiles
# cmd_version.c and relinks gcratchet only then.
#
# The commit is this source tree's own: a tree without .git (unpacked from a tarball), or one
# unpacked inside some other repository's checkout, says "unknown".
set -eu
out=${1:?usage: version-stamp.sh OUT}
here=$(cd "$(dirname "$0")/.." && pwd -P)
commit=unknown
modified=0
if top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$top" && pwd -P)" = "$here" ] &&
	c=$(git -C "$here" rev-parse --verify -q HEAD 2>/dev/null); then
	commit=$c
	if [ -n "$(git -C "$here" status --porcelain -- harness reports collectors/include Makefile 2>/dev/null)" ]; then
		modified=1
	fi
fi
tmp=$out.tmp.$$
{
	echo '/* Written by scripts/version-stamp.sh: the commit the harness was built from. */'
	echo "#define GCRATCHET_COMMIT \"$commit\""
	echo "#define GCRATCHET_COMMIT_MODIFIED $modified"
} >"$tmp"
if cmp -s "$tmp" "$out"; then
	rm -f "$tmp"
else
	mv "$tmp" "$out"
fi
