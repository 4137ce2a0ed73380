#!/bin/sh
# make deps installs only what the main job (make ratchet) uses; make test-deps, which make test
# calls, adds the suite's (issue 29, item 2): on a fresh machine, make ratchet installs none of
# chromium, the JDK, PostgreSQL's server or node. Run with every package reported missing
# (a stand-in dpkg-query) as a user who is not root (a stand-in id), so setup.sh prints the
# apt-get line it would run instead of running it.
. "$(dirname "$0")/lib.sh"
mkdir "$T/bin"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/dpkg-query"
printf '#!/bin/sh\necho 1000\n' >"$T/bin/id"
chmod 755 "$T/bin/dpkg-query" "$T/bin/id"
wants() { # target: the packages its apt-get line names, one a line, sorted
	PATH="$T/bin:$PATH" make -s -C "$TOP" "$1" >"$T/out" 2>"$T/err"
	sed -n 's/^setup: run as root:  apt-get install -y //p' "$T/err" | tr ' ' '\n' | sort
}
wants deps >"$T/main"
wants test-deps >"$T/test"
for p in gcc make libpfm4-dev libcjson-dev libsqlite3-dev libpq-dev libgc-dev nettle-dev valgrind; do
	grep -qx "$p" "$T/main" && pass || fail "make deps does not install $p"
done
for p in chromium openjdk-17-jdk-headless postgresql nodejs clang python3-yaml python3-jsonschema; do
	grep -qx "$p" "$T/main" && fail "make deps installs $p, which the main job never uses" || pass
	grep -qx "$p" "$T/test" && pass || fail "make test-deps does not install $p"
done
# Everything the main job needs, the suite needs too.
expect_eq "$(comm -23 "$T/main" "$T/test")" "" "packages of make deps missing from make test-deps"
expect_grep "^test: test-deps" "$TOP/Makefile"
expect_grep "^ratchet: deps" "$TOP/Makefile"
expect_status 2 sh "$TOP/scripts/setup.sh" --tests
expect_grep 'unknown argument "--tests"' "$T/err"
finish
