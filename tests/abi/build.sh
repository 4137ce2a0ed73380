#!/bin/sh
# build.sh COLLECTOR OUTFILE [make variables...] — builds the ABI conformance test against
# collectors/COLLECTOR (its collector.mk supplies sources, flags and libraries). Extra
# arguments go to make, e.g. OPT='-O1 -g -fsanitize=address,undefined', or
# COLLECTOR_DIR=/path/to/mygc for a collector that lives elsewhere (named COLLECTOR).
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 COLLECTOR OUTFILE [make variables...]" >&2
	exit 2
fi
name=$1 out=$2
shift 2
exec make --no-print-directory -f "$(dirname "$0")/abi.mk" NAME="$name" OUT="$out" "$@"
