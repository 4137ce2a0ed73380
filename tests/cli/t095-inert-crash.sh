#!/bin/sh
# What a probe said about itself reaches ab and measure. A probe whose premise failed in one
# arm (inert) is named in ab's identity section and none of its cells is judged, so a counter
# that fell to 0 there is not "better". A run that crashed or failed shows the first line of
# its stderr (the probe's own message) in ab's identity section, in every format, escaped for
# it, and in measure's output.
. "$(dirname "$0")/lib.sh"
AB="$GCR ab --wide --size ci --rounds 3 --meters rusage,census --seed 95"

# pbuild DIR MODE: one probe, 01_p, the same result in every mode that finishes. "inert" does
# not cause its activity: no collection, nothing left after the full one, premise not met.
pbuild() {
	BUILD_NAME=$2 make_script_build "$1" 01_p
	cat >"$1/01_p" <<SCRIPT
#!/bin/sh
gcs=2 used=4096 met=true why="2 major collections"
case "$2" in
inert) gcs=0 used=0 met=false why="0 major collections: the heap never filled" ;;
abort) printf '01_p: heap corrupt at 0x10 in <b>|\`x\`| \033[2J\n' >&2
       echo "Aborted (core dumped)" >&2
       kill -ABRT \$\$ ;;
fail) echo "01_p: cannot map 64 MiB" >&2; echo "giving up" >&2; exit 4 ;;
esac
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"01_p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"major_collections":%s,"heap_used_after_full_bytes":%s},"premise":{"met":%s,"text":"%s"}}' "\$1" \$gcs \$used \$met "\$why" >&3
SCRIPT
	seal_manifest "$1"
}
pbuild "$T/ok" ok
pbuild "$T/inert" inert
pbuild "$T/abort" abort
pbuild "$T/fail" fail

# ---- Inert in FIX: named first, and its cells are not judged ----------------------------
expect_status 2 $AB "$T/ok" "$T/inert" --md "$T/in.md" --json "$T/in.json" --html "$T/in.html"
expect_grep "^  +INERT in FIX: 3 of 3 runs did not meet the premise: 0 major collections: the heap never filled$" "$T/out"
expect_grep "^01_p +census\.heap_used_after_full_bytes +4096 +0 +-4096 .* inert$" "$T/out"
expect_grep "^01_p +census\.major_collections +2 +0 .* inert$" "$T/out"
expect_no_grep "^01_p .*(better|WORSE)$" "$T/out" "no cell of an inert probe is judged"
expect_grep "^note: 01_p went INERT in FIX \(premise not met: 0 major collections: the heap never filled\): its [0-9]+ cells are not judged" "$T/out"
expect_grep "^verdict: could not judge everything" "$T/out"
first_identity=$(grep -n '^identity' "$T/out" | cut -d: -f1)
inert_line=$(grep -n 'INERT in FIX' "$T/out" | head -n 1 | cut -d: -f1)
first_row=$(grep -n '^probe ' "$T/out" | cut -d: -f1)
expect_eq "$([ "${first_identity:-99}" -lt "${inert_line:-0}" ] && [ "${inert_line:-99}" -lt "${first_row:-0}" ] && echo yes)" yes "inert in the identity section"
expect_grep "\*\*INERT in FIX\*\*: 3 of 3 runs did not meet the premise: 0 major collections: the heap never filled" "$T/in.md"
expect_grep "<span class=\"bad\">INERT in FIX</span>: 3 of 3 runs" "$T/in.html"
jq -r '.comparison as $c | [($c.identity.probes[0] | .fix_inert, .base_inert, .fix_premise),
	([$c.cells[] | select(.inert_in == "FIX" and .verdict == "unjudged")] | length) == ($c.cells | length),
	$c.counts.inert == ($c.cells | length), $c.outcome] | map(tostring) | join("|")' "$T/in.json" >"$T/j"
expect_eq "$(cat "$T/j")" "3|0|0 major collections: the heap never filled|true|true|could_not_judge" "JSON: inert"
# Inert in BASE: the comparison is as meaningless the other way round.
expect_status 2 $AB "$T/inert" "$T/ok"
expect_grep "^  +INERT in BASE: 3 of 3 runs" "$T/out"
expect_grep "^01_p +census\.heap_used_after_full_bytes +0 +4096 .* inert$" "$T/out"
# Met in both: judged as usual.
expect_status 0 $AB "$T/ok" "$T/ok"
expect_no_grep "INERT|inert" "$T/out"

# ---- A crash with a message: the message, escaped for each format ------------------------
expect_status 1 $AB "$T/ok" "$T/abort" --md "$T/ab.md" --json "$T/ab.json" --html "$T/ab.html"
expect_grep "FIX FAILS: FIX: 3 of 3 runs crashed \(SIGABRT\), stderr: 01_p: heap corrupt at 0x10 in <b>\|\`x\`\|" "$T/out"
expect_no_grep "$(printf '\033')" "$T/out" "no terminal control from a probe's stderr"
expect_grep "stderr: 01_p: heap corrupt at 0x10 in &lt;b&gt;\\\\\|\\\\\`x\\\\\`\\\\\|" "$T/ab.md"
expect_grep "stderr: 01_p: heap corrupt at 0x10 in &lt;b&gt;\|\`x\`\|" "$T/ab.html"
expect_eq "$(jq -r '.comparison.identity.probes[0].fix_stderr_first_line' "$T/ab.json" | cut -c1-34)" \
	"01_p: heap corrupt at 0x10 in <b>|" "JSON: the first line"
# A failed exit: the detail quotes the last line, the first is added.
expect_status 1 $AB "$T/ok" "$T/fail"
expect_grep "FIX: 3 of 3 runs failed \(exited 4: giving up\), stderr: 01_p: cannot map 64 MiB$" "$T/out"

# ---- measure says it too ----------------------------------------------------------------
expect_status 2 "$GCR" measure --build "$T/abort" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep " crashed +SIGABRT$" "$T/out"
expect_grep "^          stderr: 01_p: heap corrupt at 0x10 in <b>\|\`x\`\|" "$T/out"
expect_no_grep "$(printf '\033')" "$T/out" "measure: no terminal control from a probe's stderr"
expect_status 2 "$GCR" measure --build "$T/fail" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep " failed +exited 4: giving up$" "$T/out"
expect_grep "^          stderr: 01_p: cannot map 64 MiB$" "$T/out"
# A message the detail already quotes (a one-line stderr) is not said twice.
BUILD_NAME=cheese make_script_build "$T/cheese" 01_p
echo fail >"$T/cheese/mode.01_p"
expect_status 2 "$GCR" measure --build "$T/cheese" --size ci --rounds 1 --warmup 0 --meters rusage,census
expect_grep " failed +exited 3: out of cheese$" "$T/out"
expect_no_grep "stderr:" "$T/out"
expect_status 1 $AB "$T/ok" "$T/cheese"
expect_grep "FIX FAILS: FIX: 3 of 3 runs failed \(exited 3: out of cheese\)$" "$T/out"
finish
