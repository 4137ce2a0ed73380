#!/bin/sh
# Issue 26, items 4 to 6: reports that fit a pull request, on a session too large for one
# comment (40 scripted probes, each with a dozen census counters, FIX counting 10% more on
# every counter of every probe). ab's and report's Markdown and check's: below 60,000 bytes,
# what moved and the verdict first, every cell that is not ok once, before the one fold and
# none in it, the cut counted ("N more rows in the artifact"). The A/B page leads with the
# judged changes and keeps the rest, one plot per cell still, in a closed <details>.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock"
export GCR_BASELINE_DIR="$T/baselines"

# Long names, as a runtime's benchmarks have: each row of a report is the longer for them.
probes=$(seq -f '%02g_probe_with_the_long_name_of_a_real_benchmark' 1 40 | tr '\n' ' ')
# wide DIR NAME N: a build of 40 probes whose census holds 12 counters, each N or N/10.
wide() {
	mkdir -p "$1"
	{
		printf '{"format":"gcratchet-build","version":1,"abi":1,"name":"%s","collector":"scripted",' "$2"
		printf '"collector_version":"1.0","git_commit":"none","probes":['
		sep=
		for p in $probes; do
			printf '%s{"name":"%s","file":"%s","sha256":"-"}' "$sep" "$p" "$p"
			sep=,
		done
		printf ']}\n'
	} >"$1/manifest.json"
	for p in $probes; do
		cat >"$1/$p" <<SCRIPT
#!/bin/sh
echo "checksum 0x00000000000000aa"
printf '{"format":"gcr-census","version":1,"probe":"$p","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":$3,"alloc_objects":$(($3 / 10)),"minor_collections":$(($3 / 10)),"major_collections":$(($3 / 10)),"copied_bytes":$3,"copied_objects":$(($3 / 10)),"promoted_bytes":$3,"promoted_objects":$(($3 / 10)),"freed_bytes":$3,"freed_objects":$(($3 / 10)),"heap_committed_peak_bytes":$(($3 * 4)),"heap_used_after_full_bytes":$(($3 * 2))}}' "\$1" >&3
SCRIPT
		chmod +x "$1/$p"
	done
	seal_manifest "$1"
}
wide "$T/base" base 1000
wide "$T/fix" fix 1100

"$GCR" ab --wide "$T/base" "$T/fix" --rounds 6 --meters rusage,census --seed 142 \
	--md "$T/ab.md" --json "$T/ab.json" --html "$T/ab.html" >"$T/ab.txt" 2>"$T/ab.err"
expect_eq "$?" 1 "ab: FIX is worse"
worse=$(jq '[.comparison.cells[] | select(.verdict == "worse")] | length' "$T/ab.json")
expect_eq "$([ "$worse" -ge 40 ] && echo all)" all "every probe's alloc_bytes is WORSE ($worse cells)"

# no_fold_has FILE PATTERN WHAT: nothing after the first <details> matches.
no_fold_has() {
	n=$(awk '/<details/ { fold = 1 } fold' "$1" | grep -Ec -- "$2")
	expect_eq "$n" 0 "$3: in the fold"
}
# under FILE WHAT: under 60,000 bytes; capped FILE WHAT: and cut with a count.
under() {
	size=$(wc -c <"$1")
	expect_eq "$([ "$size" -lt 60000 ] && echo under)" under "$2: $size bytes"
}
capped() {
	under "$1" "$2"
	expect_grep "^_[0-9]+ more rows? in the artifact \(the HTML and JSON reports\)\._$" "$1" "$2: says what it cut"
}

capped "$T/ab.md" "ab --md"
expect_grep "^### gcratchet ab: FIX is WORSE on [0-9]+ cells: fix vs base: .*_(bytes|objects|collections) \+10\.0% on 40 probes \(to \+10\.0%\) worse \(6 of 6 rounds\)" \
	"$T/ab.md" "ab --md: what moved, first"
expect_grep "^gcratchet ab: FIX is WORSE on [0-9]+ cells: fix vs base: .*_(bytes|objects|collections) \+10\.0% on 40 probes" "$T/ab.txt"
expect_eq "$(head -n 1 "$T/ab.txt" | cut -c1-$((30 + ${#worse})))" "gcratchet ab: FIX is WORSE on $worse" "the text's first line says what moved"
no_fold_has "$T/ab.md" '\*\*WORSE\*\*' "ab --md: a WORSE row"
# Every WORSE cell has its row before the fold but those the cut counted.
jq -r '.comparison.cells[] | select(.verdict == "worse") | "| \(.probe) | \(.metric) |"' "$T/ab.json" >"$T/worse.rows"
awk '/<details/ { exit } { print }' "$T/ab.md" >"$T/head.md"
missing=0
while IFS= read -r row; do
	grep -qF -- "$row" "$T/head.md" || missing=$((missing + 1))
done <"$T/worse.rows"
expect_eq "$missing" "$(sed -n 's/^_\([0-9]*\) more rows\{0,1\} in the artifact.*/\1/p' "$T/ab.md" | head -n 1)" \
	"ab --md: WORSE rows missing before the fold, as counted"
# once: no row twice
expect_eq "$(grep '^| [0-9]*_probe_' "$T/ab.md" | sort | uniq -d | wc -l)" 0 "ab --md: no row twice"
expect_grep "^<details><summary>[0-9]+ more cells \([0-9]+ info, [0-9]+ same\), each probe's identity and the pauses</summary>" "$T/ab.md"
expect_eq "$(grep -c '<details>' "$T/ab.md")" 1 "ab --md: one fold"

# report --md of the same session is ab's.
"$GCR" report --session 1 --md "$T/r.md" >/dev/null 2>&1
cmp -s "$T/ab.md" "$T/r.md" && pass || fail "report --md differs from ab --md"

# check: a baseline pinned from BASE's arm, FIX judged against it.
expect_status 0 "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 --build base
expect_status 1 "$GCR" check --profile shared_ci --collector scripted --session 1 --build fix --format md
cp "$T/out" "$T/check.md"
under "$T/check.md" "check --format md"
expect_eq "$(head -n 1 "$T/check.md" | cut -c1-31)" "### gcratchet check: REGRESSION" "check --format md: the verdict first"
expect_eq "$(sed -n 3p "$T/check.md" | cut -c1-24)" "**verdict: REGRESSION** " "check --format md: the verdict line, third"
no_fold_has "$T/check.md" 'REGRESSED' "check --format md: a regressed row"
expect_eq "$(grep '^| [0-9]*_probe_' "$T/check.md" | sort | uniq -d | wc -l)" 0 "check --format md: no row twice"
expect_eq "$(grep -c '^<details>' "$T/check.md")" 1 "check --format md: one fold"

# A one-build session's Markdown is capped the same way.
expect_status 0 "$GCR" measure --build "$T/base" --size ci --rounds 3 --warmup 0 --meters rusage,census
expect_status 0 "$GCR" report --session 2 --md "$T/one.md"
size=$(wc -c <"$T/one.md")
expect_eq "$([ "$size" -lt 60000 ] && echo under)" under "report --md of one build: $size bytes"
expect_eq "$(grep -c '^| [0-9]*_probe_[a-z_]* | `0x00000000000000aa` | 3 of 3 |$' "$T/one.md")" 40 "one line per probe before the fold"

# The A/B page: the judged changes first, the rest in one closed fold; one plot per cell.
expect_grep '^<div class="banner bad">FIX is WORSE on [0-9]+ cells: fix vs base: ' "$T/ab.html"
expect_grep '^<details id="all"><summary>All the other cells: ' "$T/ab.html"
expect_eq "$(awk '/<details id="all">/ { fold = 1 } fold' "$T/ab.html" | grep -c 'class="l worse"')" 0 \
	"page: no WORSE cell in the fold"
expect_eq "$(awk '/<details id="all">/ { exit } /<figure id="cell-/' "$T/ab.html" | wc -l)" \
	"$(jq '[.comparison.cells[] | select(.verdict == "worse" or .verdict == "better")] | length' "$T/ab.json")" \
	"page: a full plot for each judged change, before the fold"
expect_eq "$(grep -o '<svg class="plot"' "$T/ab.html" | wc -l)" "$(jq '.comparison.cells | length' "$T/ab.json")" \
	"page: one plot per cell"
finish
