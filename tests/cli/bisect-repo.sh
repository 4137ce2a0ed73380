# bisect-repo.sh — sourced by the bisect tests (t160-t164) after lib.sh: a throwaway git
# repository of an out-of-tree collector, examples/tinyms, with a known history.
#
# bisect_repo DIR [BROKEN] makes DIR, a repository of 16 commits whose collector folder is
# DIR/tinyms; commit k has the subject "c<k>: ...":
#   c1   tinyms as shipped
#   c6   counts one minor collection (census.minor_collections 0 -> 1 on every probe)
#   c11  adds a little dependent arithmetic to every gcr_alloc (about +2% Ir on 15)
#   c14  stops counting the minor collection again (an improvement of c6's figure)
#   the others add a line to NOTES, which changes nothing the build reads.
# With BROKEN = k, commit k also breaks tinyms.c (it does not compile) and commit k+1 mends it.
# bisect_hash DIR K prints commit K's hash.
bisect_repo() {
	_dir=$1 _broken=${2:-0}
	mkdir -p "$_dir"
	cp -R "$TOP/examples/tinyms" "$_dir/tinyms"
	git -C "$_dir" init -q
	for _k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		_what="notes"
		case $_k in
		1) _what="tinyms as shipped" ;;
		6)
			_what="count a minor collection"
			sed -i 's/gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 0);/gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 1);/' "$_dir/tinyms/tinyms.c"
			;;
		11)
			_what="spin on every allocation"
			sed -i '/^\ttms_alloc_objects++;$/a\
	{\
		static volatile uint64_t tms_sink;\
		uint64_t x = tms_sink;\
		for (unsigned i = 4; i > 0; i--)\
			x = x * 6364136223846793005u + 1442695040888963407u;\
		tms_sink = x;\
	}' "$_dir/tinyms/tinyms.c"
			;;
		14)
			_what="stop counting the minor collection"
			sed -i 's/gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 1);/gcr_census_set(c, GCR_C_MINOR_COLLECTIONS, 0);/' "$_dir/tinyms/tinyms.c"
			;;
		*) echo "note $_k" >>"$_dir/NOTES" ;;
		esac
		if [ "$_k" = "$_broken" ]; then
			_what="$_what, and a typo"
			echo "this is not C" >>"$_dir/tinyms/tinyms.c"
		elif [ "$_broken" != 0 ] && [ "$_k" = $((_broken + 1)) ]; then
			_what="$_what, and the typo mended"
			sed -i '/^this is not C$/d' "$_dir/tinyms/tinyms.c"
		fi
		git -C "$_dir" add -A
		git -C "$_dir" -c user.name=bisect -c user.email=bisect@example.org \
			commit -q -m "c$_k: $_what" || return 1
	done
}

bisect_hash() {
	git -C "$1" log --format=%H --reverse | sed -n "${2}p"
}

# script_repo DIR makes DIR, an empty repository of a build command, build.sh, that makes a
# build folder of two shell-script probes speaking the census protocol: 01_sleepy and
# 02_steady. Each reads, from the commit's tree, spin-<probe>.txt (milliseconds of CPU,
# separated by commas, taken in turn, one per run: "33,83" is a noisy CPU time; default 0; a
# test that plants one runs build_cpu_spin first: the probes run lib.sh's $T/cpu_spin),
# alloc-<probe>.txt (its census.alloc_bytes, default 1000), fail-<probe>.txt (1: the probe
# fails, exit 3) and crash-<probe>.txt (1: the probe kills itself with SIGSEGV; aslr: only when
# it runs with address randomisation on, as a layout-dependent crash does). A file BROKEN
# holding 1 makes the build fail; a file HANG holding N makes it
# hang for N seconds in a child (its pid in the cache folder's hang.pid) that ignores SIGTERM,
# as a stuck compiler might. bisect runs it as
# --build-cmd "sh build.sh" --repo DIR.
# script_commit DIR K FILE=TEXT... writes each FILE and commits it as "c<K>: FILE=TEXT ...".
script_repo() {
	mkdir -p "$1"
	git -C "$1" init -q
	cat >"$1/build.sh" <<'SH'
#!/bin/sh
# A build folder in $GCR_BISECT_OUT, of probes that do what this commit's files say.
set -eu
if [ "$(cat BROKEN 2>/dev/null)" = 1 ]; then
	echo "build.sh:1: error: BROKEN says this commit does not build" >&2
	exit 1
fi
if [ -s HANG ]; then
	sh -c 'trap "" TERM; sleep "$1"' sh "$(cat HANG)" &
	echo $! >"$(dirname "$GCR_BISECT_OUT")/hang.pid"
	wait
fi
out=$GCR_BISECT_OUT
mkdir -p "$out"
entries=
for p in 01_sleepy 02_steady; do
	if [ -f "spin-$p.txt" ]; then tr ',' '\n' <"spin-$p.txt" >"$out/spin-$p"; else echo 0 >"$out/spin-$p"; fi
	cat "alloc-$p.txt" 2>/dev/null >"$out/alloc-$p" || echo 1000 >"$out/alloc-$p"
	cat "fail-$p.txt" 2>/dev/null >"$out/fail-$p" || echo 0 >"$out/fail-$p"
	cat "crash-$p.txt" 2>/dev/null >"$out/crash-$p" || echo 0 >"$out/crash-$p"
	cat >"$out/$p" <<PROBE
#!/bin/sh
d=\$(dirname "\$(readlink -f "\$0")")
k=\$(cat "\$d/turn-$p" 2>/dev/null || echo 0)
echo \$((k + 1)) >"\$d/turn-$p"
ms=\$(sed -n "\$((k % \$(wc -l <"\$d/spin-$p") + 1))p" "\$d/spin-$p")
[ "\$ms" = 0 ] || @CPU_SPIN@ "\$ms" || exit 4
crash=\$(cat "\$d/crash-$p")
# ADDR_NO_RANDOMIZE (0x0040000) in the personality the probe was started with: ASLR is off.
if [ "\$crash" = 1 ] || { [ "\$crash" = aslr ] && [ \$((0x\$(cat /proc/self/personality) & 0x40000)) = 0 ]; }; then
	kill -SEGV \$\$
fi
if [ "\$(cat "\$d/fail-$p")" = 1 ]; then
	echo "$p: out of cheese" >&2
	exit 3
fi
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":%s,"alloc_objects":10}}' "\$1" "\$(cat "\$d/alloc-$p")" >&3
PROBE
	chmod +x "$out/$p"
	entries="$entries${entries:+,}{\"name\":\"$p\",\"file\":\"$p\",\"sha256\":\"$(sha256sum <"$out/$p" | cut -c1-64)\"}"
done
printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"scripted","collector":"scripted","collector_version":"1.0","git_commit":"%s","probes":[%s]}\n' \
	"$GCR_BISECT_COMMIT" "$entries" >"$out/manifest.json"
SH
	sed -i "s#@CPU_SPIN@#'$T/cpu_spin'#" "$1/build.sh"
}

script_commit() {
	_dir=$1 _k=$2
	shift 2
	for _f in "$@"; do
		printf '%s\n' "${_f#*=}" >"$_dir/${_f%%=*}"
	done
	echo "note $_k" >>"$_dir/NOTES"
	git -C "$_dir" add -A
	git -C "$_dir" -c user.name=bisect -c user.email=bisect@example.org \
		commit -q -m "c$_k: ${*:-notes}"
}
