/*
 * gcratchet manifest — writes manifest.json for a folder of probe executables built outside
 * make (a JVM's or a JS engine's launch scripts, another language's binaries): each probe's
 * sha256, so the folder is one build until its bytes change, and every other field of the
 * schema from an option (docs/manifest.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"

int cmd_manifest(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--name", 1},   {"--collector", 1},    {"--version", 1}, {"--git-commit", 1},
	    {"--abi", 1},    {"--protocol", 1},     {"--wrapper", 1}, {"--meters-off", 1},
	    {"--knob", 1},   {"--capabilities", 1}, {"--argv", 1},    {"--argv-iterations", 1},
	    {"--digest", 1}, {"--force", 0},        {NULL, 0},
	};
	const char *cmd = "manifest", *opt, *val;
	struct buildinfo_manifest_opts o;
	struct strlist positional = {0}, wrappers = {0}, meters_off = {0}, knobs = {0},
	               digests = {0}, warnings = {0};
	struct cli_iter it;
	struct err e;
	uint64_t v;
	size_t n;
	int rc = EXIT_UNJUDGED, r, protocol = 0, have_meters = 0, have_knobs = 0;

	memset(&o, 0, sizeof o);
	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, &positional)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_command(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--name") == 0) {
			o.name = val;
		} else if (strcmp(opt, "--collector") == 0) {
			o.collector = val;
		} else if (strcmp(opt, "--version") == 0) {
			o.version = val;
		} else if (strcmp(opt, "--git-commit") == 0) {
			o.git_commit = val;
		} else if (strcmp(opt, "--abi") == 0) {
			if (cli_parse_count(cmd, opt, val, 0, &v) != 0)
				goto out;
			if (v > 1000) {
				rc = cli_error(cmd, "--abi %s: not a collector ABI version", val);
				goto out;
			}
			o.abi = (int)v;
		} else if (strcmp(opt, "--protocol") == 0) {
			if (strcmp(val, "census") != 0) {
				rc = cli_error(cmd, "--protocol must be census, got \"%s\"", val);
				goto out;
			}
			protocol = 1;
		} else if (strcmp(opt, "--wrapper") == 0) {
			strlist_push(&wrappers, val);
		} else if (strcmp(opt, "--meters-off") == 0) {
			strlist_push(&meters_off, val);
			have_meters = 1;
		} else if (strcmp(opt, "--knob") == 0) {
			strlist_push(&knobs, val);
			have_knobs = 1;
		} else if (strcmp(opt, "--capabilities") == 0) {
			o.capabilities = val;
		} else if (strcmp(opt, "--argv") == 0) {
			o.argv = val;
		} else if (strcmp(opt, "--argv-iterations") == 0) {
			o.argv_iterations = val;
		} else if (strcmp(opt, "--digest") == 0) {
			strlist_push(&digests, val);
		} else if (strcmp(opt, "--force") == 0) {
			o.force = 1;
		}
	}
	if (r < 0)
		goto out;
	if (positional.n != 1) {
		rc = cli_usage(cli_find_command(cmd), 1);
		goto out;
	}
	if (protocol && o.abi) {
		rc = cli_error(cmd, "--abi and --protocol: give one (--abi for C probes built "
		                    "against gcr.h, --protocol census for any other program)");
		goto out;
	}
	/* "none" empties a list; beside a name it would be read as one. */
	if ((meters_off.n > 1 && strlist_contains(&meters_off, "none")) ||
	    (knobs.n > 1 && strlist_contains(&knobs, "none"))) {
		rc = cli_error(cmd, "%s none empties the list: give it alone",
		               strlist_contains(&knobs, "none") ? "--knob" : "--meters-off");
		goto out;
	}
	o.protocol = protocol;
	o.wrappers = &wrappers;
	o.meters_off = have_meters ? &meters_off : NULL;
	o.knobs = have_knobs ? &knobs : NULL;
	o.digests = &digests;
	if (buildinfo_manifest_write(positional.items[0], &o, &n, &warnings, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "gcratchet %s: warning: %s\n", cmd, cli_safe(warnings.items[i]));
	printf("%s/manifest.json: %zu probe%s\n", positional.items[0], n, n == 1 ? "" : "s");
	rc = EXIT_OK;
out:
	strlist_release(&warnings);
	strlist_release(&digests);
	strlist_release(&knobs);
	strlist_release(&meters_off);
	strlist_release(&wrappers);
	strlist_release(&positional);
	return rc;
}
