/*
 * gcratchet export — the JSON census report of a stored session (every run, every sample), or
 * its samples as CSV, one row each.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "report.h"
#include "report_csv.h"
#include "report_json.h"
#include "store.h"

struct export_opts {
	const char *db, *out_path, *format;
	int64_t session; /* 0: the newest */
};

static int export_main(int argc, char **argv)
{
	const char *cmd = cmd_export.name;
	struct export_opts o = {.format = "json"};
	struct store *st = NULL;
	struct report_data d;
	struct err e;
	char *text = NULL;
	int64_t session;
	int rc = EXIT_UNJUDGED, r, loaded = 0, csv;

	if ((r = cli_parse(&cmd_export, argc, argv, &o, NULL)) != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	session = o.session;
	csv = strcmp(o.format, "csv") == 0;
	if (store_open(cli_db_path(o.db), STORE_READ, &st, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (session == 0) {
		if (store_latest_session(st, NULL, &session, &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		if (session == 0) {
			rc = cli_error(cmd, "no session in %s: run gcratchet measure or ab first",
			               store_where(st));
			goto out;
		}
	}
	if (report_data_load(st, session, &d, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	loaded = 1;
	text = csv ? report_csv_samples(&d) : report_json_session(&d);
	if (o.out_path) {
		if (write_file_atomic(o.out_path, text, strlen(text), &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		fprintf(stderr, "gcratchet %s: session %lld (%zu runs) written to %s\n", cmd,
		        (long long)session, d.nruns,
		        write_file_is_stdout(o.out_path) ? "stdout" : o.out_path);
	} else if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
		rc = cli_error(cmd, "writing to stdout failed");
		goto out;
	}
	rc = EXIT_OK;
out:
	if (loaded)
		report_data_release(&d);
	free(text);
	store_close(st);
	return rc;
}

#define EO(field) offsetof(struct export_opts, field)
static const struct cli_option export_options[] = {
    {"--session", "N", CLI_SESSION, EO(session), .help = "the session (default: the newest)"},
    {"--format", NULL, CLI_ENUM, EO(format), .values = "json|csv",
     .help = "the census report as JSON (default), or its samples as CSV"},
    {"--out", "FILE", CLI_STRING, EO(out_path), .help = "written there (default: stdout)"},
    {"--db", "FILE", CLI_STRING, EO(db),
     .help = "the database (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {0},
};
#undef EO

const struct cli_verb cmd_export = {
    .name = "export",
    .summary = "write a session's runs and samples as JSON or CSV",
    .options = export_options,
    .run = export_main,
    .description =
        "Writes the JSON census report of a session (default: the newest) to stdout or FILE:\n"
        "format gcratchet-session, version 2: the session, its host, its builds with their\n"
        "manifests, its arms (position, label, knobs, build), and every run with its arm and\n"
        "every sample it stored (schema: docs/schema/gcratchet-session.json).\n"
        "\n"
        "--format csv writes a header row, then one row per sample, with the columns\n"
        "  session,run,seq,round,warmup,kind,status,arm,label,build,collector,probe,size,\n"
        "  metric,unit,value\n"
        "(run: the run's id; seq: the order the session ran it; warmup: true or false; kind:\n"
        "timed, valgrind, ...; arm: the arm's position; label: the arm's; unit: bytes, ns,\n"
        "count, instructions or ratio). Fields with a comma, a quote or a line break are\n"
        "quoted as RFC 4180 says. Both formats list runs by probe number, arm, kind and round,\n"
        "and a run's samples by metric name.\n",
    .exit_status = "0 written; 2 no such session or database, or the output could not be "
                   "written.",
};
