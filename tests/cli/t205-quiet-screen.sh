#!/bin/sh
# needs: valgrind
# Issue 43 item 5, the main job's screen: the build says one short line a step ("  CC
# path"; every command whole with V=1; a line a product under make ratchet and make check),
# its warnings still in full; a session's counter keeps its total when runs are added (they
# are counted apart, "[ 20/20] + [  1/4]"); the minimum-heap search shows where it is; and a
# session waiting for the bench lock says who holds it as that changes and when it is granted.
. "$(dirname "$0")/lib.sh"
MK="make --no-print-directory -C $TOP"

# ---- The build: one short line a step -----------------------------------------------------
expect_status 0 $MK B="$T/b" "$T/b/gcratchet-launch" "$T/b/obj/util.o"
expect_eq "$(cat "$T/out")" "$(printf '  CC      %s\n  CC      %s' "$T/b/gcratchet-launch" "$T/b/obj/util.o")" \
	"make says CC and the path, nothing else"
rm -rf "$T/b"
expect_status 0 $MK B="$T/b" V=1 "$T/b/gcratchet-launch"
expect_grep "^cc .*-Wall .*-o $T/b/gcratchet-launch harness/launch.c$" "$T/out" "V=1 shows the command whole"
expect_no_grep "^  CC " "$T/out" "V=1: no short line besides"
rm -rf "$T/b"
expect_status 0 $MK -s B="$T/b" "$T/b/gcratchet-launch"
expect_eq "$(cat "$T/out")" "" "make -s says nothing"

# A collector's build, through collectors/build.mk: a probe's objects and its link.
P=01_nursery_churn
expect_status 0 $MK -f collectors/build.mk NAME=epsilon OUT="$T/eps" "$T/eps/$P"
expect_grep "^  CC      $T/eps/obj/p_$P\.o$" "$T/out"
expect_grep "^  LD      $T/eps/$P$" "$T/out"
expect_no_grep "^(cc|gcc|clang) " "$T/out" "no whole command in a collector's build"
bad=$(grep -cv '^  [A-Z]\{2,3\} \{5,6\}/' "$T/out")
expect_eq "$bad" 0 "every line of a collector's build is a short one"
expect_status 0 $MK -f collectors/build.mk NAME=epsilon OUT="$T/eps" V=1 "$T/eps/$P" -B
expect_grep "^cc .* -o '$T/eps/$P' " "$T/out" "V=1 reaches collectors/build.mk"

# A warning is shown whole: an outside collector's warnings are not errors (collector-dir.mk).
mkdir -p "$T/mygc"
printf '#include "gcr.h"\nint mygc_unused(void);\nint mygc_unused(void) { int idle; return 0; }\n' \
	>"$T/mygc/mygc.c"
expect_status 0 $MK -f collectors/build.mk COLLECTOR_DIR="$T/mygc" OUT="$T/my" "$T/my/obj/c_mygc.o"
expect_grep "^  CC      $T/my/obj/c_mygc\.o$" "$T/out"
expect_grep "mygc\.c:3:.*warning: unused variable .{1,3}idle" "$T/err" "the warning is shown in full"

# make check (and make ratchet) build with a line a product: the CLI, its launcher, each
# collector's manifest; nothing for an object. -n: nothing is built or run.
$MK -n B="$T/nb" check >"$T/n.out" 2>&1
grep "printf '  %-7s %s" "$T/n.out" | sed "s/.*%s\\\\n' '\\([A-Z]*\\)' '\\([^']*\\)'.*/\\1 \\2/" >"$T/said"
expect_grep "^LD $T/nb/gcratchet$" "$T/said"
expect_grep "^GEN $T/nb/collectors/gen/manifest\.json$" "$T/said"
expect_no_grep "\.o$" "$T/said" "make check says nothing of an object"

# ---- The counter: runs added to the plan are counted apart, the total never changes -------
# Probes whose Ir differs at every run (a loop as long as its turn): ab then adds a valgrind
# run of each on each arm (Ir did not repeat), after the 20 it planned.
varying() {
	BUILD_NAME=$2 make_script_build "$1" 01_v 02_w
	for p in 01_v 02_w; do
		cat >"$1/$p" <<SCRIPT
#!/bin/sh
k=\$(cat "$1/turn.$p" 2>/dev/null || echo 0)
echo \$((k + 1)) >"$1/turn.$p"
i=0
while [ \$i -lt \$((k * 50)) ]; do i=\$((i + 1)); done
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000}}' "\$1" >&3
SCRIPT
		chmod +x "$1/$p"
	done
	seal_manifest "$1"
}
varying "$T/va" va
varying "$T/vb" vb
# counters FILE — each progress line's counter as "planned_index planned_total added_index
# added_total" (0 0 for a planned run).
counters() {
	tr '\r' '\n' <"$1" | sed -n 's/^[^[]*\[ *\([0-9]*\)\/\([0-9]*\)\]\( + \[ *\([0-9]*\)\/\([0-9]*\)\]\)\{0,1\} .*/\1 \2 \4 \5/p' |
		awk '{ print $1, $2, ($3 == "" ? 0 : $3), ($4 == "" ? 0 : $4) }'
}
# steady FILE WHAT — one planned total, never a smaller index; each added batch one total,
# its index from 1 to it.
steady() {
	counters "$1" >"$T/counters"
	awk -v what="$2" '
		NR == 1 { total = $2 }
		$2 != total { print what ": the planned total went from " total " to " $2; bad = 1 }
		$1 < last { print what ": the planned count went back from " last " to " $1; bad = 1 }
		{ last = $1 }
		$4 > 0 && $3 == 1 { batch = $4; added++ }
		$4 > 0 && $4 != batch { print what ": an added batch total went from " batch " to " $4; bad = 1 }
		$3 > $4 { print what ": added " $3 " of " $4; bad = 1 }
		END {
			if (NR == 0) { print what ": no progress line"; bad = 1 }
			if (!added) { print what ": no added batch shown"; bad = 1 }
			exit bad }' "$T/counters" >"$T/why"
	if [ -s "$T/why" ]; then fail "$(cat "$T/why")"; else pass; fi
}
AB="$GCR ab $T/va $T/vb --rounds 2 --meters rusage,census,valgrind --seed 5"
expect_status_in "0 1" $AB
expect_grep "^gcratchet ab: \[ 20/20\] \+ \[  4/4\] valgrind again  0[12]_[vw] on v[ab]$" "$T/err" \
	"the added batch's last line, after the plan's 20"
expect_no_grep "\[ *[0-9]+/24\]" "$T/err" "no total that counts the added runs in"
steady "$T/err" "plain lines"
if command -v script >/dev/null 2>&1; then
	rm -f "$T"/v?/turn.*
	script -qec "$AB >$T/tty.out" /dev/null >"$T/tty" 2>&1
	steady "$T/tty" "a terminal's lines"
	expect_eq "$(counters "$T/tty" | wc -l)" 24 "a terminal has a line for each of the 24 runs"
else
	skip "script(1) is not installed: the counter on a terminal is not checked"
fi

# ---- The minimum-heap search shows where it is, on stderr, as a session does -------------
H="$T/heapy"
make_script_build "$H" 01_x 02_y
echo 5 >"$H/heap.01_x"
echo 3 >"$H/heap.02_y"
expect_status 0 "$GCR" minheap --build "$H" --db "$T/mh.db"
expect_grep "^gcratchet minheap: \[  1/2\] minimum heap  01_x on scripted$" "$T/err"
expect_grep "^gcratchet minheap: \[  2/2\] minimum heap  02_y on scripted  (~[0-9ms]+|<1s) left$" "$T/err"
expect_no_grep "minimum heap" "$T/out" "the progress is not on stdout"
if command -v script >/dev/null 2>&1; then
	script -qec "$GCR minheap --build $H --db $T/mh.db >$T/mh.out" /dev/null >"$T/mh.tty" 2>&1
	expect_grep "$(printf '\r')\[  1/2\] minimum heap  01_x on scripted  at [0-9]+ MiB$(printf '\033')\[K" \
		"$T/mh.tty" "a terminal sees each limit tried"
fi

# ---- The bench lock: the wait says who holds it, as that changes, and when it is granted --
B="$T/scripted"
make_script_build "$B" 01_steady
# A holder of the lock (flock(1)) whose note names one process, then another, at our word.
flock "$GCR_LOCK_FILE" sh -c "
	printf 'pid 111 since 2026-01-01T00:00:00Z\n' >'$GCR_LOCK_FILE'
	touch '$T/held'
	while [ ! -e '$T/next' ]; do sleep 0.1; done
	printf 'pid 222 since 2026-01-01T00:01:00Z\n' >'$GCR_LOCK_FILE'
	while [ ! -e '$T/free' ]; do sleep 0.1; done" &
holder=$!
if await 30 test -e "$T/held"; then pass; else fail "flock did not take the lock"; fi
"$GCR" measure --build "$B" --probes 01 --rounds 1 --warmup 0 --meters rusage,census \
	--lock-timeout 120 --db "$T/lock.db" >"$T/m.out" 2>"$T/m.err" &
m=$!
await 60 grep -q "held by pid 111" "$T/m.err"
touch "$T/next"
await 60 grep -q "held by pid 222" "$T/m.err"
touch "$T/free"
wait $holder
wait $m
expect_eq "$?" 0 "the waiting session ran once the lock was let go"
expect_grep "^gcratchet measure: waiting for the bench lock $GCR_LOCK_FILE, held by pid 111 since 2026-01-01T00:00:00Z$" "$T/m.err"
expect_grep "^gcratchet measure: waiting for the bench lock $GCR_LOCK_FILE, held by pid 222 since 2026-01-01T00:01:00Z; waited [0-9ms]+$" \
	"$T/m.err" "the wait says who holds the lock now, and how long it has waited"
expect_grep "^gcratchet measure: bench lock granted after [0-9]+ s$" "$T/m.err"
# In that order: the new holder, the grant, then the session's progress.
order=$(grep -n -e 'pid 222' -e 'granted' -e '\[  1/1\]' "$T/m.err" | cut -d: -f2- | cut -c20-34 | tr '\n' '|')
expect_eq "$order" "waiting for the|bench lock gran|[  1/1] round 1|" "the grant comes after the last holder, before the runs"
expect_grep "^session 1: 1 run, 0 failed" "$T/m.out"
finish
