#!/bin/sh
# needs: valgrind
# The meters are exact and honest: a probe that touches N MiB reports a peak RSS of N MiB
# (plus its small baseline) while the harness holds 300 MiB; valgrind's Ir is identical from
# run to run (to a dozen instructions); valgrind missing or failing is said plainly, never stored as a zero.
. "$(dirname "$0")/lib.sh"
# exported SESSION FILTER — a fact of a stored session, read back through export.
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

B="$T/touch"
mkdir -p "$B"
cc -O2 -o "$B/01_touch" "$TOP/tests/cli/touch_mib.c" || fail "cannot build touch_mib"
printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"touch","collector":"none","collector_version":"0","git_commit":"none","probes":[{"name":"01_touch","file":"01_touch","sha256":"-"}]}\n' >"$B/manifest.json"
seal_manifest "$B"

for mib in 16 128; do
	TOUCH_MIB=$mib GCR_TEST_BALLAST_MB=300 expect_status 0 "$GCR" measure --build "$B" --rounds 3 \
		--pass-env TOUCH_MIB \
		--warmup 0 --meters rusage,census
	s=$("$GCR" export | jq -r .session.id)
	rss=$(exported "$s" '[.runs[].samples["rss.peak_bytes"] // empty] | max | floor')
	hwm=$(exported "$s" '[.runs[].samples["memory.vm_hwm_bytes"] // empty] | max | floor')
	want=$((mib << 20))
	echo "touched $mib MiB: rss.peak_bytes $rss, VmHWM $hwm"
	# Within 5% of N MiB plus a 3 MiB baseline footprint (libc, the stack, the page tables).
	if [ "$rss" -ge "$want" ] && [ "$rss" -le $((want + want / 20 + (3 << 20))) ]; then pass; else
		fail "peak RSS $rss for $mib MiB touched"
	fi
	if [ "$hwm" -ge "$want" ] && [ "$hwm" -le $((want + want / 20 + (3 << 20))) ]; then pass; else
		fail "VmHWM $hwm for $mib MiB touched"
	fi
done

# valgrind Ir: identical across repeated runs of the same build, probe and size for a precise
# collector (marksweep's 01). bdwgc's 02, whose conservative scan once took the pause log's
# clock values for pointers and moved its Ir by up to 4% here and 10.5% on a CI runner
# (docs/meters.md), must stay within 0.05%: on a loaded host it still moves by a few hundred
# instructions now and then (553 of 413 M in one run of the suite, 3 runs in 8 of the suite
# before issue 24), and once by 55,931 (0.0135%) running alone on a slow VM, which is what
# ab's spread rule and pin's measured widening are for; the clock-as-pointer bug moved it 80
# times this bound, in 10 of 16 runs. About 1 run in 65 still lands +1.9% high (docs/meters.md,
# "One run past its allowance"): when the two runs differ by more, a third decides, and two of
# the three must agree.
for i in 1 2; do
	expect_status 0 "$GCR" measure --collector marksweep,bdwgc --probes 01,02 --size ci --rounds 1 --warmup 0 --meters valgrind
	"$GCR" export >"$T/vg$i.json"
done
# vg FILTER — a fact of both valgrind sessions together.
vg() { jq -s -r "$1" "$T/vg1.json" "$T/vg2.json"; }
expect_eq "$(vg '[.[].runs[] | select(.kind == "valgrind" and .status == "ok")] | length')" 8 "eight valgrind runs"
# Identical, to the instruction: a run without a census reads nothing that changes from run
# to run (docs/meters.md: parsing /proc/self/status once moved it by 13 one run in three).
for cell in marksweep/01_nursery_churn bdwgc/02_survivor_promotion; do
	spread=$(vg "[.[].runs[] | select(.build + \"/\" + .probe == \"$cell\") | .samples[\"valgrind.ir\"] // empty] | max - min | floor")
	echo "valgrind.ir spread of $cell over two runs: $spread instructions"
	case $cell in
	bdwgc/*)
		if [ "$spread" -gt 206000 ]; then
			expect_status 0 "$GCR" measure --collector bdwgc --probes 02 --size ci --rounds 1 \
				--warmup 0 --meters valgrind
			"$GCR" export >"$T/vg3.json"
			# The closest two of the three.
			spread=$(jq -s -r '[.[].runs[] | select(.build == "bdwgc" and .probe == "02_survivor_promotion")
				| .samples["valgrind.ir"] // empty] | sort | [.[1] - .[0], .[2] - .[1]] | min | floor' \
				"$T/vg1.json" "$T/vg2.json" "$T/vg3.json")
			echo "a third run: the closest two of the three are $spread instructions apart"
		fi
		if [ "$spread" -le 206000 ]; then pass; else
			fail "$cell's Ir moved by $spread instructions run to run (more than 0.05%)"
		fi
		;;
	*) expect_eq "$spread" 0 "$cell's Ir moved by $spread instructions run to run" ;;
	esac
done
expect_eq "$(vg '[.[].runs[].samples["valgrind.ir"] // empty | select(. > 1000000)] | length')" 8 "Ir is a real count"
jq -r '.session.meters[]' "$T/vg2.json" >"$T/m"
expect_grep "valgrind:valgrind-" "$T/m" "valgrind version recorded"

# valgrind asked for but missing: exit 2 with the install line.
mkdir -p "$T/bin"
ln -s "$(command -v sqlite3)" "$T/bin/sqlite3"
PATH="$T/bin" expect_status 2 "$GCR" measure --collector marksweep --probes 01 --meters valgrind
expect_grep "valgrind is not installed .*apt-get install valgrind" "$T/err"

# A run that fails under valgrind is stored as failed with its stderr, not as a zero.
S="$T/scripted"
make_script_build "$S" 01_steady
echo fail >"$S/mode.01_steady"
expect_status 2 "$GCR" measure --build "$S" --rounds 1 --warmup 0 --meters valgrind
"$GCR" export | jq '[.runs[] | select(.kind == "valgrind" and .probe == "01_steady")]' >"$T/failed.json"
v=$(jq -r '.[] | "\(.status)|\(.detail)"' "$T/failed.json")
expect_eq "$v" "failed|exited 3: out of cheese" "failed valgrind run"
expect_eq "$(jq '[.[].samples | length] | add' "$T/failed.json")" 0 "no Ir stored for it"
finish
