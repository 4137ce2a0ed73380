#!/bin/sh
# js/build.sh OUT_ROOT BUILD... — one census-protocol build folder per V8 collector setting:
# OUT_ROOT/collectors/js-<build>/ with a wrapper script per probe, the probes' scripts in lib/
# (each js/probes/NN_name.js with js/probes/probe.js and the build's name and capabilities in
# one file) and a manifest.json ("protocol": "census", docs/manifest.md). `make js` calls it;
# docs/js.md says why each flag is there.
#
# Builds (node's collector settings):
#   default          node's own: semi-spaces from 1 MiB growing to 16, concurrent marking
#   single-threaded  --single-threaded-gc: no background GC threads (marking, sweeping and
#                    compaction on the main thread)
#   semi-1mb         --max-semi-space-size=1: the young generation fixed at its smallest
#   semi-16mb        --min-semi-space-size=16 --max-semi-space-size=16: fixed at node's largest
# NODE (default: the node on PATH) must be node 18 or later (docs/js.md: measured on 20).
set -eu
if [ $# -lt 2 ]; then
	echo "usage: js/build.sh OUT_ROOT BUILD... (default single-threaded semi-1mb semi-16mb)" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out_root=$1
shift

node_cmd=${NODE:-node}
if ! command -v "$node_cmd" >/dev/null 2>&1; then
	echo "js/build.sh: no $node_cmd on PATH: the JS builds need node (V8)." >&2
	echo "  Run scripts/setup.sh --test (as root it installs nodejs), or: apt-get install nodejs" >&2
	exit 2
fi
# The absolute path goes into every wrapper: a build runs the node it was built for, whatever
# PATH a later run has, and that path is part of the build's identity.
node_bin=$(readlink -f "$(command -v "$node_cmd")")
node_version=$("$node_bin" -p 'process.version.slice(1)' 2>/dev/null) || node_version=
v8_version=$("$node_bin" -p 'process.versions.v8' 2>/dev/null) || v8_version=
case $node_version in
1[89].* | [2-9][0-9].*) ;;
*)
	echo "js/build.sh: $node_bin is node '${node_version:-unknown}': the probes' census needs" >&2
	echo "  node 18 or later (perf_hooks gc entries with their detail). Install nodejs" >&2
	echo "  (scripts/setup.sh --test) or point NODE at a newer node." >&2
	exit 2
	;;
esac
# What the census calls the collector's version, in the same words (a census that said
# otherwise would be a warning on every run).
version="node $node_version V8 $v8_version"

probes="01_nursery_churn 02_survivor_promotion 05_binary_trees 11_collect_at_depth
12_large_live_set 13_memory_return 15_request_latency"

commit=$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null) || commit=unknown
dirty=false
if [ "$commit" != unknown ] && [ -n "$(git -C "$root" status --porcelain -- js 2>/dev/null)" ]; then
	dirty=true
fi

# Flags every build shares (docs/js.md, "Flags"):
#   --expose-gc                     the runtime's final full collection (gc()), as every probe
#                                   runtime runs one before its census
#   --no-concurrent-recompilation   TurboFan compiles on the main thread, at the same point of
#                                   every run: compiled in the background, the optimised code
#                                   arrived at moments that varied, and with it what the
#                                   unoptimised code allocated (01's minor collections 169-175
#                                   over five runs; exact with the flag)
common='--expose-gc --no-concurrent-recompilation'

for b in "$@"; do
	# clock_paced (docs/census-protocol.md): whether the build's collections are paced by a
	# clock rather than by allocation alone, as measured (docs/js.md, "What is
	# deterministic"): with V8's background GC threads (concurrent marking and sweeping) what
	# a collection finds depends on how far they got, and over five runs of each probe at ci
	# js-semi-1mb's minor collections moved by one on 02, 05 and 12, and the heap used after
	# the final collection moved on 11, 12 and 13 on all three such builds; with
	# --single-threaded-gc every count and heap figure was the same in every run.
	case $b in
	default) gc= paced=clock_paced ;;
	single-threaded) gc='--single-threaded-gc' paced= ;;
	semi-1mb) gc='--max-semi-space-size=1' paced=clock_paced ;;
	semi-16mb) gc='--min-semi-space-size=16 --max-semi-space-size=16' paced=clock_paced ;;
	*)
		echo "js/build.sh: unknown build '$b' (default single-threaded semi-1mb semi-16mb)" >&2
		exit 2
		;;
	esac
	name=js-$b
	dir=$out_root/collectors/$name
	rm -rf "$dir"
	mkdir -p "$dir/lib"
	caps='"collects", "precise", "moving", "generational", "barrier"'
	[ -n "$paced" ] && caps="$caps, \"$paced\""
	# One script per probe, the runtime inside it, which node reads from its stdin: then no
	# path of the build folder is on the JS heap. Run from a file, node keeps the script's
	# path, its folder and a node_modules path for every folder above it as strings, and
	# heap_used_after_full_bytes grew by 872 bytes from a build under a longer path (an exact
	# cell of a baseline pinned elsewhere, REGRESSED on unchanged code). From stdin the module
	# is "[stdin]" and its paths come from the working directory, the scratch folder, the
	# same length on every host.
	for probe in $probes; do
		{
			printf '/* %s on %s: js/probes/probe.js and js/probes/%s.js in one script, read by\n' \
				"$probe" "$name" "$probe"
			printf " * node from its stdin (js/build.sh says why). */\n'use strict';\n"
			printf 'const GCR_BUILD = {"collector": "%s", "capabilities": [%s]};\n' "$name" "$caps"
			printf 'const gcrRuntime = (function (module) {\n'
			cat "$root/js/probes/probe.js"
			printf 'return module.exports;\n})({ exports: {} });\n'
			sed "s|require('./probe.js')|gcrRuntime|" "$root/js/probes/$probe.js"
		} >"$dir/lib/$probe.js"
		if ! grep -q '^const rt = gcrRuntime;$' "$dir/lib/$probe.js"; then
			echo "js/build.sh: js/probes/$probe.js does not start its runtime as const rt = require('./probe.js')" >&2
			exit 2
		fi
	done
	# One digest for the scripts: the wrappers name it, so a changed script is a changed
	# wrapper and so a changed build (the manifest hashes the wrappers and checks this).
	lib_sha=$(cd "$dir/lib" && sha256sum -- * | sha256sum | cut -d' ' -f1)
	for probe in $probes; do
		cat >"$dir/$probe" <<WRAPPER
#!/bin/sh
# $probe on $name: gcratchet's JS probe (js/probes/$probe.js), run by node $node_version
# (V8 $v8_version) with ${gc:-node's own collector settings}. Written by js/build.sh: the
# manifest's sha256 of this file is the build's identity, and it names the scripts it runs by
# their digest:
# lib sha256 $lib_sha
heap=
n=\${GCR_HEAP_MAX_MB:-}
if [ -n "\$n" ]; then
	case \$n in
	*[!0-9]* | 0*) n=bad ;;
	*) [ \${#n} -le 7 ] && [ "\$n" -le 1048576 ] || n=bad ;;
	esac
	if [ "\$n" = bad ]; then
		echo "$name: GCR_HEAP_MAX_MB='\$GCR_HEAP_MAX_MB': expected a whole number of MiB from 1 to 1048576" >&2
		exit 2
	fi
	# The whole heap, young generation included (--max-old-space-size would leave the
	# semi-spaces on top of the limit).
	heap="--max-heap-size=\$n"
fi
# What node reads from the environment stays out of a run: a variable of the caller's would
# make the run another program (NODE_OPTIONS adds flags; NODE_EXTRA_CA_CERTS alone moved peak
# RSS by 1.6-3.7%: node parses the certificates at start).
unset NODE_OPTIONS NODE_EXTRA_CA_CERTS NODE_PATH NODE_ICU_DATA NODE_V8_COVERAGE NODE_DEBUG \\
	NODE_DEBUG_NATIVE NODE_PENDING_DEPRECATION NODE_PRESERVE_SYMLINKS NODE_REDIRECT_WARNINGS \\
	NODE_NO_WARNINGS NODE_COMPILE_CACHE NODE_TLS_REJECT_UNAUTHORIZED UV_THREADPOOL_SIZE \\
	OPENSSL_CONF SSL_CERT_FILE SSL_CERT_DIR
# The harness runs a probe through a link in its scratch folder: the scripts are beside the
# file the link points to, not beside the link.
dir=\$(dirname "\$(readlink -f "\$0")")
if [ -z "\$heap" ]; then
	# shellcheck disable=SC2086
	exec '$node_bin' $common $gc - "\$@" <"\$dir/lib/$probe.js"
fi
# Under a heap limit V8's out-of-memory is fatal (an abort, or a trap while it starts), not
# an exception the probe could catch: the wrapper waits for node, and turns that death into
# the ABI's heap exhaustion, status 3 and "heap exhausted" (gcr.h).
err=\$(mktemp "\${TMPDIR:-/tmp}/gcr-js-stderr.XXXXXX") || exit 2
rc=0
# shellcheck disable=SC2086
'$node_bin' $common $gc \$heap - "\$@" <"\$dir/lib/$probe.js" 2>"\$err" || rc=\$?
cat "\$err" >&2
if [ \$rc -ne 0 ] && grep -q -i -e 'heap out of memory' -e 'javascript OOM' -e 'heap limit' "\$err"; then
	rm -f "\$err"
	echo "$probe: heap exhausted: V8 ran out of memory in a heap of \$n MiB (--max-heap-size=\$n, node's status \$rc)" >&2
	exit 3
fi
rm -f "\$err"
exit \$rc
WRAPPER
		chmod 755 "$dir/$probe"
	done
	{
		printf '{\n  "format": "gcratchet-build",\n  "version": 2,\n  "protocol": "census",\n'
		printf '  "name": "%s",\n  "collector": "%s",\n  "collector_version": "%s",\n' \
			"$name" "$name" "$version"
		printf '  "git_commit": "%s",\n  "git_dirty": %s,\n' "$commit" "$dirty"
		printf '  "node": "%s",\n  "node_flags": "%s",\n  "lib_sha256": "%s",\n' \
			"$node_bin" "$common${gc:+ $gc}" "$lib_sha"
		# Default sessions leave valgrind off: cachegrind would count V8's start-up,
		# interpreter and compilers (docs/js.md, "Meters").
		printf '  "meters_off": {"valgrind": "%s"},\n' \
			"node under valgrind counts V8's start-up and JIT compilers, not the probe, and takes minutes a run (docs/js.md)"
		# The one knob the wrappers read (--max-heap-size): only declared knobs reach a
		# probe from the caller's environment.
		printf '  "knobs": ["GCR_HEAP_MAX_MB"],\n'
		# As the census says them: it adds pause_log, its gc entries being the pause log.
		printf '  "capabilities": [%s, "pause_log"],\n' "$caps"
		printf '  "probes": ['
		sep=
		for probe in $probes; do
			sum=$(sha256sum "$dir/$probe" | cut -d' ' -f1)
			printf '%s\n    { "name": "%s", "file": "%s", "sha256": "%s", "wrapper": true,\n' \
				"$sep" "$probe" "$probe" "$sum"
			printf '      "argv": ["{exe}", "{size}"], "argv_iterations": ["{exe}", "--iterations", "{iterations}"] }'
			sep=,
		done
		printf '\n  ]\n}\n'
	} >"$dir/manifest.json.tmp"
	mv "$dir/manifest.json.tmp" "$dir/manifest.json"
	echo "js/build.sh: $dir ($version${gc:+, $gc})"
done
