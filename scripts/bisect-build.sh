#!/bin/sh
# bisect-build.sh — builds one commit for `gcratchet bisect`, in a temporary `git worktree`
# of the repository, into the build folder OUT (published with one rename, so a folder that
# exists is whole). Two kinds:
#
#   bisect-build.sh dir REPO COMMIT OUT CHECKOUT SUBDIR NAME [VAR=VALUE...]
#       an out-of-tree collector (docs/out-of-tree.md): the folder SUBDIR of REPO at COMMIT,
#       built by CHECKOUT's collectors/build.mk (the probes and rules of the gcratchet that
#       measures it) as build NAME; each VAR=VALUE goes to make (PROBE_SRCS=..., CC=clang)
#   bisect-build.sh cmd REPO COMMIT OUT CHECKOUT COMMAND
#       anything else: `sh -c COMMAND` in the worktree, which must leave a build folder (a
#       manifest.json, docs/manifest.md) in $GCR_BISECT_OUT. It also gets GCR_BISECT_COMMIT
#       (the full hash) and GCR_BISECT_CHECKOUT (the gcratchet checkout, for its make rules).
#
# The worktree is removed afterwards, whatever happened; the repository's own checkout is
# never touched. REPO may be bare (a mirror, `git clone --bare`): a worktree of it is a checkout
# like any other. Build output goes to stderr (gcratchet keeps it in a log beside OUT).
# Exit status: 0 built; 2 the build failed or left no manifest; 3 COMMIT is not a commit of
# REPO or no worktree could be made.
set -eu

kind=${1:?usage: bisect-build.sh dir|cmd REPO COMMIT OUT CHECKOUT ...}
repo=${2:?}
commit=${3:?}
out=${4:?}
checkout=${5:?}
shift 5

if ! full=$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}"); then
	echo "bisect-build: \"$commit\" is not a commit of $repo" >&2
	exit 3
fi
parent=$(dirname "$out")
mkdir -p "$parent"
wt=$(mktemp -d "$parent/worktree.XXXXXX")
tmp=$out.tmp.$$
cleanup() {
	git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$repo" worktree prune >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

if ! git -C "$repo" worktree add --detach --quiet "$wt" "$full" >&2; then
	echo "bisect-build: cannot create a worktree of $full in $wt" >&2
	exit 3
fi

case $kind in
dir)
	subdir=${1?}
	name=${2:?}
	shift 2
	src=$wt
	[ -n "$subdir" ] && src=$wt/$subdir
	if [ ! -d "$src" ]; then
		echo "bisect-build: commit $full has no folder ${subdir:-.}" >&2
		exit 2
	fi
	echo "bisect-build: building $name from ${subdir:-.} at $full" >&2
	# Every CPU: the bisect holds the bench lock while it builds, so nothing is measured now.
	if ! make -j "$(nproc 2>/dev/null || echo 1)" -C "$checkout" --no-print-directory \
		-f collectors/build.mk \
		COLLECTOR_DIR="$src" NAME="$name" OUT="$tmp" "$@" >&2; then
		echo "bisect-build: building $name at $full failed" >&2
		exit 2
	fi
	;;
cmd)
	command=${1:?}
	echo "bisect-build: running the build command at $full" >&2
	if ! (cd "$wt" && GCR_BISECT_OUT=$tmp GCR_BISECT_COMMIT=$full \
		GCR_BISECT_CHECKOUT=$checkout sh -c "$command") >&2; then
		echo "bisect-build: the build command failed at $full" >&2
		exit 2
	fi
	;;
*)
	echo "bisect-build: unknown kind \"$kind\" (dir or cmd)" >&2
	exit 3
	;;
esac

if [ ! -f "$tmp/manifest.json" ]; then
	echo "bisect-build: the build left no manifest.json in $tmp" >&2
	exit 2
fi
rm -rf "$out"
mv -T "$tmp" "$out"
