#!/bin/sh
# The suite cannot hide what it did not check (issue 42 item 4): tests/run.sh fails a part that
# made no check or ended without a tally, counts and names a skip, and ends "N passed, N failed,
# N skipped"; --quick leaves out a test by its "# needs:" line; lib.sh refuses a status check
# that cannot fail; and tests/README.md's index lists every tests/cli/tNNN-*.sh, and no other.
. "$(dirname "$0")/lib.sh"

# ---- run.sh's tally, on a tree of its own with planted tests ----------------------------------
R=$T/tree
mkdir -p "$R/tests/cli"
cp "$TOP/tests/run.sh" "$R/tests/"
cp "$TOP/tests/cli/lib.sh" "$R/tests/cli/"
printf '#!/bin/sh\ntrue\n' >"$R/tests/cli/t901-tmp-none.sh"
printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\nfinish\n' >"$R/tests/cli/t902-tmp-zero.sh"
printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\nskip "no widget on this host"\nfinish\n' \
	>"$R/tests/cli/t903-tmp-skip.sh"
printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\npass\npass\nskip "half a widget"\nfinish\n' \
	>"$R/tests/cli/t904-tmp-pass.sh"
printf '#!/bin/sh\n# needs: pg\n. "$(dirname "$0")/lib.sh"\npass\nfinish\n' \
	>"$R/tests/cli/t905-tmp-needs.sh"
expect_status 1 sh "$R/tests/run.sh" tmp
cp "$T/out" "$T/run.out"
expect_grep "^FAIL cli/t901-tmp-none .*\(0 passed, 1 failed, 0 skipped\)" "$T/run.out" \
	"a test that ends 0 without a tally fails"
expect_grep "ended 0 with no tally line" "$T/run.out"
expect_grep "^FAIL cli/t902-tmp-zero .*\(0 passed, 1 failed, 0 skipped\)" "$T/run.out" \
	"a test that made no check fails"
expect_grep "^skip cli/t903-tmp-skip .*\(1 skipped\):" "$T/run.out" "a test that skipped all is skip"
expect_grep "^    SKIPPED: no widget on this host$" "$T/run.out" "the skip says why"
expect_grep "^ok   cli/t904-tmp-pass .*\(2 passed, 1 skipped\)$" "$T/run.out"
expect_grep "^ok   cli/t905-tmp-needs .*\(1 passed\)$" "$T/run.out" "make test runs every test"
expect_no_grep "^ok .*\(0 passed" "$T/run.out"
expect_eq "$(tail -n 1 "$T/run.out")" "3 passed, 2 failed, 2 skipped" "the last line"

# --quick: the test that needs PostgreSQL is left out, and said so.
expect_status 1 sh "$R/tests/run.sh" --quick tmp
cp "$T/out" "$T/quick.out"
expect_no_grep "t905-tmp-needs" "$T/quick.out" "--quick leaves out a test that needs pg"
expect_grep "^quick: left out 1 CLI tests that need" "$T/quick.out"
expect_eq "$(tail -n 1 "$T/quick.out")" "2 passed, 2 failed, 2 skipped" "the last line of --quick"
# A clean run exits 0 with the same line.
rm "$R/tests/cli/t901-tmp-none.sh" "$R/tests/cli/t902-tmp-zero.sh"
expect_status 0 sh "$R/tests/run.sh" tmp
expect_eq "$(tail -n 1 "$T/out")" "3 passed, 0 failed, 2 skipped" "the last line, all passed"

# ---- lib.sh: checks that cannot fail are refused; an A/A's status must match its outcome ----
cat >"$R/tests/cli/t906-tmp-checks.sh" <<'TEST'
#!/bin/sh
. "$(dirname "$0")/lib.sh"
expect_status_in "2 0 1" true
j=$T/ab.json
expect_ab_outcome "$j" sh -c "echo '{\"comparison\":{\"outcome\":\"ok\"}}' >$j; exit 1"
expect_ab_outcome "$j" sh -c "echo '{\"comparison\":{\"outcome\":\"could_not_judge\"}}' >$j; exit 2"
expect_ab_outcome "$j" true
expect_ab_outcome "$j" sh -c "echo '{\"comparison\":{\"outcome\":\"worse\"}}' >$j; exit 1"
expect_ab_outcome "$j" sh -c "echo '{\"comparison\":{\"outcome\":\"ok\"}}' >$j; exit 0"
expect_status_in "0 1" sh -c "exit 1"
finish
TEST
expect_status 1 sh "$R/tests/cli/t906-tmp-checks.sh"
expect_grep '^FAILED: expect_status_in "2 0 1" cannot fail' "$T/err" "0 1 2 refused"
expect_grep "^FAILED: exit 1 with outcome 'ok'" "$T/err" "exit 1 with ok"
expect_grep "^FAILED: exit 2 with outcome 'could_not_judge'" "$T/err" "could not judge"
expect_grep "^FAILED: exit 0 with outcome 'no JSON'" "$T/err" "no JSON"
expect_grep "^t906-tmp-checks: 3 passed, 4 failed$" "$T/out"

# ---- tests/README.md indexes every CLI test -----------------------------------------------
for t in "$TOP"/tests/cli/t[0-9]*.sh; do
	n=${t##*/}
	n=${n%.sh}
	if grep -q "^- $n: " "$TOP/tests/README.md"; then pass; else
		fail "tests/README.md does not list $n (add '- $n: its subject' under its family)"
	fi
done
for n in $(sed -n 's/^- \(t[0-9][0-9][0-9]-[^:]*\): .*/\1/p' "$TOP/tests/README.md"); do
	if [ -f "$TOP/tests/cli/$n.sh" ]; then pass; else
		fail "tests/README.md lists $n, which is not in tests/cli/"
	fi
done
finish
