#!/bin/sh
# needs: valgrind
# Wrapper probes (issue 12, item 4): a shell script that starts the real program as a child.
# Declared a wrapper in the manifest, the valgrind meter follows children and counts the real
# program (the tree's Ir is the compiled probe's own, plus the shell's); undeclared, the count
# is the shell's alone and the run is flagged against the timed run's user time; undeclared
# and exec'ing, valgrind writes no count and the run fails saying why.
. "$(dirname "$0")/lib.sh"

REAL="$TOP/build/collectors/marksweep/01_nursery_churn"
COLL=$(jq -r .collector "$TOP/build/collectors/marksweep/manifest.json")
VER=$(jq -r .collector_version "$TOP/build/collectors/marksweep/manifest.json")
wrapper() { # DIR HOW ("" or exec)
	mkdir -p "$1"
	printf '#!/bin/sh\n%s "%s" "$@"\n' "$2" "$REAL" >"$1/01_nursery_churn"
	chmod +x "$1/01_nursery_churn"
}
M="--probes 01 --size ci --rounds 1 --warmup 0 --meters rusage,census,valgrind"
# valgrind_run FIELD — a field of the last session's valgrind run.
valgrind_run() { "$GCR" export | jq -r ".runs[] | select(.kind == \"valgrind\") | $1"; }

expect_status 0 "$GCR" measure --build "$TOP/build/collectors/marksweep" $M
direct=$(valgrind_run '.samples["valgrind.ir"]')

wrapper "$T/declared" ""
expect_status 0 "$GCR" manifest "$T/declared" --abi 1 --collector "$COLL" --version "$VER" --wrapper 01_nursery_churn
expect_eq "$(jq -r '.probes[0].wrapper' "$T/declared/manifest.json")" true "declared in the manifest"
expect_status 0 "$GCR" measure --build "$T/declared" $M
wrapped=$(valgrind_run '.samples["valgrind.ir"]')
echo "Ir: the probe run directly $direct, through its declared wrapper $wrapped"
# The tree is the real program plus one shell (some 2e5 Ir; 1e7 is generous).
if awk -v d="$direct" -v w="$wrapped" 'BEGIN { exit !(w >= d && w <= d + 1e7) }'; then pass; else
	fail "declared wrapper counted $wrapped Ir, the probe alone $direct"
fi
expect_eq "$(valgrind_run '.detail')" null "no warning on a declared wrapper"

wrapper "$T/undeclared" ""
expect_status 0 "$GCR" manifest "$T/undeclared" --abi 1 --collector "$COLL" --version "$VER"
expect_status 0 "$GCR" measure --build "$T/undeclared" $M
shell=$(valgrind_run '.samples["valgrind.ir"]')
echo "Ir: the undeclared wrapper counted $shell"
expect_grep "warning: Ir looks like a wrapper's \([0-9]+ Ir for [0-9.]+ s of user time\): declare the probe a wrapper in the manifest" "$T/out"
expect_eq "$(valgrind_run '.status')" ok "flagged, not failed: the count is kept"

wrapper "$T/exec" exec
expect_status 0 "$GCR" manifest "$T/exec" --abi 1 --collector "$COLL" --version "$VER"
expect_status 2 "$GCR" measure --build "$T/exec" $M
expect_eq "$(valgrind_run '.status')" failed "an exec'ing wrapper undeclared"
valgrind_run '.detail' >"$T/detail"
expect_grep "cg\.[0-9]+\.out: valgrind wrote no count: a probe that execs the real program must be declared a wrapper in its manifest" "$T/detail"
expect_status 0 "$GCR" manifest "$T/exec" --abi 1 --collector "$COLL" --version "$VER" --wrapper 01_nursery_churn --force
expect_status 0 "$GCR" measure --build "$T/exec" $M
exec_ir=$(valgrind_run '.samples["valgrind.ir"]')
if awk -v d="$direct" -v w="$exec_ir" 'BEGIN { exit !(w >= d && w <= d + 1e7) }'; then pass; else
	fail "declared exec wrapper counted $exec_ir Ir, the probe alone $direct"
fi
finish
