#!/bin/sh
# manifest.sh NAME COLLECTOR VERSION CFLAGS LIBS OUT PROBE... — prints a build folder's
# manifest.json (docs/manifest.md, version 2; the same schema `gcratchet manifest DIR` writes
# for a foreign folder): what the harness records about a build, each probe's sha256 included.
set -eu
name=$1 collector=$2 version=$3 cflags=$4 libs=$5 out=$6
shift 6
abi=$(sed -n 's/^#define GCR_ABI_VERSION \([0-9]*\).*/\1/p' "$(dirname "$0")/../collectors/include/gcr.h")
commit=$(git -C "$(dirname "$0")/.." rev-parse --verify -q HEAD 2>/dev/null) || commit=unknown
dirty=false
if [ "$commit" != unknown ] && [ -n "$(git -C "$(dirname "$0")/.." status --porcelain -- collectors probes 2>/dev/null)" ]; then
	dirty=true
fi
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
# The toolchain: $CC as invoked, what it says it is, the code-generation flags
# ($TOOLCHAIN_FLAGS) and the installed valgrind; Ir is comparable only within one toolchain.
cc=${CC:-cc}
cc_line=$($cc --version 2>/dev/null | head -n 1) || cc_line=
cc_v=$($cc -v 2>&1) || cc_v=
case $cc_v in
*'clang version'*)
	cc_id=clang
	cc_version=$(printf '%s\n' "$cc_v" | sed -n 's/.*clang version \([^ ]*\).*/\1/p' | head -n 1) ;;
*'gcc version'*)
	cc_id=gcc
	cc_version=$($cc -dumpfullversion 2>/dev/null) || cc_version= ;;
*)
	cc_id=${cc_line%% *}
	cc_version=$($cc -dumpversion 2>/dev/null) || cc_version= ;;
esac
vg=$(valgrind --version 2>/dev/null | head -n 1) || vg=
printf '{\n  "format": "gcratchet-build",\n  "version": 2,\n  "abi": %s,\n' "$abi"
printf '  "name": "%s",\n  "collector": "%s",\n' "$(esc "$name")" "$(esc "$collector")"
printf '  "collector_version": "%s",\n  "git_commit": "%s",\n  "git_dirty": %s,\n' \
	"$(esc "$version")" "$commit" "$dirty"
printf '  "compiler": "%s",\n' "$(esc "$cc_line")"
printf '  "toolchain": {"cc": "%s", "cc_version": "%s", "compiler": "%s", "version": "%s",\n' \
	"$(esc "$cc")" "$(esc "$cc_line")" "$(esc "${cc_id:-unknown}")" "$(esc "${cc_version:-unknown}")"
printf '    "flags": "%s", "valgrind": %s},\n' "$(esc "${TOOLCHAIN_FLAGS:-}")" \
	"$(if [ -n "$vg" ]; then printf '"%s"' "$(esc "$vg")"; else printf null; fi)"
# The environment variables its probes read as knobs ($BUILD_KNOBS, collectors/build.mk): only
# these reach them from the caller's environment.
printf '  "knobs": ['
sep=
for k in ${BUILD_KNOBS:-}; do
	printf '%s"%s"' "$sep" "$(esc "$k")"
	sep=', '
done
printf '],\n'
printf '  "cflags": "%s",\n  "libs": "%s",\n  "probes": [' "$(esc "$cflags")" "$(esc "$libs")"
sep=
for p in "$@"; do
	sum=$(sha256sum "$out/$p" | cut -d' ' -f1)
	printf '%s\n    { "name": "%s", "file": "%s", "sha256": "%s" }' "$sep" "$p" "$p" "$sum"
	sep=,
done
printf '\n  ]\n}\n'
