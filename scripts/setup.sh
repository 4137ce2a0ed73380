#!/bin/sh
# setup.sh [--test] — installs what gcratchet needs on Debian: without --test, what the main
# job (make ratchet: build, measure, check) uses; with --test (make test-deps, which make test
# calls), also what the test suite and the JVM and JS builds use.
# As root it runs apt-get; otherwise it prints the one command to run and exits 2.
set -eu

# The main job: compilers, the libraries the harness and the Boehm build link (libpq is the
# PostgreSQL client, linked by the harness; nettle-dev is its SHA-256), valgrind for Ir, and
# python3 for the CI recipes' comment step (scripts/ci-comment.py).
PACKAGES="gcc make pkg-config libc6-dev libpfm4-dev libcjson-dev libsqlite3-dev libpq-dev libgc-dev nettle-dev valgrind python3"
case "${1:-}" in
--test)
	# The suite: clang, its sanitizer and libFuzzer runtimes (make asan, make fuzz), a
	# PostgreSQL server (the fleet store's tests), sqlite3, python3-yaml (the recipe tests),
	# python3-jsonschema (the JSON outputs checked against docs/schema/), chromium (the HTML
	# page tests), clang-format, xmllint, jq.
	PACKAGES="$PACKAGES clang libclang-rt-dev postgresql sqlite3 python3-yaml python3-jsonschema chromium clang-format libxml2-utils jq"
	# The JVM's collectors as build folders (make jvm, docs/jvm.md): java and javac 17.
	PACKAGES="$PACKAGES openjdk-17-jdk-headless"
	# V8's collector settings as build folders (make js, docs/js.md): node 18 or later.
	# Debian 12's nodejs is 18; an installed nodejs of another origin (the machine's image has
	# NodeSource's 20) is the same package name and is kept.
	PACKAGES="$PACKAGES nodejs"
	;;
"") ;;
*)
	echo "setup: unknown argument \"$1\" (usage: scripts/setup.sh [--test])" >&2
	exit 2
	;;
esac

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup: missing packages:$missing, and this is not a Debian system: install their equivalents" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "setup: missing packages:$missing" >&2
	echo "setup: run as root:  apt-get install -y$missing" >&2
	exit 2
fi
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine may be empty or stale.
apt-get update -qq >/dev/null || apt-get update
apt-get install -y -qq $missing >/dev/null || apt-get install -y $missing
