# lib.sh — shared by the CLI tests: a scratch folder, the gcratchet under test, and checks
# that count. Each test script sources this, runs checks, and ends with `finish`.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GCR="${GCR:-$TOP/build/gcratchet}"
T=$(mktemp -d /tmp/gcratchet-cli.XXXXXX)
export GCR_DB="$T/results.db"
# A bench lock of its own: no test waits for a real session on the host, nor for a test run
# beside it (tests/run.sh runs two at a time). The tests of the lock set theirs.
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$TOP/baselines"
cd "$T" || exit 2
trap 'rm -rf "$T"' EXIT
_passed=0 _failed=0 _skipped=0

pass() { _passed=$((_passed + 1)); }
fail() {
	_failed=$((_failed + 1))
	echo "FAILED: $*" >&2
}
# skip REASON — a check (or a set of them) this host cannot make: counted as skipped, never as
# passed, and the reason said on stdout, where tests/run.sh shows it. A test that skips
# everything ends "0 passed, 0 failed, 1 skipped", which the suite counts as a skipped part.
skip() {
	_skipped=$((_skipped + 1))
	echo "SKIPPED: $*"
}

# expect_status N COMMAND... — runs COMMAND, keeps its output in $T/out and $T/err.
expect_status() {
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass
	else
		fail "exit $got, expected $want: $*"
		sed 's/^/  stdout: /' "$T/out" | tail -n 25 >&2
		sed 's/^/  stderr: /' "$T/err" | tail -n 15 >&2
	fi
}

# expect_status_in "N M" COMMAND... — as expect_status, for a command that may end either way.
# A list of 0, 1 and 2 together is refused (every status a verb has: a check that cannot fail),
# and so should any list of every status the verb can end with (doctor's "0 2"): assert the
# status the scenario determines, or the status together with what the output says
# (expect_ab_outcome).
expect_status_in() {
	want=$1
	shift
	_every=yes
	for _s in 0 1 2; do
		case " $want " in *" $_s "*) ;; *) _every=no ;; esac
	done
	if [ "$_every" = yes ]; then
		fail "expect_status_in \"$want\" cannot fail (every status a verb has): $*"
		return 0
	fi
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	case " $want " in
	*" $got "*) pass ;;
	*)
		fail "exit $got, expected one of $want: $*"
		sed 's/^/  stdout: /' "$T/out" | tail -n 25 >&2
		sed 's/^/  stderr: /' "$T/err" | tail -n 15 >&2
		;;
	esac
}

# expect_ab_outcome JSON COMMAND... — an ab (or a report of an ab session) whose verdict may go
# either way (an A/A of noisy cells: a sign test flags one by chance about one session in
# twenty): the exit status must be the one its --json JSON's .comparison.outcome says, 0 for
# "ok" and 1 for "worse". "could_not_judge", a missing JSON, or a status that disagrees with
# the outcome fails. Output in $T/out and $T/err, as expect_status.
expect_ab_outcome() {
	json=$1
	shift
	rm -f "$json"
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	outcome=$(jq -r '.comparison.outcome' "$json" 2>/dev/null)
	case "$outcome:$got" in
	ok:0 | worse:1) pass ;;
	*)
		fail "exit $got with outcome '${outcome:-no JSON}' (0 with ok or 1 with worse expected): $*"
		sed 's/^/  stdout: /' "$T/out" | tail -n 25 >&2
		sed 's/^/  stderr: /' "$T/err" | tail -n 15 >&2
		;;
	esac
}

# expect_grep PATTERN FILE [what] — an extended regex must match a line of FILE.
expect_grep() {
	if grep -Eq -- "$1" "$2"; then pass; else
		fail "${3:-$2 should match /$1/}"
		sed 's/^/  | /' "$2" | tail -n 25 >&2
	fi
}
expect_no_grep() {
	if grep -Eq -- "$1" "$2"; then
		fail "${3:-$2 should not match /$1/}"
		grep -E -- "$1" "$2" | sed 's/^/  | /' | head -n 10 >&2
	else pass; fi
}

# expect_eq GOT WANT what
expect_eq() {
	if [ "$1" = "$2" ]; then pass; else fail "$3: got '$1', expected '$2'"; fi
}

sql() { sqlite3 -batch -noheader "$GCR_DB" "$1"; }

# await SECONDS COMMAND... — polls COMMAND until it succeeds; 1 when the time is up.
await() {
	n=$(($1 * 10))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# await_lock PID [LOCK] — waits (up to 60 s) until process PID holds the bench lock LOCK
# (default $GCR_LOCK_FILE): its note "pid PID since ..." is the lock file's first line. A
# test that needs a session to hold the lock waits for this, not for a fixed sleep that a
# loaded host can outlast; a holder that never gets there fails the check.
await_lock() {
	if await 60 grep -q "^pid $1 since" "${2:-$GCR_LOCK_FILE}"; then pass; else
		fail "pid $1 did not take the bench lock ${2:-$GCR_LOCK_FILE} within 60 s"
	fi
}

# seal_manifest DIR — writes each probe's current sha256 into DIR/manifest.json (compact, key
# order kept): the harness refuses a probe whose bytes differ from its manifest's, so a test
# that rewrites a probe seals the folder again.
seal_manifest() {
	jq -r '.probes[].name' "$1/manifest.json" | while IFS= read -r n; do
		s=$(sha256sum <"$1/$n" | cut -c1-64)
		jq -c --arg n "$n" --arg s "$s" '(.probes[] | select(.name == $n) | .sha256) = $s' \
			"$1/manifest.json" >"$1/manifest.json.sealed" && mv "$1/manifest.json.sealed" "$1/manifest.json"
	done
}

# A build folder of shell-script probes that speak the census protocol: the language-neutral
# path any runtime can use. Their behaviour is read at run time from $dir/mode.<probe>, their
# census.alloc_bytes from $dir/alloc.<probe> (default 1000) and major_collections from
# $dir/gcs.<probe> (default 2). A probe with $dir/sleep.<probe> first sleeps the seconds on its
# next line, in turn, one line per run, to plant a time. A probe with $dir/heap.<probe> needs
# the MiB it says: below them under GCR_HEAP_MAX_MB it exits 3, heap exhausted, as gcr.h's
# collectors do, and its census says it committed 2 MiB at peak (for minheap and sweep). A
# probe with $dir/spin.<probe> (spin_plant; not with a sleep too) uses the milliseconds of
# CPU on its next line, in turn, to plant a CPU time. The build is named $BUILD_NAME (default
# scripted); its collector is always "scripted".
make_script_build() { # dir probe...
	dir=$1
	shift
	mkdir -p "$dir"
	{
		printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"%s","collector":"scripted",' "${BUILD_NAME:-scripted}"
		printf '"collector_version":"1.0","git_commit":"none","probes":['
		sep=
		for p in "$@"; do
			printf '%s{"name":"%s","file":"%s","sha256":"-"}' "$sep" "$p" "$p"
			sep=,
		done
		printf ']}\n'
	} >"$dir/manifest.json"
	for p in "$@"; do
		cat >"$dir/$p" <<SCRIPT
#!/bin/sh
mode=\$(cat "$dir/mode.$p" 2>/dev/null || echo ok)
alloc=\$(cat "$dir/alloc.$p" 2>/dev/null || echo 1000)
gcs=\$(cat "$dir/gcs.$p" 2>/dev/null || echo 2)
heap=\$(cat "$dir/heap.$p" 2>/dev/null)
peak=
if [ -n "\$heap" ]; then
	if [ -n "\${GCR_HEAP_MAX_MB:-}" ] && [ "\$GCR_HEAP_MAX_MB" -lt "\$heap" ]; then
		echo "gcr: heap exhausted" >&2
		exit 3
	fi
	peak=',"heap_committed_peak_bytes":2097152'
fi
if [ -f "$dir/sleep.$p" ]; then
	k=\$(cat "$dir/turn.$p" 2>/dev/null || echo 0)
	echo \$((k + 1)) >"$dir/turn.$p"
	sleep "\$(sed -n "\$((k % \$(wc -l <"$dir/sleep.$p") + 1))p" "$dir/sleep.$p")"
fi
if [ -f "$dir/spin.$p" ]; then
	k=\$(cat "$dir/turn.$p" 2>/dev/null || echo 0)
	echo \$((k + 1)) >"$dir/turn.$p"
	"$T/cpu_spin" "\$(sed -n "\$((k % \$(wc -l <"$dir/spin.$p") + 1))p" "$dir/spin.$p")" || exit 4
fi
case "\$mode" in
crash) kill -SEGV \$\$ ;;
hang) sleep 600 ;;
fail) echo "out of cheese" >&2; exit 3 ;;
badcensus) printf '{"format":"gcr-census","version":1,"probe":"$p","collector":"scripted","checksum":"0x0000000000000001","census":{"alloc_bytes":"many"}}' >&3 ;;
nocensus) echo "checksum 0x00000000000000aa" ;;
*) echo "checksum 0x00000000000000aa"
   printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":%s,"major_collections":%s%s}}' "\$1" "\$alloc" "\$gcs" "\$peak" >&3 ;;
esac
SCRIPT
		chmod +x "$dir/$p"
	done
	seal_manifest "$dir"
}

# make_pacer_build DIR FACTOR — a sealed build folder that stands in for a runtime whose
# collections follow a clock and threads (a concurrent pacer: Go's, V8's background GC), so
# its figures vary from run to run as a real one's do (issue 40). Its census says
# ["collects","precise","clock_paced"] and names the collector "pacer" version 1.0 whatever
# FACTOR is, so every variant is judged against one baseline; the build is named "pacer", or
# "pacer-xFACTOR" for a variant ($BUILD_NAME overrides both). Each of its four probes prints a
# fixed checksum and draws its census afresh per run (awk seeded from /dev/urandom):
#
#   probe                   major_collections             minor_collections   live (exact)
#   01_nursery_churn        21.5 +-7%: 20-23              96 +-4%: 92-100     64 KiB
#   02_survivor_promotion   60 +-5%: 57-63                -                   2 MiB
#   05_binary_trees         7 +-1/7: 6-8                  -                   1 MiB
#   12_large_live_set       11.2 +-3.5%: 11, 12 in 1 of 9 -                   8 MiB
#
# A count is round(rate x FACTOR x (1 + r x u)), u uniform in [-1, 1): FACTOR multiplies the
# pacing rate before the jitter, so at 1.10 the counts overlap the base's (01: 22-25) and at 2
# they do not (01: 40-46, 05: 12-16). 12's count mostly repeats, as a real pacer's can: five
# rounds alike prove nothing about a clock-paced counter. Nothing else depends on FACTOR:
# alloc_bytes and alloc_objects are exact (what the probe asked for),
# heap_used_after_full_bytes is exact (a precise collector's live set), freed_bytes is alloc
# less live less 0-399 bytes of the runtime's own, and the committed peak moves by +-3% (in
# pages). So the planted cells are exactly the collection counts. VmHWM and RssAnon are the
# awk process's own, as the protocol asks (made-up ones would disagree with wait4's peak RSS
# and warn on every run). The figures are the same at every size. The manifest leaves the
# valgrind meter off: the shell's Ir moves with the script's text (a longer FACTOR), not with
# anything the stand-in models.
make_pacer_build() { # dir factor
	dir=$1 factor=$2
	case $factor in
	'' | *[!0-9.]* | *.*.*) factor= ;;
	*[1-9]*) ;;
	*) factor= ;;
	esac
	if [ -z "$factor" ]; then
		fail "make_pacer_build: FACTOR must be a positive number (1, 1.10, 2), got '$2'"
		finish
	fi
	if [ "$factor" = 1 ]; then name=${BUILD_NAME:-pacer}; else name=${BUILD_NAME:-pacer-x$factor}; fi
	mkdir -p "$dir"
	# name, checksum, major rate and r, minor rate and r (0: none), alloc bytes and objects,
	# live after full, committed peak: the figures at FACTOR 1.
	cat >"$dir/probes.txt" <<'EOF'
01_nursery_churn 0x5061636572000001 21.5 0.07 96 0.04 38400000 200000 65536 4194304
02_survivor_promotion 0x5061636572000002 60 0.05 0 0 64000000 500000 2097152 12582912
05_binary_trees 0x5061636572000005 7 0.142857 0 0 120000000 3750000 1048576 20971520
12_large_live_set 0x5061636572000012 11.2 0.035 0 0 40000000 600000 8388608 25165824
EOF
	{
		printf '{"format":"gcratchet-build","version":2,"protocol":"census","name":"%s",' "$name"
		printf '"collector":"pacer","collector_version":"1.0","git_commit":"none",'
		printf '"capabilities":["collects","precise","clock_paced"],'
		printf '"meters_off":{"valgrind":"a stand-in: its Ir is the shell reading the script"},"probes":['
		sep=
		while read -r p _; do
			printf '%s{"name":"%s","file":"%s","sha256":"-"}' "$sep" "$p" "$p"
			sep=,
		done <"$dir/probes.txt"
		printf ']}\n'
	} >"$dir/manifest.json"
	while read -r p sum maj majr min minr alloc objs live peak; do
		cat >"$dir/$p" <<SCRIPT
#!/bin/sh
# The pacer stand-in's $p at factor $factor (tests/cli/lib.sh, make_pacer_build).
case "\$1" in ci | default | large) ;; *) echo "usage: \$0 ci|default|large" >&2; exit 2 ;; esac
seed=\$(od -An -N4 -tu4 /dev/urandom) || exit 2
echo "checksum $sum"
awk -v seed="\$seed" -v size="\$1" 'function count(rate, r) {
	return int(rate * $factor * (1 + r * (2 * rand() - 1)) + 0.5)
}
function pages(bytes) { return int(bytes * (1 + 0.03 * (2 * rand() - 1)) / 4096 + 0.5) * 4096 }
BEGIN {
	srand(seed % 2147483647)
	c = sprintf("\"alloc_bytes\":%d,\"alloc_objects\":%d,\"major_collections\":%d", $alloc, $objs, count($maj, $majr))
	if ($min > 0) c = c sprintf(",\"minor_collections\":%d", count($min, $minr))
	c = c sprintf(",\"freed_bytes\":%d,\"heap_committed_peak_bytes\":%d,\"heap_used_after_full_bytes\":%d", \
		$alloc - $live - int(rand() * 400), pages($peak), $live)
	printf "{\"format\":\"gcr-census\",\"version\":1,\"probe\":\"$p\",\"size\":\"%s\",", size
	printf "\"collector\":\"pacer\",\"collector_version\":\"1.0\",\"capabilities\":[\"collects\",\"precise\",\"clock_paced\"],"
	printf "\"checksum\":\"$sum\",\"census\":{%s},", c
	while ((getline l <"/proc/self/status") > 0) {
		split(l, f, /[: \t]+/)
		if (f[1] == "VmHWM" || f[1] == "RssAnon") m[f[1]] = f[2] * 1024
	}
	printf "\"memory\":{\"vm_hwm_bytes\":%d,\"rss_anon_bytes\":%d}}", m["VmHWM"], m["RssAnon"]
}' >&"\${GCR_CENSUS_FD:-1}"
SCRIPT
		chmod +x "$dir/$p"
	done <"$dir/probes.txt"
	seal_manifest "$dir"
}

# need_jsonschema — sets PY to a python3 that has jsonschema (the one on PATH, else Debian's
# own), for tests/cli/schema-check.py; with none, the test fails and ends, naming the package.
need_jsonschema() {
	PY=
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import jsonschema' 2>/dev/null; then
			PY=$p
			return 0
		fi
	done
	fail "no python3 with jsonschema: scripts/setup.sh --test installs python3-jsonschema"
	finish
}

# build_cpu_spin — $T/cpu_spin (tests/cli/cpu_spin.c): `cpu_spin MS` uses MS milliseconds of
# CPU and exits. A plant of CPU time is what the tests that judge time plant, not a sleep: a
# loaded host stretches a sleep's wall time by tens of milliseconds a run, and a run's CPU
# time (time.user_ns) barely. Not built, the test fails and ends.
build_cpu_spin() {
	[ -x "$T/cpu_spin" ] && return 0
	if ! cc -O2 -o "$T/cpu_spin" "$TOP/tests/cli/cpu_spin.c" >"$T/cpu_spin.log" 2>&1; then
		fail "building tests/cli/cpu_spin.c"
		cat "$T/cpu_spin.log" >&2
		finish
	fi
}

# spin_plant DIR PROBE MS... — probe PROBE of the scripted build DIR uses MS milliseconds of
# CPU in its runs, the values in turn, one a run.
spin_plant() {
	build_cpu_spin
	_dir=$1 _p=$2
	shift 2
	printf '%s\n' "$@" >"$_dir/spin.$_p"
}

# build_variant NAME COLLECTOR_DIR OUT EXTRA_CFLAGS PROBE... — a collector built with a plant
# (EXTRA_CFLAGS) for only these probes, since the tests that plant run against the clock. A
# variant that does not build fails the test and ends it.
build_variant() {
	name=$1 cdir=$2 out=$3 cflags=$4
	shift 4
	if ! make -s -j2 -C "$TOP" -f collectors/build.mk NAME="$name" COLLECTOR_DIR="$cdir" \
		OUT="$out" EXTRA_CFLAGS="$cflags" \
		PROBE_SRCS="$(for p in "$@"; do printf '%s ' "$TOP/probes/$p.c"; done)" >"$T/build.log" 2>&1; then
		fail "building $name with $cflags"
		tail -n 20 "$T/build.log" >&2
		finish
	fi
}

# finish — the test's tally, "NAME: N passed, N failed" and ", N skipped" when any were, and
# its status: 1 when a check failed.
finish() {
	if [ "$_skipped" -gt 0 ]; then
		echo "$(basename "$0" .sh): $_passed passed, $_failed failed, $_skipped skipped"
	else
		echo "$(basename "$0" .sh): $_passed passed, $_failed failed"
	fi
	[ "$_failed" -eq 0 ]
	exit $?
}

# ---- A throwaway PostgreSQL server (tests of the PostgreSQL store) ---------------------------
# pg_start — initdb and start a cluster in a fresh folder, listening on a Unix socket only, as
# an unprivileged user (the server refuses to run as root; as root the tests use the system
# user gcrpg, created when missing). Sets PG_URL_BASE (append a database name: "${PG_URL_BASE}x"
# is postgresql:///x?host=...) and stops the server on exit, whatever happens. Missing server
# binaries fail the test: scripts/setup.sh --test installs them.
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
PG_DIR=
# runuser and useradd live in /usr/sbin, which a minimal PATH (env -i PATH=/usr/bin:/bin) lacks.
PG_SBIN_PATH=$PATH:/usr/sbin:/sbin
pg_as() {
	if [ "$(id -u)" = 0 ]; then PATH=$PG_SBIN_PATH runuser -u gcrpg -- "$@"; else "$@"; fi
}
pg_start() {
	if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
		fail "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): scripts/setup.sh --test installs them"
		finish
	fi
	if [ "$(id -u)" = 0 ] && ! id gcrpg >/dev/null 2>&1; then
		PATH=$PG_SBIN_PATH useradd --system --no-create-home --shell /usr/sbin/nologin gcrpg 2>/dev/null || id gcrpg >/dev/null 2>&1 || {
			fail "cannot create the user gcrpg to run the PostgreSQL server"
			finish
		}
	fi
	# Its own folder under /tmp: the server's user must reach it, and a socket path is short.
	PG_DIR=$(mktemp -d /tmp/gcrpg.XXXXXX)
	trap 'pg_stop; rm -rf "$T"' EXIT
	# A shell killed by a signal skips its EXIT trap (a reader of its output that quit
	# early, Ctrl-C): exit instead, so that the server is stopped then too.
	trap 'exit 2' HUP INT PIPE TERM
	[ "$(id -u)" = 0 ] && chown gcrpg "$PG_DIR"
	chmod 755 "$PG_DIR"
	if ! pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U gcr --auth=trust --no-locale -E UTF8 \
		>"$T/pg-initdb.log" 2>&1; then
		fail "initdb failed"
		tail -n 20 "$T/pg-initdb.log" >&2
		finish
	fi
	if ! pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -k $PG_DIR -c fsync=off" start >"$T/pg-start.log" 2>&1; then
		fail "the PostgreSQL server did not start"
		tail -n 20 "$T/pg-start.log" "$PG_DIR/server.log" >&2
		finish
	fi
	PG_URL_BASE="postgresql://gcr@/"
	PG_HOSTQ="?host=$PG_DIR"
}
# pg_url NAME — the URL of database NAME on the test server.
pg_url() { echo "${PG_URL_BASE}$1${PG_HOSTQ}"; }
# pg_sql NAME SQL — one query's rows, unaligned with | between columns.
pg_sql() { "$PG_BIN/psql" -X -q -A -t -h "$PG_DIR" -U gcr -d "$1" -c "$2"; }

# fleet_workers URL NAME... — the queue's tables made, then a worker per NAME on the fleet URL
# in the background, each with a bench lock of its own (as on hosts of their own) and a short
# lease (3 s), so a killed worker's job comes back soon; PID_<NAME> is its pid, $T/NAME.out and
# .err what it said.
fleet_workers() {
	_url=$1
	shift
	"$GCR" queue status --fleet "$_url" >/dev/null 2>&1
	for _w in "$@"; do
		TMPDIR="$T" GCR_LOCK_FILE="$T/lock.$_w" "$GCR" worker --fleet "$_url" --name "$_w" \
			--lease 3 --poll 1 >"$T/$_w.out" 2>"$T/$_w.err" &
		eval "PID_$_w=$!"
	done
}
pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=
}
