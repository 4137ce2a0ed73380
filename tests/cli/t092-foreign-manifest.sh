#!/bin/sh
# Foreign build folders (issue 12, item 3): `gcratchet manifest DIR` writes a manifest with
# each probe's sha256 for a folder of executables; a probe edited afterwards makes measure
# refuse the build (exit 2, naming the file, both digests and the fix) until the manifest is
# rewritten, which makes a new build; a manifest without a required field says which. The
# census is checked against the run: an unknown key is a warning kept on the run, a stdout
# checksum that differs from the census's fails it, a collector that differs from the
# manifest's is a warning.
. "$(dirname "$0")/lib.sh"
exported() { "$GCR" export --session "$1" | jq -r "$2"; }

B="$T/foreign"
make_script_build "$B" 01_a 02_b
rm "$B/manifest.json"
printf 'not a probe\n' >"$B/README"
cp "$B/02_b" "$B/03_not_executable" && chmod -x "$B/03_not_executable"
M="$GCR measure --build $B --rounds 1 --warmup 0 --meters rusage,census --size ci"

# ---- The verb -------------------------------------------------------------------------------
expect_status 2 "$GCR" manifest "$T/nowhere"
expect_grep "manifest: $T/nowhere: cannot open the folder" "$T/err"
mkdir "$T/empty"
expect_status 2 "$GCR" manifest "$T/empty"
expect_grep "no executable named like a probe \(NN_name" "$T/err"
expect_status 2 "$GCR" manifest "$B" --wrapper 09_x
expect_grep "\-\-wrapper 09_x: $B has no executable probe of that name" "$T/err"
expect_status 2 "$GCR" manifest "$B" --abi 1 --protocol census
expect_grep "give one" "$T/err"
expect_status 2 "$GCR" manifest "$B" --abi 7
expect_grep "this harness speaks collector ABI 1" "$T/err"
expect_status 0 "$GCR" manifest "$B" --collector scripted --version 1.0
expect_grep "manifest.json: 2 probes" "$T/out"
expect_eq "$(jq -r '[.format, .version, .protocol, .name, .collector, .collector_version] | join(" ")' "$B/manifest.json")" \
	"gcratchet-build 2 census foreign scripted 1.0" "the manifest's identity"
expect_eq "$(jq -r '[.probes[] | "\(.name)=\(.sha256)"] | join(" ")' "$B/manifest.json")" \
	"01_a=$(sha256sum "$B/01_a" | cut -c1-64) 02_b=$(sha256sum "$B/02_b" | cut -c1-64)" \
	"each probe's sha256, as sha256sum says; nothing that is not a probe"
expect_status 2 "$GCR" manifest "$B"
expect_grep "$B/manifest.json already exists: --force replaces it" "$T/err"
expect_status 0 $M
expect_eq "$(exported 1 '[.runs[] | "\(.probe) \(.status)"] | sort | join(",")')" "01_a ok,02_b ok" "the folder measures"

# ---- A probe edited after its manifest: refused before anything runs -----------------------
old=$(sha256sum "$B/01_a" | cut -c1-64)
echo "# edited" >>"$B/01_a"
new=$(sha256sum "$B/01_a" | cut -c1-64)
expect_status 2 $M
expect_grep "$B/manifest.json: probe file $B/01_a changed after its manifest was written: the manifest says sha256 $old, the file's is $new; rebuild the folder, or .*gcratchet manifest DIR --force" "$T/err"
expect_status 2 "$GCR" ab "$B" marksweep --rounds 1 --probes 01
expect_grep "BASE: .*probe file $B/01_a changed after its manifest was written" "$T/err"
expect_eq "$("$GCR" list sessions | tail -n +2 | wc -l)" 1 "nothing ran"
expect_status 0 "$GCR" manifest "$B" --collector scripted --version 1.0 --force
expect_status 0 $M
expect_eq "$(sql 'SELECT count(*) FROM builds')" 2 "the edited folder is another build; the first is kept"
# A store whose build of this id holds other bytes (here: planted) is not overwritten.
sql "UPDATE builds SET manifest = replace(manifest, '$new', '$old') WHERE dir = '$B'"
expect_status 2 $M
expect_grep "$B: the store already has build [0-9a-f]{16} with another manifest \(other probe sha256s\): refusing" "$T/err"
expect_eq "$(sql "SELECT count(*) FROM builds WHERE manifest LIKE '%$old%'")" 2 "the stored build is kept as it was"
sql "UPDATE builds SET manifest = replace(manifest, '$old', '$new') WHERE dir = '$B' AND id = 2"

# ---- Required fields, named when missing ----------------------------------------------------
cp "$B/manifest.json" "$T/good.json"
for f in version abi name collector collector_version git_commit probes; do
	jq "del(.$f) | del(.protocol)" "$T/good.json" >"$B/manifest.json"
	[ "$f" = abi ] || jq "del(.$f)" "$T/good.json" >"$B/manifest.json"
	expect_status 2 $M
	expect_grep "$B/manifest.json: field $f missing" "$T/err"
done
jq 'del(.probes[1].sha256)' "$T/good.json" >"$B/manifest.json"
expect_status 2 $M
expect_grep "$B/manifest.json: field probes\[1\].sha256 missing \(the probe file's sha256; write it with .gcratchet manifest DIR --force., or rebuild\)" "$T/err"
jq '.probes[0].sha256 = "-"' "$T/good.json" >"$B/manifest.json"
expect_status 2 $M
expect_grep 'probes\[0\].sha256: "-" is not a sha256' "$T/err"
jq '.version = 3' "$T/good.json" >"$B/manifest.json"
expect_status 2 $M
expect_grep "version: 3 is newer than this harness reads \(2\)" "$T/err"
jq '.probes[0].wrapper = "yes"' "$T/good.json" >"$B/manifest.json"
expect_status 2 $M
expect_grep 'probes\[0\].wrapper: must be' "$T/err"
cp "$T/good.json" "$B/manifest.json"

# ---- The census against the run and the manifest --------------------------------------------
C="$T/census"
mkdir "$C"
probe() { # NAME STDOUT-CHECKSUM CENSUS-TAIL
	cat >"$C/$1" <<SCRIPT
#!/bin/sh
echo "checksum $2"
printf '{"format":"gcr-census","version":1,"probe":"$1","size":"%s","collector":"scripted","collector_version":"1.0","checksum":"0x00000000000000aa"$3}' "\$1" >&3
SCRIPT
	chmod +x "$C/$1"
}
probe 01_typo 0x00000000000000aa ',"census":{"alloc_byts":1000,"major_collections":2}'
probe 02_twosums 0x00000000000000bb ''
probe 03_plain 0x00000000000000aa ''
expect_status 0 "$GCR" manifest "$C" --collector scripted --version 1.0
expect_status 2 "$GCR" measure --build "$C" --rounds 1 --warmup 0 --meters rusage,census --size ci
expect_grep "warning: unknown census key \"census.alloc_byts\" \(not stored" "$T/out"
s=$("$GCR" export | jq -r .session.id)
expect_eq "$(exported "$s" '.runs[] | select(.probe == "01_typo") | "\(.status) \(.samples["census.major_collections"]) \(.detail)"')" \
	'ok 2 unknown census key "census.alloc_byts" (not stored: a typo? the fields are in docs/census-protocol.md)' \
	"an unknown key: the run is ok and keeps the warning"
expect_eq "$(exported "$s" '.runs[] | select(.probe == "02_twosums") | "\(.status): \(.detail)"')" \
	"bad_census: checksums differ: stdout says checksum 0x00000000000000bb, the census says 0x00000000000000aa" \
	"two checksums: the run failed"
expect_eq "$(exported "$s" '.runs[] | select(.probe == "03_plain") | "\(.status) \(.detail)"')" "ok null" "a clean run says nothing"
# A census that names another collector or version than the manifest: a warning.
expect_status 0 "$GCR" manifest "$C" --collector jvm-g1 --version 17 --force
expect_status 0 "$GCR" measure --build "$C" --probes 03 --rounds 1 --warmup 0 --meters rusage,census --size ci
expect_grep 'warning: the census names collector "scripted", the manifest "jvm-g1"; the census names collector version "1.0", the manifest "17"' "$T/out"
finish
