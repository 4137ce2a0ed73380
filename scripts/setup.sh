#!/bin/sh
# setup.sh — installs what gcratchet needs to build, measure and test, on Debian.
# As root it runs apt-get; otherwise it prints the one command to run and exits 2.
set -eu

PACKAGES="gcc clang make pkg-config libc6-dev libpfm4-dev libcjson-dev libsqlite3-dev libpq-dev postgresql libgc-dev valgrind sqlite3 python3 python3-yaml chromium clang-format libxml2-utils jq"
# clang's sanitizer and libFuzzer runtimes, for make asan and make fuzz.
PACKAGES="$PACKAGES libclang-rt-dev"
# The JVM's collectors as build folders (make jvm, docs/jvm.md): java and javac 17.
PACKAGES="$PACKAGES openjdk-17-jdk-headless"
# V8's collector settings as build folders (make js, docs/js.md): node 18 or later. Debian 12's
# nodejs is 18; an installed nodejs of another origin (the machine's image has NodeSource's
# 20) is the same package name and is kept.
PACKAGES="$PACKAGES nodejs"

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
