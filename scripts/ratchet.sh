#!/bin/sh
# ratchet.sh GCRATCHET COLLECTOR ROUNDS — the main job: measure the collector at the ci size,
# then check the session against the committed shared_ci baseline. Exits with check's status
# (0 ok, 1 regression, 2 could not judge); a measure that could not even start exits 2.
set -u
gcr=$1 collector=$2 rounds=$3

"$gcr" measure --collector "$collector" --size ci --rounds "$rounds" --warmup 1 \
	--meters rusage,census,valgrind
measured=$?
echo
"$gcr" check --profile shared_ci --collector "$collector"
checked=$?
if [ "$checked" -eq 0 ] && [ "$measured" -ne 0 ]; then
	exit "$measured"
fi
exit "$checked"
