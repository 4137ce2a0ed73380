/*
 * gcratchet export — the JSON census report of a stored session (every run, every sample), or
 * its samples as CSV, one row each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "report.h"
#include "report_csv.h"
#include "report_json.h"
#include "store.h"

static int export_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
	    {"--session", 1}, {"--format", 1}, {"--out", 1}, {"--db", 1}, {NULL, 0},
	};
	const char *cmd = "export", *opt, *val, *db = NULL, *out_path = NULL;
	struct cli_iter it;
	struct store *st = NULL;
	struct report_data d;
	struct err e;
	char *text = NULL;
	int64_t session = 0;
	int rc = EXIT_UNJUDGED, r, loaded = 0, csv = 0;

	cli_iter_init(&it, cmd, argc, argv, opts);
	while ((r = cli_next(&it, &opt, &val, NULL)) == 1) {
		if (strcmp(opt, "--help") == 0) {
			rc = cli_usage(cli_find_verb(cmd), 0);
			goto out;
		} else if (strcmp(opt, "--session") == 0) {
			if (cli_parse_session(cmd, opt, val, NULL, &session) != 0)
				goto out;
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(val, "json") != 0 && strcmp(val, "csv") != 0) {
				rc =
				    cli_error(cmd, "--format must be json or csv, got \"%s\"", val);
				goto out;
			}
			csv = strcmp(val, "csv") == 0;
		} else if (strcmp(opt, "--out") == 0) {
			out_path = val;
		} else if (strcmp(opt, "--db") == 0) {
			db = val;
		}
	}
	if (r < 0)
		goto out;
	if (store_open(cli_db_path(db), STORE_READ, &st, &e) != 0) {
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
	if (out_path) {
		if (write_file_atomic(out_path, text, strlen(text), &e) != 0) {
			rc = cli_error(cmd, "%s", e.msg);
			goto out;
		}
		fprintf(stderr, "gcratchet %s: session %lld (%zu runs) written to %s\n", cmd,
		        (long long)session, d.nruns,
		        write_file_is_stdout(out_path) ? "stdout" : out_path);
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

const struct cli_verb cmd_export = {
    .name = "export",
    .summary = "write a session's runs and samples as JSON or CSV",
    .run = export_main,
    .usage =
        "usage: gcratchet export [--session N] [--format json|csv] [--out FILE] [--db FILE]\n"
        "\n"
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
        "and a run's samples by metric name.\n"
        "\n"
        "Exit status: 0 written; 2 no such session or database, or the output could not be\n"
        "written.\n",
};
