#!/bin/sh
# What a port hit, said on screen (issue 27 items 4-6): gcratchet manifest writes every field
# (meters_off, knobs, capabilities, templates, digests) and refuses a bad one naming it; a
# probe not named NN_name is refused with the rule; an "abi" over scripts is warned about in
# every session; a probe that exits 1 shows the lines of its stderr that say why under its
# run; pin --collector of no build refuses before measuring and names --build and --session;
# ratchet of a folder without a baseline names the pin of that folder; manifest --check runs
# the port checklist.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
M="--size ci --rounds 1 --warmup 0 --meters rusage,census"

# ---- gcratchet manifest sets every field -------------------------------------------------
BUILD_NAME=port make_script_build "$T/port" 01_p 02_q
rm "$T/port/manifest.json"
mkdir "$T/port/lib" && echo 'x' >"$T/port/lib/a.js"
expect_status 0 "$GCR" manifest "$T/port" --collector scripted --version 1.0 --name port-a \
	--git-commit f00d --meters-off "valgrind=an interpreter under valgrind" \
	--knob GCR_HEAP_MAX_MB --knob GCR_X --capabilities collects,precise,clock_paced \
	--argv '["{exe}", "{size}"]' --argv-iterations '["{exe}", "--iterations", "{iterations}"]' \
	--digest lib --wrapper 01_p
expect_eq "$(jq -c '[.name, .git_commit, .meters_off.valgrind, .knobs, .capabilities, (.lib_sha256 | length), .probes[0].argv, .probes[1].argv_iterations, .probes[0].wrapper]' "$T/port/manifest.json")" \
	'["port-a","f00d","an interpreter under valgrind",["GCR_HEAP_MAX_MB","GCR_X"],["collects","precise","clock_paced"],64,["{exe}","{size}"],["{exe}","--iterations","{iterations}"],true]' \
	"every field from an option"
expect_status 0 "$GCR" measure --build "$T/port" $M
expect_no_grep "warning" "$T/err" "a census build written by gcratchet manifest is warned about"
expect_no_grep "warning" "$T/out" "a run of it warned about"
# --force keeps them; --knob none empties the list.
expect_status 0 "$GCR" manifest "$T/port" --force --knob none
expect_eq "$(jq -c '[.name, .meters_off.valgrind, .knobs, .capabilities, (.lib_sha256 | length)]' "$T/port/manifest.json")" \
	'["port-a","an interpreter under valgrind",[],["collects","precise","clock_paced"],64]' \
	"--force keeps every field no option sets"
# Refused, naming the option, and nothing written.
cp "$T/port/manifest.json" "$T/kept.json"
refused() { # MESSAGE OPTION...
	msg=$1
	shift
	expect_status 2 "$GCR" manifest "$T/port" --force "$@"
	expect_grep "gcratchet manifest: $msg" "$T/err"
}
refused '--meters-off ir=slow: ir is not a meter a build can leave off \(valgrind, cachesim, perf\)' --meters-off ir=slow
refused '--meters-off valgrind: give the meter and why, METER=WHY' --meters-off valgrind
refused '--knob heap: not a variable name' --knob heap
refused '--capabilities precise,exact: "exact" is not a capability' --capabilities precise,exact
refused '--argv: argv\[0\]: must be "\{exe\}"' --argv '["sh", "{exe}"]'
refused '--digest bin: not a folder a manifest names by digest' --digest bin
refused '--check writes nothing' --check
expect_eq "$(cmp -s "$T/kept.json" "$T/port/manifest.json" && echo same)" same "a refused option writes nothing"

# ---- A probe's name is NN_name -------------------------------------------------------------
jq '.probes[0].name = "mt-gcbench" | .probes[0].file = "mt-gcbench"' "$T/kept.json" >"$T/port/manifest.json"
cp "$T/port/01_p" "$T/port/mt-gcbench"
expect_status 2 "$GCR" measure --build "$T/port" $M
expect_grep 'manifest.json: probes\[0\].name: "mt-gcbench" is not a probe.s name: a probe is named NN_name \(two digits, an underscore and a name' "$T/err"
rm "$T/port/mt-gcbench"
cp "$T/kept.json" "$T/port/manifest.json"

# ---- "abi": 1 over scripts: every session says so -----------------------------------------
jq 'del(.protocol) | .abi = 1' "$T/kept.json" >"$T/port/manifest.json"
expect_status 0 "$GCR" measure --build "$T/port" --probes 02 $M
expect_grep 'gcratchet measure: warning: .*manifest.json: probes\[1\] \(02_q\) is a script, yet the manifest declares "abi": 1 \(C probes built against gcr.h\); a program that only writes the census declares "protocol": "census"' "$T/err"
expect_no_grep '01_p\) is a script' "$T/err" "a declared wrapper judged"
cp "$T/kept.json" "$T/port/manifest.json"

# ---- A probe that exits 1: the lines that say why, on screen ------------------------------
# A node-style failure: a stack trace between the cause and a closing line.
mkdir "$T/fails"
cat >"$T/fails/01_nursery_churn" <<'EOF'
#!/bin/sh
cat >&2 <<'TRACE'
node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/tmp/gcratchet.XXXXXX/lib/01_nursery_churn.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
  code: 'MODULE_NOT_FOUND',
}

Node.js v20.20.2
TRACE
exit 1
EOF
chmod +x "$T/fails/01_nursery_churn"
expect_status 0 "$GCR" manifest "$T/fails" --collector fails
expect_status 2 "$GCR" measure --build "$T/fails" $M
expect_grep " failed +exited 1: Node.js v20.20.2$" "$T/out"
expect_grep "^          stderr: Error: Cannot find module '/tmp/gcratchet.XXXXXX/lib/01_nursery_churn.js'$" "$T/out"
expect_grep "^          stderr: node:internal/modules/cjs/loader:1210$" "$T/out"
expect_eq "$(grep -c '^          stderr: ' "$T/out")" 7 "every line but the one the detail quotes"
# A long stderr: its first line, how many were left out, the last ten.
cat >"$T/fails/01_nursery_churn" <<'EOF'
#!/bin/sh
i=1; while [ $i -le 40 ]; do echo "line $i" >&2; i=$((i + 1)); done
exit 1
EOF
expect_status 0 "$GCR" manifest "$T/fails" --collector fails --force
expect_status 2 "$GCR" measure --build "$T/fails" $M
expect_grep "^          stderr: line 1$" "$T/out"
expect_grep "^          stderr: \.\.\. \(29 more lines: gcratchet export has them\)$" "$T/out"
expect_grep "^          stderr: line 39$" "$T/out"
expect_no_grep "stderr: line (2|30)$" "$T/out" "a line past the twelve shown"

# ---- pin of no such build: refused before anything is measured ----------------------------
before=$(sql "SELECT count(*) FROM sessions")
expect_status 2 "$GCR" baseline pin --profile shared_ci --collector v8 --out "$T/v8.json"
expect_grep "gcratchet baseline: pin --collector v8: no shipped build of that name \(valid: .*marksweep.*\); pin a build folder with --build DIR \(its manifest names the collector\), or a session already measured with --session N" "$T/err"
expect_no_grep "vary-env|perf event" "$T/out" "pin measured before refusing"
expect_eq "$(sql "SELECT count(*) FROM sessions")" "$before" "nothing measured"
expect_status 2 "$GCR" measure --collector v8 $M
expect_grep 'unknown collector "v8" \(valid: .*\); a build folder elsewhere is --build DIR' "$T/err"
# ratchet of a folder with no baseline names the pin of that folder.
GCR_BASELINE_DIR="$T/none" expect_status 2 "$GCR" ratchet --build "$T/port"
expect_grep "pin one with: gcratchet baseline pin --profile shared_ci --build $T/port$" "$T/err"

# ---- manifest --check: the checklist of docs/porting.md ----------------------------------
# A folder of C probes against gen: every check passes; a probe whose checksum is another's
# fails that check, and says both.
mkdir "$T/cport"
cp "$TOP/build/collectors/marksweep/05_binary_trees" "$TOP/build/collectors/marksweep/12_large_live_set" "$T/cport/"
expect_status 0 "$GCR" manifest "$T/cport" --abi 1 --collector marksweep --version 1.0 --knob GCR_HEAP_MAX_MB
expect_status 0 "$GCR" manifest "$T/cport" --check
expect_grep "^ok   05_binary_trees +ci +checksum 0x9725cf45dbf0c8d4 = gen's; census 0 minor, [0-9]+ major; premise met$" "$T/out"
expect_grep "^ok   12_large_live_set +GCR_HEAP_MAX_MB=1 +heap exhausted \(status 3\)$" "$T/out"
expect_grep "^4 passed, 0 failed$" "$T/out"
cp "$TOP/build/collectors/marksweep/01_nursery_churn" "$T/cport/05_binary_trees"
expect_status 0 "$GCR" manifest "$T/cport" --force
expect_status 1 "$GCR" manifest "$T/cport" --check
expect_grep "^FAIL 05_binary_trees +ci +bad_census: census names probe \"01_nursery_churn\" but 05_binary_trees was run$" "$T/out"
expect_grep "^[0-9]+ passed, [1-9][0-9]* failed$" "$T/out"
expect_status 2 "$GCR" manifest "$T/cport" --check --size huge
expect_grep '\-\-size huge: "huge" is not a size \(ci, default, large, or all\)' "$T/err"
finish
