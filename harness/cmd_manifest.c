/*
 * gcratchet manifest — writes manifest.json for a folder of probe executables built outside
 * make (a JVM's or a JS engine's launch scripts, another language's binaries): each probe's
 * sha256, so the folder is one build until its bytes change, and every other field of the
 * schema from an option (docs/manifest.md). With --check it writes nothing and runs the
 * port checklist of docs/porting.md on the folder instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "run.h"
#include "session.h"
#include "session_opts.h"

/* What --check asks for: sizes, the build its checksums are held to, the store. */
struct manifest_check_opts {
	const char *dir;
	struct strlist sizes;
	const char *reference;
	const char *db;
};

/* One line of the check's report; counts a failure. */
static void manifest_check_line(int ok, const char *probe, const char *what, const char *text,
                                int *failed)
{
	char *safe = escape_text(text);

	printf("%s %-24s %-20s %s\n", ok ? "ok  " : "FAIL", cli_safe(probe), what, safe);
	free(safe);
	*failed += !ok;
}

/* Whether a run's figures hold anything the census gave. */
static int manifest_check_has_census(const struct metric_set *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (strncmp(m->items[i].name, "census.", 7) == 0)
			return 1;
	return 0;
}

/*
 * Runs every probe of the port (arm 1) and of the reference (arm 0) at one size, as a
 * session's runs are run (hermetic, through the scratch folder's link), and holds each to the
 * checklist; with heap, also under GCR_HEAP_MAX_MB=1. Returns 0, or -1 (printed) when it could
 * not run at all.
 */
static int manifest_check_size(const char *cmd, const struct manifest_check_opts *c,
                               const char *size, int heap, int *checks, int *failed)
{
	struct session_opts o;
	struct session_setup s;
	struct session_prober *prober = NULL;
	struct strlist limit = {0};
	struct err e = ERR_INIT;
	char what[64];
	int rc = -1;

	session_opts_init(&o, SESSION_VERB_MINHEAP);
	strlist_push(strchr(c->reference, '/') ? &o.build_dirs : &o.collectors, c->reference);
	strlist_push(&o.build_dirs, c->dir);
	/* rusage and the census: the prober's meters; no perf or valgrind to plan or say. */
	o.meters = xstrdup("rusage,census");
	if (c->db)
		o.db = xstrdup(c->db);
	session_setup_init(&s);
	if (session_opts_set_size(&o, size, &e) != 0) {
		cli_error(cmd, "--size %s: %s", size, e.msg);
		goto out;
	}
	if (session_setup_begin(cmd, &o, "gcratchet manifest --check", &s) != 0)
		goto out;
	if (s.narms != 2) {
		cli_error(cmd, "--check: the folder and its reference must be two builds");
		goto out;
	}
	if (session_prober_open(&s.plan, &prober, &e) != 0) {
		cli_error(cmd, "%s", e.msg);
		goto out;
	}
	strlist_push(&limit, "GCR_HEAP_MAX_MB=1");
	for (size_t k = 0; k < s.plan.probes.n && !*s.plan.stop; k++) {
		const char *probe = s.plan.probes.items[k];
		struct session_single ref, got;
		const char *mine;
		char *text;

		if (session_prober_run(prober, &s.arms[0], probe, &ref, &e) != 0 ||
		    session_prober_run(prober, &s.arms[1], probe, &got, &e) != 0) {
			cli_error(cmd, "%s", e.msg);
			goto out;
		}
		snprintf(what, sizeof what, "%s", size);
		mine = got.checksum ? got.checksum : "none";
		*checks += 1;
		if (got.status != RUN_STATUS_OK)
			text = xasprintf("%s: %s", run_status_label(got.status),
			                 got.detail ? got.detail : "(no detail)");
		else if (!manifest_check_has_census(&got.metrics))
			text = xasprintf(
			    "no census: GCR_CENSUS_FD got nothing (docs/census-protocol.md)");
		else if (got.detail)
			text = xasprintf("warning: %s", got.detail);
		else if (ref.status != RUN_STATUS_OK || !ref.checksum)
			text = xasprintf("the reference %s did not run: %s", s.arms[0].label,
			                 ref.detail ? ref.detail : run_status_label(ref.status));
		else if (strcmp(mine, ref.checksum) != 0)
			text = xasprintf("checksum %s, the reference %s's %s: not the same work",
			                 mine, s.arms[0].label, ref.checksum);
		else if (got.premise == RUN_PREMISE_NOT_MET)
			text = xasprintf("INERT: premise not met: %s",
			                 got.premise_text ? got.premise_text : "");
		else
			text = NULL;
		if (text) {
			struct strlist lines = {0};
			manifest_check_line(0, probe, what, text, failed);
			/* What the port said as it failed (item 6 of issue 27: not only in export). */
			if (got.status != RUN_STATUS_OK)
				run_stderr_lines(got.stderr_tail, 12, &lines);
			for (size_t i = 0; i < lines.n; i++) {
				char *safe = escape_text(lines.items[i]);
				if (!strstr(text, lines.items[i]))
					printf("          stderr: %s\n", safe);
				free(safe);
			}
			strlist_release(&lines);
		} else {
			const double *minor =
			    metric_set_get(&got.metrics, "census.minor_collections");
			const double *major =
			    metric_set_get(&got.metrics, "census.major_collections");
			text = xasprintf(
			    "checksum %s = %s's; census%s%.0f minor, %.0f major; premise %s", mine,
			    s.arms[0].label, minor && major ? " " : " without counts, ",
			    minor ? *minor : 0, major ? *major : 0,
			    got.premise == RUN_PREMISE_MET  ? "met"
			    : got.premise == RUN_PREMISE_NA ? "n/a"
			                                    : "not judged");
			manifest_check_line(1, probe, what, text, failed);
		}
		free(text);
		session_single_release(&ref);
		session_single_release(&got);
		if (!heap)
			continue;
		/* The heap limit: a run that cannot fit in 1 MiB says heap exhausted, status 3. */
		*checks += 1;
		if (!strlist_contains(&s.arms[1].build->knobs, "GCR_HEAP_MAX_MB") &&
		    s.arms[1].build->abi == 0) {
			manifest_check_line(
			    0, probe, "GCR_HEAP_MAX_MB=1",
			    "the manifest declares no GCR_HEAP_MAX_MB knob: it never "
			    "reaches the probes (--knob GCR_HEAP_MAX_MB)",
			    failed);
			continue;
		}
		{
			struct session_arm limited = s.arms[1];
			limited.knobs = &limit;
			if (session_prober_run(prober, &limited, probe, &got, &e) != 0) {
				cli_error(cmd, "%s", e.msg);
				goto out;
			}
			text = got.status == RUN_STATUS_HEAP_EXHAUSTED
			           ? xasprintf("heap exhausted (status 3)")
			           : xasprintf("%s%s%s: a run that does not fit must say \"heap "
			                       "exhausted\" on stderr and exit 3",
			                       run_status_label(got.status), got.detail ? ", " : "",
			                       got.detail ? got.detail : "");
			manifest_check_line(got.status == RUN_STATUS_HEAP_EXHAUSTED, probe,
			                    "GCR_HEAP_MAX_MB=1", text, failed);
			free(text);
			session_single_release(&got);
		}
	}
	rc = *s.plan.stop ? -1 : 0;
out:
	strlist_release(&limit);
	session_prober_close(prober);
	session_setup_end(&s);
	session_opts_release(&o);
	return rc;
}

/* --size ci,default,large (or all): each once, in the order given (a strlist). */
static int manifest_check_sizes(void *field, const struct cli_option *row, const char *val,
                                struct err *e)
{
	char *copy = xstrdup(strcmp(val, "all") == 0 ? "ci,default,large" : val), *save = NULL;
	struct strlist *out = field;
	int rc = 0;

	(void)row;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "ci") != 0 && strcmp(t, "default") != 0 && strcmp(t, "large") != 0)
			rc = err_setc(
			    e, ERR_INVALID,
			    "--size %s: \"%s\" is not a size (ci, default, large, or all)", val, t);
		else if (strlist_contains(out, t))
			rc = err_setc(e, ERR_INVALID, "--size %s: %s given twice", val, t);
		else
			strlist_push(out, t);
	}
	free(copy);
	return rc;
}

/* --abi N: a count, and no more than a collector ABI can be. */
static int manifest_abi(void *field, const struct cli_option *row, const char *val, struct err *e)
{
	uint64_t v;

	if (cli_count(row, val, &v, e) != 0)
		return -1;
	if (v > 1000)
		return err_setc(e, ERR_INVALID, "--abi %s: not a collector ABI version", val);
	*(int *)field = (int)v;
	return 0;
}

/* --check: every size, the heap limit at the first; 0 all passed, 1 one failed, 2 not run. */
static int manifest_check(const char *cmd, const struct manifest_check_opts *c)
{
	int checks = 0, failed = 0;

	printf("gcratchet manifest --check: %s against %s, size%s", cli_safe(c->dir),
	       cli_safe(c->reference), c->sizes.n == 1 ? "" : "s");
	for (size_t i = 0; i < c->sizes.n; i++)
		printf("%s%s", i ? ", " : " ", cli_safe(c->sizes.items[i]));
	printf(" (docs/porting.md, \"The checklist\")\n");
	fflush(stdout);
	for (size_t i = 0; i < c->sizes.n; i++)
		if (manifest_check_size(cmd, c, c->sizes.items[i], i == 0, &checks, &failed) != 0)
			return EXIT_UNJUDGED;
	printf("%d passed, %d failed\n", checks - failed, failed);
	return failed ? EXIT_REGRESSION : EXIT_OK;
}

/* What manifest takes: what it writes (o and the lists), or what --check runs. */
struct manifest_opts {
	struct buildinfo_manifest_opts o;
	const char *protocol;
	struct strlist wrappers, meters_off, knobs, digests;
	int checking;
	struct manifest_check_opts check;
};

/* Any option given that writes a manifest (MANIFEST_OPT_WRITE), to refuse it beside --check. */
enum { MANIFEST_OPT_WRITE = 1u << 0 };
static void manifest_writes(void *ctx, const struct cli_option *row, const char *val)
{
	(void)val;
	if (row && (row->group & MANIFEST_OPT_WRITE))
		*(int *)ctx = 1;
}

static int manifest_main(int argc, char **argv)
{
	const char *cmd = cmd_manifest.name;
	struct manifest_opts m;
	struct buildinfo_manifest_opts *o = &m.o;
	struct manifest_check_opts *check = &m.check;
	struct strlist positional = {0}, warnings = {0};
	struct err e;
	size_t n;
	int rc = EXIT_UNJUDGED, r, writing = 0;

	memset(&m, 0, sizeof m);
	if ((r = cli_parse(&cmd_manifest, argc, argv, &m, &positional)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	cli_scan(&cmd_manifest, argc, argv, manifest_writes, &writing);
	if (positional.n != 1) {
		rc = cli_usage(cli_find_verb(cmd), 1);
		goto out;
	}
	if (m.checking && writing) {
		rc = cli_error(cmd, "--check writes nothing: it does not go with the options that "
		                    "write a manifest");
		goto out;
	}
	if (!m.checking && (check->sizes.n || check->reference || check->db)) {
		rc = cli_error(cmd, "--size, --reference and --db go with --check");
		goto out;
	}
	if (m.checking) {
		check->dir = positional.items[0];
		if (!check->reference)
			check->reference = "gen";
		if (check->sizes.n == 0)
			strlist_push(&check->sizes, "ci");
		rc = manifest_check(cmd, check);
		goto out;
	}
	if (m.protocol && o->abi) {
		rc = cli_error(cmd, "--abi and --protocol: give one (--abi for C probes built "
		                    "against gcr.h, --protocol census for any other program)");
		goto out;
	}
	/* "none" empties a list; beside a name it would be read as one. */
	if ((m.meters_off.n > 1 && strlist_contains(&m.meters_off, "none")) ||
	    (m.knobs.n > 1 && strlist_contains(&m.knobs, "none"))) {
		rc = cli_error(cmd, "%s none empties the list: give it alone",
		               strlist_contains(&m.knobs, "none") ? "--knob" : "--meters-off");
		goto out;
	}
	o->protocol = m.protocol != NULL;
	o->wrappers = &m.wrappers;
	o->meters_off = m.meters_off.n ? &m.meters_off : NULL;
	o->knobs = m.knobs.n ? &m.knobs : NULL;
	o->digests = &m.digests;
	if (buildinfo_manifest_write(positional.items[0], o, &n, &warnings, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "gcratchet %s: warning: %s\n", cmd, cli_safe(warnings.items[i]));
	printf("%s/manifest.json: %zu probe%s\n", positional.items[0], n, n == 1 ? "" : "s");
	rc = EXIT_OK;
out:
	strlist_release(&check->sizes);
	strlist_release(&warnings);
	strlist_release(&m.digests);
	strlist_release(&m.knobs);
	strlist_release(&m.meters_off);
	strlist_release(&m.wrappers);
	strlist_release(&positional);
	return rc;
}

#define MO(field) offsetof(struct manifest_opts, field)
#define W         MANIFEST_OPT_WRITE
static const struct cli_option manifest_options[] = {
    {"--collector", "NAME", CLI_STRING, MO(o.collector), .group = W,
     .help = "the collector (default: the folder's name)"},
    {"--version", "V", CLI_STRING, MO(o.version), .group = W,
     .help = "its version (default unknown)"},
    {"--abi", "N", CLI_CALL, MO(o.abi), 1, .call = manifest_abi, .group = W,
     .help = "C probes built against gcr.h, of collector ABI N"},
    {"--protocol", NULL, CLI_ENUM, MO(protocol), .values = "census", .group = W,
     .help = "any program that writes the census (the default)"},
    {"--name", "NAME", CLI_STRING, MO(o.name), .group = W,
     .help = "the build's name (default: the folder's)"},
    {"--git-commit", "REV", CLI_STRING, MO(o.git_commit), .group = W,
     .help = "its revision (default none)"},
    {"--wrapper", "PROBE", CLI_LIST, MO(wrappers), .group = W, .flags = CLI_REPEAT,
     .help = "a probe that starts the real program as a child"},
    {"--meters-off", "METER=WHY", CLI_LIST, MO(meters_off), .group = W, .flags = CLI_REPEAT,
     .help = "a meter left off unless --meters names it (none: no meter off)"},
    {"--knob", "NAME", CLI_LIST, MO(knobs), .group = W, .flags = CLI_REPEAT,
     .help = "a variable its probes read (none: no knob)"},
    {"--capabilities", "LIST", CLI_STRING, MO(o.capabilities), .group = W,
     .help = "collects,precise,...: what it does (none: nothing)"},
    {"--argv", "JSON", CLI_STRING, MO(o.argv), .group = W,
     .help = "every probe's command line, a JSON array"},
    {"--argv-iterations", "JSON", CLI_STRING, MO(o.argv_iterations), .group = W,
     .help = "the same, of a run that repeats"},
    {"--digest", "classes|lib", CLI_LIST, MO(digests), .group = W, .flags = CLI_REPEAT,
     .help = "a folder named by its digest"},
    {"--force", NULL, CLI_FLAG, MO(o.force), .group = W,
     .help = "replace an existing manifest: the folder becomes a new build"},
    {"--check", NULL, CLI_FLAG, MO(checking),
     .help = "write nothing: run the port checklist of docs/porting.md"},
    {"--size", "LIST|all", CLI_CALL, MO(check.sizes), .call = manifest_check_sizes,
     .help = "--check: the sizes (default ci)"},
    {"--reference", "NAME|DIR", CLI_STRING, MO(check.reference),
     .help = "--check: the build held to (default gen)"},
    {"--db", "FILE", CLI_STRING, MO(check.db),
     .help = "--check: the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef W
#undef MO

const struct cli_verb cmd_manifest = {
    .name = "manifest",
    .summary = "write a build folder's manifest (probe sha256s) for a foreign build",
    .args = "DIR",
    .description =
        "Writes DIR/manifest.json (docs/manifest.md) for a folder of probe executables built\n"
        "outside make: every executable named like a probe (NN_name) with its sha256. The build's\n"
        "name (--name) is the folder's; --collector (default: the folder's name) and --version\n"
        "(default unknown) are its identity, --git-commit (default none) its revision; --protocol\n"
        "census (the default) for any program, --abi N for C probes built against gcr.h (a probe\n"
        "that is a script or lacks the probe runtime is warned about). --wrapper PROBE declares a\n"
        "probe that starts the real program as a child (the valgrind meter then follows\n"
        "children). --meters-off valgrind=WHY leaves a meter off unless --meters names it;\n"
        "--knob NAME declares a variable its probes read (only declared knobs reach them);\n"
        "--capabilities collects,precise,... says what it does (none: nothing); --argv and\n"
        "--argv-iterations give every probe's command line as a JSON array ('[\"{exe}\",\n"
        "\"--size\", \"{size}\"]'); --digest classes|lib names that folder by its digest. --knob\n"
        "none and --meters-off none empty the list. --force replaces an existing manifest,\n"
        "keeping every field no option sets, with new digests: the folder becomes a new build.\n"
        "\n"
        "--check writes nothing: it runs the port checklist of docs/porting.md on the build in\n"
        "DIR, each probe as a session runs it (hermetic, through the scratch folder's link), at\n"
        "each size of --size (default ci), against the same probe of --reference (default gen):\n"
        "ok, a census, no warning, the reference's checksum, the premise not inert; and, at the\n"
        "first size, heap exhausted with status 3 under GCR_HEAP_MAX_MB=1. One line per check,\n"
        "a failed run's stderr under it, then \"N passed, N failed\".\n",
    .exit_status = "0 written, or every check passed; 1 a check failed; 2 bad arguments, no "
                   "probe in DIR, a manifest already there, or the checks could not run.",
    .options = manifest_options,
    .run = manifest_main,
};
