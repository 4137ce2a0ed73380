#!/bin/sh
# layers.sh — which part of the harness may include which (docs/architecture.md, "Layers").
#   core     harness/*.c|h that are not below: measures, stores, judges; never prints or exits
#   reports  reports/*.c|h: renders what the core computed
#   cli      the cli layer under the verbs: option parsing, session set-up, what verbs share
#   verbs    harness/cmd_*.c and main.c: one declaration each (cmds.h)
# A file may include headers of its own layer and of the layers above it in this list, never
# of one below: core includes neither reports, cli nor cmds headers; reports no cli or cmds
# header; the cli layer not cmds.h. cmds.h declares only the verbs (extern const struct
# cli_verb cmd_NAME), so no verb can call another. Prints each breach as FILE:LINE and
# exits 1; 0 when there is none.
# Usage: scripts/layers.sh [ROOT]
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
# The cli layer's files, by stem (harness/STEM.c and harness/STEM.h).
CLI_STEMS="cli cli_parse session_opts ab_report measuring heapsearch verdict bisect_fleet"
layer_of() { # path -> core|reports|cli|verbs
	case $1 in
	reports/*) echo reports ;;
	harness/cmd_*.c | harness/main.c | harness/cmds.h) echo verbs ;;
	harness/*)
		stem=$(basename "$1") stem=${stem%.*}
		for s in $CLI_STEMS; do [ "$s" = "$stem" ] && { echo cli; return; }; done
		echo core ;;
	esac
}
rank() { case $1 in core) echo 0 ;; reports) echo 1 ;; cli) echo 2 ;; verbs) echo 3 ;; esac; }
breaches=0
for f in harness/*.c harness/*.h reports/*.c reports/*.h; do
	[ -f "$f" ] || continue
	mine=$(rank "$(layer_of "$f")")
	grep -n '^#include "[^"]*"' "$f" | while IFS= read -r line; do
		n=${line%%:*} h=${line#*\"} h=${h%\"*}
		if [ -f "harness/$h" ]; then hp="harness/$h"; elif [ -f "reports/$h" ]; then hp="reports/$h"; else continue; fi
		theirs=$(rank "$(layer_of "$hp")")
		if [ "$theirs" -gt "$mine" ]; then
			echo "$f:$n: a $(layer_of "$f") file includes $h, of the $(layer_of "$hp") layer"
		fi
	done
done >"${TMPDIR:-/tmp}/layers.$$"
# cmds.h: only the verbs' declarations (and what they need: comments, guards, includes).
awk '{ line = $0; out = ""
	while (line != "") {
		if (incomment) { i = index(line, "*/"); if (!i) { line = ""; break } line = substr(line, i + 2); incomment = 0; continue }
		i = index(line, "/*"); if (!i) { out = out line; break }
		out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
	}
	if (out ~ /^#/ || out ~ /^[ \t]*$/) next
	if (out ~ /^extern const struct cli_verb cmd_[a-z_]+;$/ || out ~ /^struct [a-z_]+;$/) next
	printf "harness/cmds.h:%d: %s  <- cmds.h declares only the verbs (cmd_NAME)\n", NR, out }' harness/cmds.h >>"${TMPDIR:-/tmp}/layers.$$"
breaches=$(wc -l <"${TMPDIR:-/tmp}/layers.$$")
cat "${TMPDIR:-/tmp}/layers.$$"
rm -f "${TMPDIR:-/tmp}/layers.$$"
if [ "$breaches" -ne 0 ]; then
	echo "layers: $breaches breach(es) (scripts/layers.sh says which layer may include which)" >&2
	exit 1
fi
echo "layers: every include goes down a layer or stays in its own; cmds.h declares only verbs"
