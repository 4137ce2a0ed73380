#!/bin/sh
# The manifest of a foreign build (docs/manifest.md): "protocol": "census" instead of an
# "abi", and per-probe argv templates. A probe run from the template gets exactly the command
# line it declared (it fails otherwise); --two-n uses argv_iterations; a bad manifest is
# refused with the JSON path of what is wrong, before anything runs.
. "$(dirname "$0")/lib.sh"
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

B="$T/foreign"
mkdir -p "$B"
manifest() { # HEAD PROBE-FIELDS
	printf '{"format":"gcratchet-build","version":1,%s,"name":"foreign","collector":"foreign","collector_version":"1.0","git_commit":"none","probes":[{"name":"01_p","file":"01_p","sha256":"-"%s}]}\n' \
		"$1" "$2" >"$B/manifest.json"
	seal_manifest "$B"
}
cat >"$B/01_p" <<'SCRIPT'
#!/bin/sh
# Run as `01_p --size SIZE` or `01_p -n N`, never the default `01_p SIZE`.
case "$1" in
--size) size=$2 ;;
-n) size=custom ;;
*) echo "unexpected argv: $*" >&2; exit 9 ;;
esac
[ $# -eq 2 ] || { echo "unexpected argv: $*" >&2; exit 9; }
echo "checksum 0x00000000000000aa"
[ -n "${GCR_CENSUS_FD:-}" ] && printf '{"format":"gcr-census","version":1,"probe":"01_p","size":"%s","collector":"foreign","collector_version":"1.0","checksum":"0x00000000000000aa","census":{"alloc_bytes":1000}}' "$size" >&3
exit 0
SCRIPT
chmod +x "$B/01_p"
M="$GCR measure --build $B --rounds 1 --warmup 0 --meters rusage,census"

manifest '"protocol":"census"' ',"argv":["{exe}","--size","{size}"],"argv_iterations":["{exe}","-n","{iterations}"]'
expect_status 0 $M --size ci
expect_eq "$(exported 1 '[.runs[] | "\(.status) \(.size) \(.samples["census.alloc_bytes"])"] | join(",")')" "ok ci 1000" "run from the template"
expect_status 0 $M --two-n 10,20
expect_eq "$(exported 2 '[.runs[] | .status] | unique | join(",")')" "ok" "--two-n from argv_iterations"
# Without a template the default command line is used, which this probe refuses.
manifest '"protocol":"census"' ''
expect_status 2 $M --size ci
expect_eq "$(exported 3 '.runs[0].detail')" "exited 9: unexpected argv: ci" "the default argv"

# ---- Refused, with the JSON path ----------------------------------------------------------
refused() { # HEAD PROBE-FIELDS MESSAGE
	manifest "$1" "$2"
	expect_status 2 $M --size ci
	expect_grep "$B/manifest.json: $3" "$T/err"
}
refused '"protocol":"census","abi":1' '' 'abi, protocol: give one'
refused '"protocol":"jni"' '' 'protocol: must be "census", got "jni"'
refused '"abi":2' '' 'built for collector ABI 2'
refused '"git_dirty":false' '' 'field abi missing'
refused '"abi":1' ',"argv":["/bin/sh","{exe}"]' 'probes\[0\].argv\[0\]: must be "\{exe\}"'
refused '"abi":1' ',"argv":["{exe}","{iterations}"]' 'probes\[0\].argv\[1\]: unknown placeholder in "\{iterations\}"'
refused '"abi":1' ',"argv_iterations":["{exe}","--size={size}"]' 'probes\[0\].argv_iterations\[1\]: unknown placeholder'
refused '"abi":1' ',"argv":["{exe}","{size"]' 'probes\[0\].argv\[1\]: unknown placeholder'
refused '"abi":1' ',"argv":[]' 'probes\[0\].argv: must be a non-empty array of strings'
refused '"abi":1' ',"argv":["{exe}",3]' 'probes\[0\].argv\[1\]: '
expect_eq "$("$GCR" list sessions | tail -n +2 | wc -l)" 3 "nothing else ran"
finish
