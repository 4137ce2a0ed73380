# paired.sh — sourced by the benchmarks that time two sides in paired rounds (push-copy.sh,
# push-sweep.sh), after tests/cli/lib.sh ($T).
#
# paired_rounds ROUNDS FMT A B — ROUNDS rounds of the commands A and B (each, eval'd, prints
# its seconds), A first in odd rounds and B first in even ones, so that neither always runs on
# a host the other has warmed. Prints a line per round, "round a b a/b", a and b with printf's
# FMT (%10.2f), and sets PAIRED_MEDIAN to the median a/b. Returns 2 when a side failed.
paired_rounds() {
	_pn=$1 _pfmt=$2 _pa=$3 _pb=$4
	: >"$T/ratios"
	_pi=1
	while [ "$_pi" -le "$_pn" ]; do
		if [ $((_pi % 2)) -eq 1 ]; then
			_px=$(eval "$_pa") && _py=$(eval "$_pb") || return 2
		else
			_py=$(eval "$_pb") && _px=$(eval "$_pa") || return 2
		fi
		_pr=$(echo "scale=3; $_px / $_py" | bc)
		echo "$_pr" >>"$T/ratios"
		printf "%-6s $_pfmt $_pfmt %8.2f\n" "$_pi" "$_px" "$_py" "$_pr"
		_pi=$((_pi + 1))
	done
	PAIRED_MEDIAN=$(sort -n "$T/ratios" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
}
