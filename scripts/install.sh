#!/bin/sh
# install.sh install BUILD DESTDIR PREFIX | install.sh uninstall DESTDIR PREFIX
#
# What `make install` and `make uninstall` run. install copies, under DESTDIR/PREFIX:
#     lib/gcratchet/gcratchet, lib/gcratchet/gcratchet-launch   the CLI and its launcher
#     lib/gcratchet/collectors/<name>/                           every build folder of BUILD
#                                                                (its objects left out)
#     lib/gcratchet/baselines/<profile>/<collector>.json         the committed baselines
#     bin/gcratchet -> ../lib/gcratchet/gcratchet
#     share/bash-completion/completions/gcratchet                `gcratchet completion bash`
#     share/man/man1/gcratchet.1, gcratchet-<verb>.1             `gcratchet completion man`
# The CLI finds its launcher and build folders beside its own executable (/proc/self/exe, the
# link resolved) and reads a baseline from there when the working directory has none, so the
# installed gcratchet runs from any directory; the baselines sit beside the builds they were
# pinned for.
#
# Every file and link written is listed, relative to PREFIX, in lib/gcratchet/install-manifest;
# uninstall removes exactly those (bin/gcratchet only while it is still our link), then the
# folders under lib/gcratchet left empty, and never PREFIX, bin/, lib/ or share/'s folders
# (other packages' completions and man pages live there too), nor a file
# whose path crosses a link at or below lib/gcratchet (install makes none: it is someone
# else's, and so is what it leads to), which it names instead. An install
# over an earlier one first uninstalls that one, so a build folder since removed does not
# linger. DESTDIR stages a package: the manifest's paths stay relative to PREFIX.
set -eu

die() {
	echo "make ${mode:-install}: $*" >&2
	exit 2
}

# crossed_link ROOT PATH — prints the first link among the folders PATH (relative to ROOT,
# under lib/gcratchet/) goes through, from ROOT/lib/gcratchet down, and succeeds; fails when
# there is none. The last component may be a link: removing it removes the link only.
crossed_link() {
	at=$1/lib rest=${2#lib/}
	while :; do
		case $rest in
		*/*) ;;
		*) return 1 ;;
		esac
		at=$at/${rest%%/*} rest=${rest#*/}
		if [ -L "$at" ]; then
			printf '%s\n' "$at"
			return 0
		fi
	done
}

# uninstall ROOT — ROOT is DESTDIR/PREFIX.
uninstall() {
	root=$1
	lib=$root/lib/gcratchet
	manifest=$lib/install-manifest
	[ -f "$manifest" ] || die "nothing to uninstall at ${root:-/}: $manifest, which make install writes, does not exist"
	bad=$(grep -v '^#' "$manifest" | grep -Ev "^(lib/gcratchet/.+|bin/gcratchet|$shared)\$" | head -n 1) || true
	if [ -z "$bad" ]; then
		bad=$(grep -v '^#' "$manifest" | grep -E '(^|/)\.\.(/|$)' | head -n 1) || true
	fi
	[ -z "$bad" ] || die "$manifest: refusing the path \"$bad\": not under lib/gcratchet, bin/gcratchet or gcratchet's completion and man pages"
	# A path that crosses a link at or below lib/gcratchet is not removed: install makes only
	# real folders there, so the link is someone else's, and what lies beyond it too (a
	# baselines/ replaced by a link to a repository's baselines lost 11 of its 12 files).
	paths=$(mktemp)
	trap 'rm -f "$paths" "$paths.links"' EXIT
	grep -v '^#' "$manifest" | grep '^lib/gcratchet/' >"$paths" || true
	: >"$paths.links"
	while IFS= read -r p; do
		if link=$(crossed_link "$root" "$p"); then
			echo "$link" >>"$paths.links"
		else
			rm -f -- "$root/$p"
		fi
	done <"$paths"
	skipped=$(wc -l <"$paths.links")
	if [ "$skipped" -gt 0 ]; then
		echo "make $mode: left $skipped installed files in place: their paths cross a link make install did not make, and removing them would remove what the link leads to:" >&2
		sort "$paths.links" | uniq -c | while read -r n link; do
			echo "    $link -> $(readlink "$link") ($n files)" >&2
		done
	fi
	rm -f "$paths" "$paths.links"
	# The completion and the man pages: files of ours in folders that are not.
	grep -v '^#' "$manifest" | grep -E "^($shared)\$" | while IFS= read -r p; do
		rm -f -- "$root/$p"
	done
	# Only our link: something else installed at bin/gcratchet since is not ours to remove.
	if grep -qx bin/gcratchet "$manifest" &&
		[ "$(readlink "$root/bin/gcratchet" 2>/dev/null)" = ../lib/gcratchet/gcratchet ]; then
		rm -f "$root/bin/gcratchet"
	fi
	if crossed_link "$root" lib/gcratchet/install-manifest >/dev/null; then
		echo "make $mode: $manifest is beyond a link too: left in place" >&2
	else
		rm -f "$manifest"
	fi
	# Deepest first; a folder still holding something that is not ours stays, and is named.
	find "$lib" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	if [ -d "$lib" ]; then
		echo "make $mode: $lib still holds files make install did not write; left in place:" >&2
		find "$lib" ! -type d | sed 's/^/    /' >&2
	fi
}

# install BUILD ROOT
install_all() {
	build=$1 root=$2
	lib=$root/lib/gcratchet
	[ -x "$build/gcratchet" ] && [ -x "$build/gcratchet-launch" ] ||
		die "$build/gcratchet or $build/gcratchet-launch is missing: run make first"
	[ -d "$build/collectors" ] || die "$build/collectors is missing: run make first"
	if [ -f "$lib/install-manifest" ]; then
		uninstall "$root"
	fi
	list=$(mktemp)
	trap 'rm -rf "$list" "$list.c" "$list.b" "$list.m"' EXIT
	mkdir -p "$lib" "$root/bin"
	install -m 755 "$build/gcratchet" "$build/gcratchet-launch" "$lib/"
	echo lib/gcratchet/gcratchet >>"$list"
	echo lib/gcratchet/gcratchet-launch >>"$list"
	# Build folders as they are (probes, wrappers, a JVM build's classes), but not the objects
	# they were linked from; then the baselines.
	(cd "$build" && find collectors -path 'collectors/*/obj' -prune -o ! -type d -print) >"$list.c"
	(cd "$build" && tar -cf - -T "$list.c") | (cd "$lib" && tar -xpf - --no-same-owner)
	(cd "$src" && find baselines -type f -name '*.json') >"$list.b"
	(cd "$src" && tar -cf - -T "$list.b") | (cd "$lib" && tar -xf - --no-same-owner)
	sed 's|^|lib/gcratchet/|' "$list.c" "$list.b" >>"$list"
	ln -sfn ../lib/gcratchet/gcratchet "$root/bin/gcratchet"
	echo bin/gcratchet >>"$list"
	# The bash completion (where bash-completion looks for it by the command's name) and the
	# man pages, made by the CLI from its verbs' declarations, as its --help is.
	mkdir -p "$root/share/bash-completion/completions" "$root/share/man/man1" "$list.m"
	"$build/gcratchet" completion bash >"$list.m/gcratchet" ||
		die "$build/gcratchet completion bash failed"
	install -m 644 "$list.m/gcratchet" "$root/share/bash-completion/completions/gcratchet"
	echo share/bash-completion/completions/gcratchet >>"$list"
	"$build/gcratchet" completion man "$list.m/man" || die "$build/gcratchet completion man failed"
	for page in "$list.m/man"/*.1; do
		install -m 644 "$page" "$root/share/man/man1/"
		echo "share/man/man1/${page##*/}" >>"$list"
	done
	{
		echo "# Written by make install (scripts/install.sh): every file it wrote under PREFIX."
		echo "# make uninstall PREFIX=... removes them."
		cat "$list"
	} >"$lib/install-manifest"
	echo "installed $(wc -l <"$list") files under ${root:-/}: run ${root}/bin/gcratchet"
}

src=$(cd "$(dirname "$0")/.." && pwd)
# The paths outside lib/gcratchet a manifest may list (an extended regular expression).
shared='share/bash-completion/completions/gcratchet|share/man/man1/gcratchet(-[a-z0-9_]+)?\.1'

mode=${1:-}
case $mode in
install)
	[ $# -eq 4 ] || die "usage: install.sh install BUILD DESTDIR PREFIX"
	[ -n "$4" ] || die "PREFIX is empty"
	install_all "$2" "$3$4"
	;;
uninstall)
	[ $# -eq 3 ] || die "usage: install.sh uninstall DESTDIR PREFIX"
	[ -n "$3" ] || die "PREFIX is empty"
	uninstall "$2$3"
	echo "uninstalled gcratchet from ${2}${3}"
	;;
*) die "usage: install.sh install BUILD DESTDIR PREFIX | install.sh uninstall DESTDIR PREFIX" ;;
esac
