#!/bin/sh
# libpq is opened when a PostgreSQL store is first used (docs/storage.md): on a host without
# it (an LD_PRELOAD shim fails its dlopen), a postgresql:// store is refused with exit 2 and a
# message naming the package, without its password, and a SQLite store works as before.
. "$(dirname "$0")/lib.sh"
cc -shared -fPIC -O2 -o "$T/no_libpq.so" "$TOP/tests/cli/no_libpq.c" 2>"$T/cc.err" ||
	{ fail "building the shim: $(cat "$T/cc.err")" && finish; }
export LD_PRELOAD="$T/no_libpq.so"
expect_status 2 "$GCR" list sessions --db "postgresql://ci:s3cret@127.0.0.1:1/gcr"
expect_grep "needs libpq, which cannot be loaded" "$T/err" "the reason"
expect_grep "install libpq5" "$T/err" "the package"
expect_no_grep "s3cret" "$T/err" "no password in the message"
expect_status 2 "$GCR" measure --collector epsilon --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "host=127.0.0.1 port=1 dbname=gcr password=s3cret"
expect_grep "needs libpq" "$T/err" "a key=value string too"
expect_no_grep "s3cret" "$T/err" "no password there either"
expect_status 0 "$GCR" measure --collector epsilon --probes 01 --rounds 1 --warmup 0 \
	--meters rusage,census --db "$T/local.db"
expect_grep "stored in $T/local.db" "$T/out" "a SQLite store needs no libpq"
finish
