#!/bin/sh
# The docs' worked examples are run (issue 29, item 5): every block README.md (and docs/*.md)
# marks "<!-- example: NAME -->" is run by tests/cli/doc_examples.py, and what it prints must
# be what the file shows, figures that change from run to run aside. First the runner itself,
# on a planted file: a count that drifted fails, "..." spans lines, a bad marker is refused.
. "$(dirname "$0")/lib.sh"
ex=$TOP/tests/cli/doc_examples.py
cat >"$T/doc.md" <<'MD'
<!-- example: version; vary \(commit [^)]*\) -->
```
$ gcratchet --version
gcratchet 0.1.0 (commit 0a1b2c3d4e5f, with uncommitted changes)
License: MIT (the LICENSE file of the source tree)
```
<!-- example: list -->
```
$ gcratchet list probes | head -n 3
...
$ echo 3 probes; echo done in 0.2 s
3 probes
done in 9.87 s
```
MD
expect_status 0 python3 "$ex" "$GCR" "$TOP" "$T/doc.md"
expect_grep '^doc_examples: 3 passed, 0 failed$' "$T/out"
sed 's/^3 probes$/4 probes/' "$T/doc.md" >"$T/drift.md"
expect_status 1 python3 "$ex" "$GCR" "$TOP" "$T/drift.md"
expect_grep 'drift.md:7: example list: \$ echo 3 probes' "$T/err"
expect_grep '^  shown:   4 probes$' "$T/err"
expect_grep '^doc_examples: 2 passed, 1 failed$' "$T/out"
printf '<!-- example: lost -->\ntext\n' >"$T/bad.md"
expect_status 1 python3 "$ex" "$GCR" "$TOP" "$T/bad.md"
expect_grep 'bad.md:1: the example marker is not followed by a ``` block' "$T/err"

# The README's and the docs' own examples.
docs=$(grep -l '^<!-- example: ' "$TOP/README.md" "$TOP"/docs/*.md)
printf '%s\n' $docs >"$T/docs"
expect_grep 'README.md' "$T/docs" "README.md has no example marked"
# shellcheck disable=SC2086 # $docs is file names without spaces
expect_status 0 python3 "$ex" "$GCR" "$TOP" $docs
expect_grep '^doc_examples: [1-9][0-9]* passed, 0 failed$' "$T/out"
finish
