/*
 * test_queue.c — what of the queue can be tested without a server: it opens only the fleet's
 * PostgreSQL database (a file, or anything that is no connection string, is refused before any
 * connection, ERR_INVALID, naming it, so nothing is created); the state names are in the order
 * queue_status's by_state counts them; a part and a job release everything they own and can be
 * released twice. The claim, lease, fencing and completion
 * rules need PostgreSQL (SKIP LOCKED, server time): t180, t181 and t184 test them on a real
 * server; job splitting is the queue verb's (cmd_queue.c), tested through t180.
 */
#include <stdlib.h>
#include <unistd.h>

#include "queue.h"
#include "unit.h"

static void test_open_refuses(void)
{
	static const char *const not_pg[] = {"results/gcratchet.db", "/tmp/fleet.db", "fleet.db",
	                                     "sqlite:///tmp/x.db", "http://fleet/db"};
	struct store *st = (struct store *)&st;
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof not_pg / sizeof not_pg[0]; i++) {
		e = (struct err)ERR_INIT;
		st = (struct store *)&st;
		CHECK(queue_open(not_pg[i], &st, &e) != 0);
		CHECK(st == NULL);
		CHECK(e.code == ERR_INVALID);
		CHECK(strncmp(e.msg, not_pg[i], strlen(not_pg[i])) == 0);
		CHECK(strstr(e.msg, "the queue needs the fleet's PostgreSQL database") != NULL);
	}
	/* Nothing was created by the refusal. */
	CHECK(access("fleet.db", F_OK) != 0);
}

static void test_states(void)
{
	/* by_state[k] counts queue_states[k]: the status table's columns rely on this order. */
	CHECK_STR(queue_states[0], "queued");
	CHECK_STR(queue_states[1], "running");
	CHECK_STR(queue_states[2], "done");
	CHECK_STR(queue_states[3], "failed");
	CHECK_STR(queue_states[4], "canceled");
}

static void test_release(void)
{
	struct queue_part p = {0};
	struct queue_job j = {0};

	p.label = xstrdup("collector gen");
	strlist_push(&p.args, "--collector");
	strlist_push(&p.args, "gen");
	p.builds = xcalloc(1, sizeof *p.builds);
	p.nbuilds = 1;
	p.builds[0].option = xstrdup("--collector");
	p.builds[0].value = xstrdup("gen");
	p.builds[0].digest = xstrdup("0123456789abcdef");
	queue_part_release(&p);
	CHECK(p.label == NULL && p.args.n == 0 && p.builds == NULL && p.nbuilds == 0);
	queue_part_release(&p);

	j.id = 3;
	j.token = xstrdup("t");
	j.broken = xstrdup("args: not a JSON array");
	j.verb = xstrdup("measure");
	j.cwd = xstrdup("/tmp");
	j.label = xstrdup("whole");
	strlist_push(&j.args, "--probes");
	j.builds = xcalloc(2, sizeof *j.builds);
	j.nbuilds = 2;
	j.builds[1].option = xstrdup("BASE");
	queue_job_release(&j);
	CHECK(j.id == 0 && j.token == NULL && j.broken == NULL && j.builds == NULL);
	CHECK(j.args.n == 0 && j.verb == NULL);
	queue_job_release(&j);
}

int main(void)
{
	test_open_refuses();
	test_states();
	test_release();
	return unit_done("test_queue");
}
