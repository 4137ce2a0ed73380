#!/bin/sh
# jvm/build.sh OUT_ROOT COLLECTOR... — builds the JVM probes (jvm/probes/*.java) once and one
# census-protocol build folder per JVM collector: OUT_ROOT/collectors/jvm-<collector>/ with a
# wrapper script per probe, the compiled classes and a manifest.json ("protocol": "census",
# docs/manifest.md). `make jvm` calls it; docs/jvm.md says why each flag is there.
#
# Collectors: serial parallel g1 zgc shenandoah epsilon (OpenJDK 17's six).
# JAVA and JAVAC (default: the java and javac on PATH) must be OpenJDK 17: the census maps
# JDK 17's collector bean names, and a later JDK's generational ZGC has others.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: jvm/build.sh OUT_ROOT COLLECTOR..." >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out_root=$1
shift

java_cmd=${JAVA:-java}
javac_cmd=${JAVAC:-javac}
if ! command -v "$java_cmd" >/dev/null 2>&1 || ! command -v "$javac_cmd" >/dev/null 2>&1; then
	echo "jvm/build.sh: no $java_cmd or $javac_cmd on PATH: the JVM builds need OpenJDK 17." >&2
	echo "  Run scripts/setup.sh --test (as root it installs openjdk-17-jdk-headless), or:" >&2
	echo "  apt-get install openjdk-17-jdk-headless" >&2
	exit 2
fi
# The absolute path goes into every wrapper: a build runs the JVM it was built for, whatever
# PATH a later run has, and that path is part of the build's identity.
java_bin=$(readlink -f "$(command -v "$java_cmd")")
vm_version=$("$java_bin" -XshowSettings:properties -version 2>&1 |
	sed -n 's/^ *java\.vm\.version = //p')
case $vm_version in
17 | 17.*) ;;
*)
	echo "jvm/build.sh: $java_bin is version '${vm_version:-unknown}', not OpenJDK 17:" >&2
	echo "  the census knows JDK 17's collector beans. Install openjdk-17-jdk-headless" >&2
	echo "  (scripts/setup.sh --test) or point JAVA and JAVAC at a JDK 17." >&2
	exit 2
	;;
esac

# Probe classes: the C probe's name, as the C build folders name their executables.
probes="01_nursery_churn:P01NurseryChurn 02_survivor_promotion:P02SurvivorPromotion
05_binary_trees:P05BinaryTrees 11_collect_at_depth:P11CollectAtDepth 12_large_live_set:P12LargeLiveSet
15_request_latency:P15RequestLatency"

classes=$out_root/jvm/classes
rm -rf "$classes"
mkdir -p "$classes"
# -encoding: the sources are UTF-8 whatever the locale (LANG unset makes javac read ASCII).
"$javac_cmd" -encoding UTF-8 -Xlint:all -Werror --release 17 -d "$classes" "$root"/jvm/probes/*.java
# One digest for all the classes: javac's output is the same bytes for the same sources and
# compiler, so it names what the wrappers run (the manifest hashes the wrappers).
classes_sha=$(cd "$classes" && sha256sum -- *.class | sha256sum | cut -d' ' -f1)

commit=$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null) || commit=unknown
dirty=false
if [ "$commit" != unknown ] && [ -n "$(git -C "$root" status --porcelain -- jvm 2>/dev/null)" ]; then
	dirty=true
fi

# Flags every collector shares (docs/jvm.md, "Flags"):
#   -XX:TieredStopAtLevel=1  C1 only: every `new` allocates, as gcr_alloc does. C2 removes
#                          allocations (escape analysis, and unused objects even with
#                          -XX:-DoEscapeAnalysis) at moments that vary run to run: 02's
#                          alloc_bytes spread 34.4-35.7 MB under C2, 52,801,928 every time
#                          under C1 (and under -Xint)
#   -XX:-UsePerfData       no hsperfdata file in /tmp, no shared-memory counters
#   -Xshare:auto           the JDK's class-data archive (the default, said out loud)
#   -Xlog:...              the JVM's own warnings on stderr: stdout carries only the checksum
#   -XX:+ErrorFileToStderr a crash's report (hs_err) on stderr, whose tail the run keeps, not
#                          an hs_err_pid*.log in the working directory: that is the session's
#                          scratch folder, and a file left there kept the folder in /tmp
common='-XX:-UsePerfData -Xshare:auto -XX:TieredStopAtLevel=1 -Xlog:disable -Xlog:all=warning:stderr -XX:+ErrorFileToStderr'

for c in "$@"; do
	case $c in
	serial) gc='-XX:+UseSerialGC' ;;
	parallel) gc='-XX:+UseParallelGC' ;;
	g1) gc='-XX:+UseG1GC' ;;
	zgc) gc='-XX:+UseZGC' ;;
	shenandoah) gc='-XX:+UseShenandoahGC' ;;
	epsilon) gc='-XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC' ;;
	*)
		echo "jvm/build.sh: unknown JVM collector '$c' (serial parallel g1 zgc shenandoah epsilon)" >&2
		exit 2
		;;
	esac
	# The heap is fixed per size (-Xms = -Xmx: no resizing policy in the counts) and the same
	# for every collector but two. Epsilon never frees and so needs all the run allocates; it
	# starts at 64 MB and commits as it goes. ZGC (JDK 17: one generation) starts a cycle by
	# its own clock-driven heuristics until the heap is full, and at ci a 64 MB heap outlasts
	# 02's 52.8 MB and 12's ~32 MB of churn over its 9 MB live set: 02 or 12 ran with no
	# collection (premise not met) in about half the ratchets. At 32 MB both must collect
	# (40 of 40 runs met, 3 to 5 cycles), and 05 (exhausted below ~21 MB) still fits. So at ci
	# ZGC's figures are at half the others' heap: compare collectors at one heap with
	# `gcratchet sweep` (docs/jvm.md). --iterations runs get the default size's heap. One
	# probe, 15, has heaps of its own (below).
	case $c in
	epsilon) heap_ci='-Xms64m -Xmx1g' heap_default='-Xms64m -Xmx4g' heap_large='-Xms64m -Xmx20g' ;;
	zgc) heap_ci='-Xms32m -Xmx32m' heap_default='-Xms512m -Xmx512m' heap_large='-Xms4g -Xmx4g' ;;
	*) heap_ci='-Xms64m -Xmx64m' heap_default='-Xms512m -Xmx512m' heap_large='-Xms4g -Xmx4g' ;;
	esac
	# The ABI's hard heap limit (GCR_HEAP_MAX_MB, gcr.h) is -Xmx, and the heap stays fixed
	# (-Xms the same) but for Epsilon's, which commits as it goes. Below the smallest -Xmx a
	# probe starts in (OpenJDK 17.0.15 here: G1, Shenandoah and ZGC 3 MiB, the others 2; ZGC
	# starts in 2 but throws OutOfMemoryError loading the probe, before its handler is set)
	# it cannot run at all: heap exhausted, as a C collector whose first request does not fit.
	case $c in
	g1 | shenandoah | zgc) floor_mb=3 ;;
	*) floor_mb=2 ;;
	esac
	# Epsilon turns ExitOnOutOfMemoryError on (a message without "heap exhausted", status 3):
	# off, the probe's own handler says it (jvm/probes/Probe.java).
	if [ "$c" = epsilon ]; then
		limited='-Xms$((n < 64 ? n : 64))m -Xmx${n}m -XX:-ExitOnOutOfMemoryError'
	else
		limited='-Xms${n}m -Xmx${n}m'
	fi
	# The JVM's own GC log, the census's pause figures (JvmPauseLog.java): every pause is a
	# line of -Xlog:gc (ZGC's under gc+phases), decorated with timenanos (System.nanoTime()'s
	# clock), written to a file of the run's own in its working directory (the session's
	# scratch folder), which the census reads and removes. Epsilon never pauses: no log.
	case $c in
	epsilon) gclog_tags= ;;
	zgc) gclog_tags=gc+phases ;;
	*) gclog_tags=gc ;;
	esac
	name=jvm-$c
	dir=$out_root/collectors/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -R "$classes" "$dir/classes"
	for pc in $probes; do
		probe=${pc%%:*} class=${pc#*:}
		# 15's request loop allocates less than the sizes' heaps hold (14 MB at ci, 141 MB at
		# default, 564 MB at large), so there a collector that collects need not collect while
		# requests are in flight, its premise: at ci ZGC completed a cycle inside the loop in 2
		# of 13 runs and Shenandoah in 0 of 7 (their first cycles start near the loop's end),
		# and at default Shenandoah in neither run. So it runs on every collector but Epsilon
		# in a heap that holds its live set (~2.4, 10.5 and 23 MB) but not its loop, the same
		# for all five: at ci 4 collections in the loop (ZGC: 1 or 2, an allocation stall).
		p_ci=$heap_ci p_default=$heap_default p_large=$heap_large
		if [ "$probe" = 15_request_latency ] && [ "$c" != epsilon ]; then
			p_ci='-Xms16m -Xmx16m' p_default='-Xms64m -Xmx64m' p_large='-Xms256m -Xmx256m'
		fi
		cat >"$dir/$probe" <<WRAPPER
#!/bin/sh
# $probe on $name: gcratchet's JVM probe $class (jvm/probes/), run by OpenJDK
# $vm_version with $gc. Written by jvm/build.sh: the manifest's sha256 of this file
# is the build's identity, and it names the classes it runs by their digest:
# classes sha256 $classes_sha
size=default next=
for a in "\$@"; do
	if [ -n "\$next" ]; then
		size=\$a next=
		continue
	fi
	case \$a in
	ci | default | large) size=\$a ;;
	--size) next=1 ;;
	--size=*) size=\${a#--size=} ;;
	esac
done
case \$size in
ci) heap='$p_ci' ;;
large) heap='$p_large' ;;
*) heap='$p_default' ;;
esac
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
	if [ "\$n" -lt $floor_mb ]; then
		echo "$name: heap exhausted: the VM does not start with a heap under $floor_mb MiB (GCR_HEAP_MAX_MB=\$n)" >&2
		exit 3
	fi
	heap="$limited"
fi
unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS
dir=\$(dirname "\$(readlink -f "\$0")")
gclog=
if [ -n '$gclog_tags' ]; then
	# Relative to the working directory, where the JVM opens it (a ':' in a path would end
	# the -Xlog option); elsewhere when that is not writable. This pid is the JVM's.
	gclog=gcratchet-gc.\$\$.log
	[ -w . ] || gclog=\${TMPDIR:-/tmp}/gcratchet-gc.\$\$.log
	rm -f "\$gclog"
	gclog="-Xlog:$gclog_tags:file=\$gclog:tn:filecount=0 -Dgcratchet.gclog=\$gclog"
fi
# shellcheck disable=SC2086
exec '$java_bin' \$heap $common $gc \$gclog -cp "\$dir/classes" $class "\$@"
WRAPPER
		chmod 755 "$dir/$probe"
	done
	{
		printf '{\n  "format": "gcratchet-build",\n  "version": 2,\n  "protocol": "census",\n'
		printf '  "name": "%s",\n  "collector": "%s",\n  "collector_version": "%s",\n' \
			"$name" "$name" "$vm_version"
		printf '  "git_commit": "%s",\n  "git_dirty": %s,\n' "$commit" "$dirty"
		printf '  "java": "%s",\n  "java_flags": "%s %s",\n  "gc_log": "%s",\n' \
			"$java_bin" "$common" "$gc" "${gclog_tags:+-Xlog:$gclog_tags:file=<scratch>/gcratchet-gc.<pid>.log:tn}"
		printf '  "classes_sha256": "%s",\n' "$classes_sha"
		# Default sessions leave valgrind off: cachegrind would count the JVM's start-up,
		# interpreter and JIT, 36-78 s a run at ci and 1.2% apart (docs/jvm.md).
		printf '  "meters_off": {"valgrind": "%s"},\n' \
			"a JVM under valgrind takes about a minute a run at ci and its Ir is not repeatable (docs/jvm.md)"
		# The one knob the wrappers read (-Xmx): only declared knobs reach a probe from the
		# caller's environment.
		printf '  "knobs": ["GCR_HEAP_MAX_MB"],\n'
		printf '  "probes": ['
		sep=
		for pc in $probes; do
			probe=${pc%%:*}
			sum=$(sha256sum "$dir/$probe" | cut -d' ' -f1)
			printf '%s\n    { "name": "%s", "file": "%s", "sha256": "%s", "wrapper": true,\n' \
				"$sep" "$probe" "$probe" "$sum"
			printf '      "argv": ["{exe}", "{size}"], "argv_iterations": ["{exe}", "--iterations", "{iterations}"] }'
			sep=,
		done
		printf '\n  ]\n}\n'
	} >"$dir/manifest.json.tmp"
	mv "$dir/manifest.json.tmp" "$dir/manifest.json"
	echo "jvm/build.sh: $dir ($vm_version, $gc)"
done
