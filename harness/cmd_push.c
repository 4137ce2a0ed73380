/*
 * gcratchet push and pull — copy sessions between two stores, idempotently: a CI runner
 * measures into its own SQLite file and pushes to the fleet's PostgreSQL database; pull
 * brings the fleet's sessions into a local file for analysis. One verb, two directions.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "store.h"

/* What a push or pull did, session by session. */
struct push_tally {
	size_t copied, present, completed, skipped, failed;
};

/*
 * Copies one session and says what became of it. A session still running on another host is
 * copied as far as it got, and said so: a later push or pull completes the copy.
 */
static int push_one(const struct store_session *si, struct store *from, struct store *to,
                    struct push_tally *t, struct err *e)
{
	int64_t to_id;
	int did;
	int running = strcmp(si->status, "running") == 0 || strcmp(si->status, "abandoned") == 0;

	if (store_session_copy(from, si->id, to, &to_id, &did, e) != 0)
		return -1;
	if (did == 1)
		printf("session %lld: stored as session %lld%s%s%s\n", (long long)si->id,
		       (long long)to_id, running ? " (still running on " : "",
		       running ? cli_safe(si->hostname) : "",
		       running ? " when copied: a later copy completes it)" : "");
	else if (did == 2)
		printf(
		    "session %lld: completed as session %lld (copied before while it ran; now %s, "
		    "%s)\n",
		    (long long)si->id, (long long)to_id, cli_safe(si->status),
		    running ? "still running" : "ended");
	else
		printf("session %lld: already there as session %lld\n", (long long)si->id,
		       (long long)to_id);
	t->copied += did == 1;
	t->completed += did == 2;
	t->present += did == 0;
	return 0;
}

/*
 * Copies session `session` (0: every session) of `from` into `to`, each in its own
 * transaction, so a failure keeps the sessions copied before it. Prints one line per session.
 * A session that cannot be copied (its content refused, its rows damaged) is reported and
 * skipped, and the others go on: 1 when any was. A destination that is gone (ERR_IO: the
 * connection lost, the server not answering), or the one session asked for, ends the copy:
 * -1 with e.
 */
static int push_sessions(const char *cmd, struct store *from, struct store *to, int64_t session,
                         struct err *e)
{
	struct store_session *all = NULL;
	struct push_tally t = {0};
	size_t n = 0;
	int rc = -1;

	if (session) {
		all = xcalloc(1, sizeof *all);
		if (store_session_get(from, session, &all[0], e) != 0)
			goto out;
		n = 1;
	} else if (store_list_sessions(from, NULL, &all, &n, e) != 0) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct err e2 = ERR_INIT;
		/* With every session, one still being measured here is left for the next push. */
		if (!session && strcmp(all[i].status, "running") == 0 && !all[i].elsewhere) {
			printf("session %lld: still running, skipped\n", (long long)all[i].id);
			t.skipped++;
			continue;
		}
		if (push_one(&all[i], from, to, &t, &e2) == 0)
			continue;
		if (e2.code == ERR_IO || session) {
			*e = e2;
			goto out;
		}
		fflush(stdout);
		cli_error(cmd, "session %lld not copied: %s", (long long)all[i].id, e2.msg);
		t.failed++;
	}
	fprintf(stderr, "gcratchet %s: %zu session%s copied to %s, %zu already there", cmd,
	        t.copied, t.copied == 1 ? "" : "s", cli_safe(store_where(to)), t.present);
	if (t.completed)
		fprintf(stderr, ", %zu completed", t.completed);
	if (t.skipped)
		fprintf(stderr, ", %zu still running", t.skipped);
	if (t.failed)
		fprintf(stderr, ", %zu could not be copied (above)", t.failed);
	fputc('\n', stderr);
	rc = t.failed ? 1 : 0;
out:
	store_sessions_release(all, n);
	return rc;
}

struct push_opts {
	const char *remote; /* push's --to, pull's --from */
	const char *db;
	int64_t session; /* 0 or CLI_SESSION_WORD: every session */
};

/* push --to URL [--db FILE]: from --db to URL; pull --from URL [--db FILE]: the other way. */
static int push_or_pull(const struct cli_verb *v, int argc, char **argv)
{
	const char *cmd = v->name;
	const int pull = strcmp(cmd, "pull") == 0;
	const char *remote_opt = pull ? "--from" : "--to", *db, *remote;
	struct push_opts o = {0};
	struct store *from = NULL, *to = NULL;
	struct err e = ERR_INIT;
	int64_t session;
	int rc = EXIT_UNJUDGED, r;

	if ((r = cli_parse(v, argc, argv, &o, NULL)) != 0)
		return r > 0 ? EXIT_OK : EXIT_UNJUDGED;
	db = o.db;
	remote = o.remote;
	session = o.session == CLI_SESSION_WORD ? 0 : o.session;
	if (!remote) {
		rc = cli_error(
		    cmd, "%s URL is required (the other database: postgresql://... or a file)",
		    remote_opt);
		goto out;
	}
	/* The source is only read; the destination is created and migrated like measure's. */
	if (store_open(pull ? remote : cli_db_path(db), STORE_READ, &from, &e) != 0 ||
	    store_open(pull ? cli_db_path(db) : remote, STORE_WRITE, &to, &e) != 0) {
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	if (strcmp(store_where(from), store_where(to)) == 0) {
		rc = cli_error(cmd, "%s is both the source and the destination", store_where(to));
		goto out;
	}
	if ((r = push_sessions(cmd, from, to, session, &e)) < 0) {
		fflush(stdout);
		rc = cli_error(cmd, "%s", e.msg);
		goto out;
	}
	rc = fflush(stdout) != 0 ? cli_error(cmd, "writing to stdout failed")
	     : r > 0             ? EXIT_UNJUDGED
	                         : EXIT_OK;
out:
	store_close(to);
	store_close(from);
	return rc;
}

static int push_main(int argc, char **argv)
{
	return push_or_pull(&cmd_push, argc, argv);
}

static int pull_main(int argc, char **argv)
{
	return push_or_pull(&cmd_pull, argc, argv);
}

#define PO(field) offsetof(struct push_opts, field)
static const struct cli_option push_options[] = {
    {"--to", "URL", CLI_STRING, PO(remote), .flags = CLI_REQUIRED,
     .help = "the database copied into: postgresql://... or a file (required)"},
    {"--db", "FILE", CLI_STRING, PO(db),
     .help = "the database copied from (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {"--session", "N|all", CLI_SESSION, PO(session), .values = "all",
     .help = "one session, by its id here (default: all)"},
    {0},
};

static const struct cli_option pull_options[] = {
    {"--from", "URL", CLI_STRING, PO(remote), .flags = CLI_REQUIRED,
     .help = "the database copied from: postgresql://... or a file (required)"},
    {"--db", "FILE", CLI_STRING, PO(db),
     .help = "the database copied into (default $GCR_DB or " CLI_DEFAULT_DB ")"},
    {"--session", "N|all", CLI_SESSION, PO(session), .values = "all",
     .help = "one session, by its id in URL (default: all)"},
    {0},
};
#undef PO

const struct cli_verb cmd_push = {
    .name = "push",
    .summary = "copy sessions to another database (a fleet's PostgreSQL)",
    .options = push_options,
    .run = push_main,
    .description =
        "Copies sessions of --db (default: every session) into the database URL names\n"
        "(postgresql://... or another file), each whole in one transaction, with their host,\n"
        "builds, arms, runs and samples. A session is known by its uuid: one already there is\n"
        "left as it is, so pushing twice stores it once. Session ids are the source's; each line\n"
        "says the id the session has in URL. A session still running on this host is skipped;\n"
        "one running on another host is copied as far as it got, and a later copy completes it.\n"
        "A session that cannot be copied is reported and skipped, and the others go on.\n",
    .exit_status = "0 every session copied or already there; 2 a database could not be opened, "
                   "a session could not be copied, or the destination stopped answering (the "
                   "sessions copied before are kept).",
};

const struct cli_verb cmd_pull = {
    .name = "pull",
    .summary = "copy sessions from another database into --db",
    .options = pull_options,
    .run = pull_main,
    .description =
        "push the other way: copies sessions of URL (default: every session; N is URL's id) into\n"
        "--db, for a local analysis. Idempotent like push; a session copied while it still ran\n"
        "is completed by a later pull.\n",
    .exit_status = "0 every session copied or already there; 2 a database could not be opened "
                   "or a session could not be copied.",
};
