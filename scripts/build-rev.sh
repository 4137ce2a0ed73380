#!/bin/sh
# build-rev.sh REV [COLLECTOR [VAR=VALUE...]] — builds one collector (default marksweep) as it
# was at git revision REV of this repository, into a build folder of its own, and prints that
# folder's path as the last line of stdout (what `gcratchet ab REV[:COLLECTOR] ...` and
# `gcratchet bisect --collector` run). Each VAR=VALUE goes to make: build options such as
# CC=clang, EXTRA_CFLAGS=-O3 or PROBE_SRCS=probes/01_nursery_churn.c (relative to REV's tree).
#
# The folder is keyed by the revision's tree hash, not its commit, and by the options:
#     build/rev/<tree hash>/collectors/<collector>/    (GCR_REV_DIR replaces build/rev)
#     build/rev/<tree hash>-<options hash>/collectors/<collector>/    with options
# so building a revision whose tree was built before with the same options (the same commit
# again, a rebase or an amend that changed only the message) reuses the folder without
# building. The build itself runs in a temporary `git worktree` of REV, removed again
# afterwards, so the checkout you work in is never touched; the probes and the harness's build
# rules come from REV too.
#
# Exit status: 0 built or reused; 3 REV is not a revision of this repository; 2 REV has no
# such collector or its build failed. Build output goes to stderr.
set -eu

rev=${1:?usage: build-rev.sh REV [COLLECTOR [VAR=VALUE...]]}
collector=${2:-marksweep}
[ $# -ge 2 ] && shift 2 || shift $#
for opt in "$@"; do
	case $opt in
	[A-Za-z_]*=*) ;;
	*)
		echo "build-rev: \"$opt\" is not a make option VAR=VALUE" >&2
		exit 2
		;;
	esac
done
here=$(cd "$(dirname "$0")/.." && pwd)

if ! top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null); then
	echo "build-rev: $here is not inside a git repository" >&2
	exit 3
fi
if ! commit=$(git -C "$top" rev-parse --verify --quiet "$rev^{commit}"); then
	echo "build-rev: \"$rev\" is not a revision of $top" >&2
	exit 3
fi
tree=$(git -C "$top" rev-parse "$commit^{tree}")
key=$tree
if [ $# -gt 0 ]; then
	key=$tree-$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
fi
base=${GCR_REV_DIR:-$top/build/rev}/$key
out=$base/collectors/$collector

if [ -f "$out/manifest.json" ]; then
	echo "build-rev: $rev is commit $commit, tree $tree: reusing $out" >&2
	echo "$out"
	exit 0
fi
if ! git -C "$top" cat-file -e "$commit:collectors/$collector" 2>/dev/null; then
	echo "build-rev: revision $rev has no collectors/$collector" >&2
	exit 2
fi

mkdir -p "$base/collectors"
wt=$(mktemp -d "$base/worktree.XXXXXX")
tmp=$out.tmp.$$
cleanup() {
	git -C "$top" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$top" worktree prune >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

echo "build-rev: building $collector at $rev (commit $commit, tree $tree)" >&2
if ! git -C "$top" worktree add --detach --quiet "$wt" "$commit" >&2; then
	echo "build-rev: cannot create a worktree of $commit in $wt" >&2
	exit 2
fi
if ! make -C "$wt" --no-print-directory -f collectors/build.mk NAME="$collector" \
	COLLECTOR_DIR="collectors/$collector" OUT="$tmp" "$@" >&2; then
	echo "build-rev: building $collector at $rev failed" >&2
	exit 2
fi
# Publish with one rename, so a concurrent build of the same tree never sees half a folder;
# if one finished first, its folder stands and this one is dropped.
if ! mv -T "$tmp" "$out" 2>/dev/null; then
	[ -f "$out/manifest.json" ] || {
		echo "build-rev: cannot move the build to $out" >&2
		exit 2
	}
fi
echo "$out"
