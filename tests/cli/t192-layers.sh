#!/bin/sh
# Which part of the harness may include which (issue 42, item 3): the tree passes
# scripts/layers.sh (make layers), and the check fails, naming the file and line, when a core
# file includes cli.h, a renderer includes cmds.h, or cmds.h declares anything but a verb.
# It also checks what the layering exists for: no verb's options are parsed by a strcmp chain,
# and main.c holds no usage prose.
. "$(dirname "$0")/lib.sh"

expect_status 0 sh "$TOP/scripts/layers.sh" "$TOP"
expect_grep '^layers: every include goes down a layer' "$T/out"

# A copy of the tree's sources to break, one way at a time.
mkdir -p "$T/tree/scripts"
cp -R "$TOP/harness" "$TOP/reports" "$T/tree/"
cp "$TOP/scripts/layers.sh" "$T/tree/scripts/"
cp -R "$T/tree" "$T/clean"

sed -i '1a #include "cli.h"' "$T/tree/harness/stats.c"
expect_status 1 sh "$T/tree/scripts/layers.sh" "$T/tree"
expect_grep '^harness/stats.c:2: a core file includes cli.h, of the cli layer$' "$T/out"
expect_grep 'layers: 1 breach' "$T/err"

rm -rf "$T/tree" && cp -R "$T/clean" "$T/tree"
sed -i '1a #include "cmds.h"' "$T/tree/reports/report_md.c"
expect_status 1 sh "$T/tree/scripts/layers.sh" "$T/tree"
expect_grep '^reports/report_md.c:2: a reports file includes cmds.h, of the verbs layer$' "$T/out"

rm -rf "$T/tree" && cp -R "$T/clean" "$T/tree"
printf '%s\n' '#ifndef X' 'int measure_session(int argc);' '#endif' >>"$T/tree/harness/cmds.h"
expect_status 1 sh "$T/tree/scripts/layers.sh" "$T/tree"
expect_grep 'harness/cmds.h:[0-9]*: int measure_session\(int argc\);  <- cmds.h declares only the verbs' "$T/out"

# What one declaration per verb means, held by the tree.
expect_eq "$(cat "$TOP"/harness/cmd_*.c | grep -c 'strcmp(opt, "--')" 0 "strcmp(opt, \"--...\") chains left in the verbs"
expect_eq "$(grep -c '"usage: gcratchet [a-z]' "$TOP/harness/main.c")" 0 "usage prose in main.c"
expect_eq "$(grep -l '\.usage = \|\.usage =$' "$TOP"/harness/cmd_*.c | tr '\n' ' ')" "" "verbs with a transitional whole --help text"
finish
