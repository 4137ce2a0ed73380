/*
 * test_quiet.c — the bench lock excludes another process and says who holds it, nests in one
 * process, is let go by the last unlock, writes the holder's note, and refuses a symbolic link
 * or a folder at its path; the idleness gate gives up with the load it saw; the spread is
 * (p90 - p10) / median, which one outlier cannot set; the calibration times what it was asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "quiet.h"
#include "unit.h"

static char dir[] = "/tmp/gcratchet-test-quiet.XXXXXX";

static int waited, still, granted;
static char granted_why[128];
static pid_t let_go; /* > 0: the holder to end at the wait's first update */
static void on_wait(void *ctx, const struct quiet_wait *w)
{
	(void)ctx;
	waited += w->state == QUIET_WAIT_BEGIN;
	still += w->state == QUIET_WAIT_STILL;
	if (w->state == QUIET_WAIT_DONE) {
		granted++;
		snprintf(granted_why, sizeof granted_why, "%s", w->why);
	}
	if (w->state == QUIET_WAIT_STILL && let_go > 0) {
		kill(let_go, SIGTERM);
		let_go = 0;
	}
}

/* A child that holds the bench lock until it is killed; its pid. */
static pid_t hold_in_child(void)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct err ce = ERR_INIT;
		int cfd;
		close(pipefd[0]);
		if (quiet_lock(0, NULL, NULL, &cfd, &ce) != 0)
			_exit(4);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		pid = -1;
	close(pipefd[0]);
	return pid;
}

/*
 * 1 when another process could take the lock's file now, 0 when it is held: a child's flock on
 * a fresh open of the path, with no wait (a forked child's quiet_lock would only nest in the
 * parent's hold, which it inherits).
 */
static int free_for_others(const char *path)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(0); /* no file: nothing holds it */
		_exit(flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno == EWOULDBLOCK ? 3 : 4);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 0 ? 1 : WEXITSTATUS(status) == 3 ? 0 : -1;
}

static void test_lock(void)
{
	char *path = xasprintf("%s/bench.lock", dir), note[64] = "";
	char *expect = xasprintf("pid %ld since ", (long)getpid());
	struct err e = ERR_INIT;
	int fd = -1, fd2 = -1, rfd;
	ssize_t n;

	setenv("GCR_LOCK_FILE", path, 1);
	CHECK(free_for_others(path) == 1);
	CHECK(quiet_lock(0, NULL, NULL, &fd, &e) == 0 && fd >= 0);
	/* The note names this process, for whoever waits. */
	rfd = open(path, O_RDONLY);
	n = rfd >= 0 ? read(rfd, note, sizeof note - 1) : -1;
	note[n > 0 ? n : 0] = '\0';
	if (rfd >= 0)
		close(rfd);
	CHECK(strncmp(note, expect, strlen(expect)) == 0);
	CHECK(free_for_others(path) == 0);
	/* Nested: taken again at once, still held after the inner unlock. */
	CHECK(quiet_lock(0, NULL, NULL, &fd2, &e) == 0 && fd2 == fd);
	quiet_unlock(fd2);
	CHECK(free_for_others(path) == 0);
	quiet_unlock(fd);
	CHECK(free_for_others(path) == 1);

	/* Held by another process: busy after the timeout, naming the holder's note. */
	{
		pid_t pid = hold_in_child();
		CHECK(pid > 0);
		e = (struct err)ERR_INIT;
		waited = still = granted = 0;
		CHECK(quiet_lock(1, on_wait, NULL, &fd, &e) != 0 && fd == -1);
		/* Told as it went, never told it was granted. */
		CHECK(still > 0 && granted == 0);
		CHECK(e.code == ERR_BUSY);
		free(expect);
		expect = xasprintf("the bench lock %s is held by pid %ld since ", path, (long)pid);
		CHECK(strncmp(e.msg, expect, strlen(expect)) == 0);
		CHECK(strstr(e.msg, "gave up after 1 s (--lock-timeout)") != NULL);
		CHECK(waited == 1);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		/* The kernel let go of the dead holder's lock. */
		CHECK(free_for_others(path) == 1);
	}

	/* A wait that ends: granted, once, saying after how long. */
	{
		pid_t pid = hold_in_child();
		CHECK(pid > 0);
		e = (struct err)ERR_INIT;
		waited = still = granted = 0;
		let_go = pid;
		CHECK(quiet_lock(60, on_wait, NULL, &fd, &e) == 0 && fd >= 0);
		CHECK(waited == 1 && still >= 1 && granted == 1);
		CHECK(strncmp(granted_why, "bench lock granted after ", 25) == 0);
		CHECK(strcmp(granted_why + strlen(granted_why) - 2, " s") == 0);
		quiet_unlock(fd);
		waitpid(pid, NULL, 0);
		/* Not waited for: nothing said. */
		waited = still = granted = 0;
		CHECK(quiet_lock(0, on_wait, NULL, &fd, &e) == 0 && fd >= 0);
		CHECK(waited + still + granted == 0);
		quiet_unlock(fd);
	}

	/* Not a lock file: refused, naming the path, nothing written through it. */
	unlink(path);
	CHECK(symlink("/etc/passwd", path) == 0);
	e = (struct err)ERR_INIT;
	CHECK(quiet_lock(0, NULL, NULL, &fd, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "is a symbolic link") != NULL);
	CHECK(strncmp(e.msg, path, strlen(path)) == 0);
	unlink(path);
	CHECK(mkdir(path, 0700) == 0);
	e = (struct err)ERR_INIT;
	CHECK(quiet_lock(0, NULL, NULL, &fd, &e) != 0);
	CHECK(e.code == ERR_INVALID && strstr(e.msg, "is not a regular file") != NULL);
	rmdir(path);
	unsetenv("GCR_LOCK_FILE");
	free(expect);
	free(path);
}

static void test_idle(void)
{
	struct err e = ERR_INIT;
	double load = -1;

	/* No host's load is below zero: the gate gives up at once, saying the load it saw. */
	waited = 0;
	CHECK(quiet_wait_idle(0.0, 0, on_wait, NULL, &load, &e) != 0);
	CHECK(load >= 0 && strstr(e.msg, "--idle-timeout") != NULL);
	/* Every host's is below a million. */
	e = (struct err)ERR_INIT;
	CHECK(quiet_wait_idle(1e6, 0, NULL, NULL, &load, &e) == 0);
}

static void test_spread(void)
{
	double same[5] = {10, 10, 10, 10, 10};
	double ten[11] = {95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105};
	double outlier[11] = {100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 1000};
	double zero[3] = {0, 0, 0};
	struct quiet_calibration c;

	CHECK_NEAR(quiet_spread_pct(same, 5), 0, 1e-12);
	/* p10 96, p90 104, median 100: 8%. */
	CHECK_NEAR(quiet_spread_pct(ten, 11), 8.0, 1e-9);
	/* One slow loop in eleven does not set the spread. */
	CHECK(quiet_spread_pct(outlier, 11) < 1.0);
	CHECK_NEAR(quiet_spread_pct(zero, 3), 0, 1e-12);
	quiet_calibrate(3, 2, &c);
	CHECK(c.reps == 3 && c.loop_ms > 0 && c.spread_pct >= 0);
}

int main(void)
{
	char *rm;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_lock();
	test_idle();
	test_spread();
	rm = xasprintf("rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	free(rm);
	return unit_done("test_quiet");
}
