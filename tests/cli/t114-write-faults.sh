#!/bin/sh
# A writer that fails at its Nth I/O step (GCR_TEST_WRITE_FAIL=N, the test hook of
# write_file_atomic in harness/util.c: creating the temporary file, setting its mode, each
# write of at most 4 KiB, fsync, close, rename), for every N until the write gets through
# (issue 25, item 23, the writer's half): export --out, report --html and baseline pin --out
# either complete, leaving the whole output, or exit 2 with a message naming the file,
# leaving it as it was (an old file unchanged, a new one not there), no temporary file, and
# the store as it was.
. "$(dirname "$0")/lib.sh"
export GCR_LOCK_FILE="$T/bench.lock" GCR_BASELINE_DIR="$T/baselines"
B="$T/scripted"
make_script_build "$B" 01_steady 02_other
expect_status 0 "$GCR" measure --build "$B" --size ci --rounds 3 --warmup 1 --meters rusage,census
store_digest() { sqlite3 "$GCR_DB" .dump | sha256sum; }
digest=$(store_digest)
W="$T/w"
mkdir -p "$W"

write() { # writer path
	case $1 in
	export) "$GCR" export --session 1 --out "$2" ;;
	report) "$GCR" report --session 1 --html "$2" ;;
	pin) "$GCR" baseline pin --profile shared_ci --collector scripted --session 1 --out "$2" ;;
	esac
}

# A file's text but the time a baseline was pinned, which differs between two pins.
same() { grep -v '"pinned_at"' "$1" | sha256sum; }

for w in export report pin; do
	# What a write that gets through leaves.
	write "$w" "$T/want.$w" >"$T/out" 2>"$T/err" || fail "$w without a fault: exit $?"
	for old in yes no; do
		n=1 failed=0 done=
		while [ "$n" -le 200 ] && [ -z "$done" ]; do
			rm -f "$W"/*
			[ "$old" = yes ] && echo "the old file" >"$W/target"
			GCR_TEST_WRITE_FAIL=$n write "$w" "$W/target" >"$T/out" 2>"$T/err"
			rc=$?
			left=$(ls "$W" | grep -v '^target$' | tr '\n' ' ')
			expect_eq "$left" "" "$w (old file: $old), step $n failing: files left beside the target"
			if [ "$rc" -eq 0 ]; then
				# Every step got through: the fault came after the last one.
				if [ "$(same "$W/target")" = "$(same "$T/want.$w")" ]; then pass; else
					fail "$w (old file: $old), step $n: exit 0 but not the whole output"
				fi
				done=$n
			else
				failed=$((failed + 1))
				expect_eq "$rc" 2 "$w (old file: $old), step $n failing: exit status"
				expect_grep "$W/target: .*Input/output error.*\($W/target is as it was\)" "$T/err" \
					"$w (old file: $old), step $n failing: the message names the file and says it is unchanged"
				if [ "$old" = yes ]; then
					expect_eq "$(cat "$W/target" 2>&1)" "the old file" "$w, step $n failing: the old file"
				else
					[ ! -e "$W/target" ] && pass || fail "$w, step $n failing: a new file was left"
				fi
			fi
			n=$((n + 1))
		done
		[ -n "$done" ] && pass || fail "$w (old file: $old): no write got through in 200 steps"
		# A real fault at each step: at least create, write, fsync, close and rename.
		[ "$failed" -ge 5 ] && pass || fail "$w (old file: $old): only $failed steps failed before it got through"
		echo "$w (old file: $old): $failed failing steps, then through" >&2
	done
	expect_eq "$(store_digest)" "$digest" "$w: the store after every fault"
done
expect_eq "$(sqlite3 "$GCR_DB" 'PRAGMA integrity_check')" ok "the store's integrity"

# stdout that fails: exit 2 and a message.
GCR_TEST_WRITE_FAIL=1 "$GCR" export --session 1 --out - >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "export --out - failing"
expect_grep "writing to stdout failed: Input/output error" "$T/err"
finish
