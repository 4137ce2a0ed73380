#!/bin/sh
# Every verb's options are declared once, in its option table (issue 29, item 4): its --help
# usage lines name exactly the options the table accepts (hidden aliases aside), every --help
# ends with its exit statuses, README.md's Commands block is those usage lines
# (scripts/readme-synopsis.sh --check), and the bash completion offers each table's options,
# the values a usage line lists, and verbs' first words.
. "$(dirname "$0")/lib.sh"
verbs=$("$GCR" --help | awk 'NR > 2 && /^  [a-z]/ { print $1 }')
printf '%s\n' $verbs >"$T/verbs"
expect_grep '^completion$' "$T/verbs" "completion is not a verb"
for v in $verbs; do
	"$GCR" completion options "$v" >"$T/opts.$v" 2>"$T/err" && pass || fail "completion options $v failed"
	sed 's/=$//' "$T/opts.$v" | sort -u >"$T/table"
	"$GCR" "$v" --help >"$T/help" 2>&1 || fail "$v --help failed"
	# The usage lines: up to the first blank line; "gcratchet --version" names no option.
	awk '/^$/ { exit } { print }' "$T/help" | sed 's/gcratchet --[a-z]*//g' |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$T/usage"
	expect_eq "$(comm -23 "$T/table" "$T/usage" | tr '\n' ' ')" "" "$v: options its table takes that its --help usage lines do not show"
	expect_eq "$(comm -13 "$T/table" "$T/usage" | tr '\n' ' ')" "" "$v: options its --help usage lines show that its table does not take"
	# The last paragraph of every --help is its exit statuses.
	awk 'BEGIN { RS = "" } { last = $0 } END { print last }' "$T/help" | head -n 1 >"$T/last"
	expect_grep '^Exit status: ' "$T/last" "$v --help does not end with its exit statuses"
done
# measure's table is session_opts' plus none of its own; --clean-env is accepted, not shown.
expect_grep '^--rounds=$' "$T/opts.measure"
expect_grep '^--no-aslr$' "$T/opts.measure"
expect_no_grep 'clean-env' "$T/opts.measure" "--clean-env (hidden) is listed"
expect_status 0 "$GCR" measure --clean-env --help
expect_no_grep '^--(old|new|probes)=' "$T/opts.bisect" "bisect's aliases are listed"

# The README's Commands block is generated; a drifted copy is caught and rewritten.
expect_status 0 sh "$TOP/scripts/readme-synopsis.sh" --check "$GCR" "$TOP/README.md"
sed 's/^gcratchet measure \[--collector NAME\]\.\.\. /gcratchet measure /' "$TOP/README.md" >"$T/README.md"
expect_status 1 cmp -s "$T/README.md" "$TOP/README.md"
expect_status 1 sh "$TOP/scripts/readme-synopsis.sh" --check "$GCR" "$T/README.md"
expect_grep 'differs from gcratchet completion synopsis' "$T/err"
expect_status 0 sh "$TOP/scripts/readme-synopsis.sh" "$GCR" "$T/README.md"
expect_status 0 cmp "$T/README.md" "$TOP/README.md"
grep -v '^<!-- synopsis: end' "$TOP/README.md" >"$T/README2.md"
expect_status 2 sh "$TOP/scripts/readme-synopsis.sh" --check "$GCR" "$T/README2.md"
expect_grep 'has no <!-- synopsis: begin' "$T/err"

# Bash completion, run as bash runs it.
expect_status 0 "$GCR" completion bash
cp "$T/out" "$T/completion.bash"
expect_status 0 bash -n "$T/completion.bash"
complete_words() { # words of the line, the last one being completed
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gcratchet
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' sh "$T/completion.bash" "$@" | sort | tr '\n' ' '
}
expect_eq "$(complete_words gcratchet mea)" "measure " "completing a verb"
expect_eq "$(complete_words gcratchet measure --rou)" "--rounds " "completing an option"
expect_eq "$(complete_words gcratchet check --profile '')" "pinned_host shared_ci " "an option's values"
expect_eq "$(complete_words gcratchet measure --size d)" "default " "--size's values"
expect_eq "$(complete_words gcratchet check --format j)" "json junit " "check's --format values"
expect_eq "$(complete_words gcratchet history --format '')" "json table " "history's --format values"
expect_eq "$(complete_words gcratchet list '')" "--db --help --json collectors metrics probes sessions " "list's first words"
expect_eq "$(complete_words gcratchet baseline v)" "validate " "baseline's first words"
expect_eq "$(complete_words gcratchet measure --db '')" "" "a FILE value is left to bash's file completion"
expect_eq "$(complete_words gcratchet measure --cle)" "" "a hidden option is offered"
expect_eq "$(complete_words gcratchet nosuchverb --)" "" "an unknown verb's options"
for v in $verbs; do
	want=$( (sed 's/=$//' "$T/opts.$v"; echo --help) | sort | tr '\n' ' ')
	expect_eq "$(complete_words gcratchet "$v" --)" "$want" "completion of $v's options"
done

# One parser for the options verbs share: ratchet's --rounds is refused as measure's is.
for bad in 0 x 20000; do
	expect_status 2 "$GCR" measure --rounds "$bad"
	sed 's/^gcratchet measure: //' "$T/err" >"$T/measure.err"
	expect_status 2 "$GCR" ratchet --rounds "$bad"
	expect_eq "$(sed 's/^gcratchet ratchet: //' "$T/err")" "$(cat "$T/measure.err")" "ratchet --rounds $bad"
done
# ratchet composes measure's rows for how the runs are made: a bad value is refused in
# measure's words, as the command line is read, before any baseline is looked for.
for bad in "--jobs 0" "--timeout x" "--seed -1" "--idle-below 0" "--cpu 100000"; do
	expect_status 2 "$GCR" measure $bad
	sed 's/^gcratchet measure: //' "$T/err" >"$T/measure.err"
	expect_status 2 "$GCR" ratchet --collector no-such-collector $bad
	expect_eq "$(sed 's/^gcratchet ratchet: //' "$T/err")" "$(cat "$T/measure.err")" "ratchet $bad"
done
expect_status 2 "$GCR" ratchet --rounds 3 --probes 01
expect_grep 'unknown option "--probes"' "$T/err" "ratchet takes what is measured from the baseline"

expect_status 2 "$GCR" completion options mesure
expect_grep 'unknown command "mesure" \(did you mean measure\?\)' "$T/err"
expect_status 2 "$GCR" completion zsh
expect_grep 'expected bash, synopsis, options VERB or man DIR' "$T/err"
expect_status 2 "$GCR" completion --bogus
finish
