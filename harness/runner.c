#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long past the probe's own limit the launcher may take before it is killed too. */
#define RUNNER_GRACE_MS 5000
/*
 * Once the launcher has reported, the probe is dead; anything still holding its pipes is a
 * leftover child of the probe, given this long before the process group is killed.
 */
#define RUNNER_DRAIN_MS 500
/* Descriptors the launcher and probe see; GCR_CENSUS_FD=3 names the first. */
#define RUNNER_CENSUS_FD 3
#define RUNNER_RESULT_FD 4

enum { PIPE_STDOUT, PIPE_STDERR, PIPE_CENSUS, PIPE_RESULT, PIPE_COUNT };

struct runner_pipe {
	int rd, wr;
	struct sbuf buf;
	size_t limit;  /* keep at most this many bytes */
	int keep_tail; /* when over the limit, keep the end rather than the start */
	int open;
};

static void runner_pipe_close(struct runner_pipe *p)
{
	if (p->rd >= 0)
		close(p->rd);
	if (p->wr >= 0)
		close(p->wr);
	p->rd = p->wr = -1;
}

static void runner_pipe_take(struct runner_pipe *p, const char *data, size_t n)
{
	if (!p->keep_tail) {
		if (p->buf.len < p->limit)
			sbuf_add(&p->buf, data, n < p->limit - p->buf.len ? n : p->limit - p->buf.len);
		return;
	}
	sbuf_add(&p->buf, data, n);
	if (p->buf.len > 2 * p->limit) {
		memmove(p->buf.data, p->buf.data + p->buf.len - p->limit, p->limit);
		p->buf.len = p->limit;
		p->buf.data[p->buf.len] = '\0';
	}
}

static char *runner_pipe_text(struct runner_pipe *p)
{
	if (p->keep_tail && p->buf.len > p->limit)
		return xstrdup(p->buf.data + p->buf.len - p->limit);
	return xstrdup(p->buf.data);
}

static int64_t runner_field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : 0;
}

static void runner_parse_result(const char *line, struct run_result *res)
{
	const char *status = strstr(line, "status=");

	res->outcome = RUN_LOST;
	if (!status)
		return;
	status += strlen("status=");
	if (strncmp(status, "exited ", 7) == 0)
		res->outcome = RUN_EXITED;
	else if (strncmp(status, "signaled ", 9) == 0)
		res->outcome = RUN_SIGNALED;
	else if (strncmp(status, "timeout ", 8) == 0)
		res->outcome = RUN_TIMEOUT;
	else if (strncmp(status, "exec_failed ", 12) == 0)
		res->outcome = RUN_EXEC_FAILED;
	res->exit_code = (int)runner_field(line, " code=");
	res->term_signal = (int)runner_field(line, " signal=");
	res->wall_ns = runner_field(line, " wall_ns=");
	res->user_ns = runner_field(line, " user_ns=");
	res->sys_ns = runner_field(line, " sys_ns=");
	res->maxrss_bytes = runner_field(line, " maxrss_bytes=");
	res->minflt = runner_field(line, " minflt=");
	res->majflt = runner_field(line, " majflt=");
	res->nvcsw = runner_field(line, " nvcsw=");
	res->nivcsw = runner_field(line, " nivcsw=");
	res->exec_errno = (int)runner_field(line, " errno=");
}

/* Moves a descriptor above the range the child's dup2 targets use, close-on-exec. */
static int runner_high_fd(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	close(fd);
	return high;
}

static char **runner_launcher_argv(const struct runner_request *req, char *timeout_arg)
{
	size_t n = 0, i = 0;
	char **argv;

	while (req->argv[n])
		n++;
	argv = xcalloc(n + 5, sizeof *argv);
	argv[i++] = (char *)req->launcher;
	if (req->no_aslr)
		argv[i++] = (char *)"-R";
	argv[i++] = timeout_arg;
	argv[i++] = (char *)req->program;
	for (size_t k = 1; k < n; k++)
		argv[i++] = req->argv[k];
	argv[i] = NULL;
	return argv;
}

int runner_run(const struct runner_request *req, struct run_result *res, struct err *e)
{
	struct runner_pipe pipes[PIPE_COUNT];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char timeout_arg[32], **argv = NULL;
	pid_t pid = -1;
	int rc = 0, status;
	int64_t deadline_ns = 0, drain_ns = 0;

	memset(res, 0, sizeof *res);
	res->outcome = RUN_LOST;
	for (int i = 0; i < PIPE_COUNT; i++) {
		int fds[2];
		pipes[i].rd = pipes[i].wr = -1;
		sbuf_init(&pipes[i].buf);
		pipes[i].open = 0;
		pipes[i].keep_tail = i == PIPE_STDERR;
		pipes[i].limit = i == PIPE_STDOUT   ? RUNNER_STDOUT_MAX
				 : i == PIPE_STDERR ? RUNNER_STDERR_TAIL
				 : i == PIPE_CENSUS ? RUNNER_CENSUS_MAX
						    : 4096;
		if (pipe2(fds, O_CLOEXEC) != 0) {
			rc = err_set(e, "cannot create a pipe: %s", strerror(errno));
			goto out;
		}
		pipes[i].rd = runner_high_fd(fds[0]);
		pipes[i].wr = runner_high_fd(fds[1]);
		pipes[i].open = 1;
	}

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipes[PIPE_STDOUT].wr, 1);
	posix_spawn_file_actions_adddup2(&fa, pipes[PIPE_STDERR].wr, 2);
	posix_spawn_file_actions_adddup2(&fa, pipes[PIPE_CENSUS].wr, RUNNER_CENSUS_FD);
	posix_spawn_file_actions_adddup2(&fa, pipes[PIPE_RESULT].wr, RUNNER_RESULT_FD);
	posix_spawnattr_init(&attr);
	/* Its own process group, so a stuck launcher can be killed together with the probe. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);

	snprintf(timeout_arg, sizeof timeout_arg, "%lld", (long long)req->timeout_ms);
	argv = runner_launcher_argv(req, timeout_arg);
	rc = posix_spawn(&pid, req->launcher, &fa, &attr, argv, req->envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		rc = err_set(e, "%s: cannot start the launcher: %s", req->launcher, strerror(rc));
		pid = -1;
		goto out;
	}
	for (int i = 0; i < PIPE_COUNT; i++) {
		close(pipes[i].wr);
		pipes[i].wr = -1;
	}
	if (req->timeout_ms > 0)
		deadline_ns = now_mono_ns() + (req->timeout_ms + RUNNER_GRACE_MS) * 1000000;

	for (;;) {
		struct pollfd pfd[PIPE_COUNT];
		int map[PIPE_COUNT], n = 0, wait_ms = -1;
		for (int i = 0; i < PIPE_COUNT; i++) {
			if (!pipes[i].open)
				continue;
			pfd[n].fd = pipes[i].rd;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		if (n == 0)
			break;
		if (!pipes[PIPE_RESULT].open && !drain_ns)
			drain_ns = now_mono_ns() + RUNNER_DRAIN_MS * 1000000LL;
		if (drain_ns && now_mono_ns() > drain_ns) {
			kill(-pid, SIGKILL);
			break;
		}
		if (drain_ns)
			wait_ms = RUNNER_DRAIN_MS;
		else if (deadline_ns) {
			int64_t left = (deadline_ns - now_mono_ns()) / 1000000;
			if (left <= 0) {
				/* The launcher is stuck: kill it and the probe, and stop reading. */
				kill(-pid, SIGKILL);
				break;
			}
			wait_ms = left > 1000 ? 1000 : (int)left;
		}
		if (poll(pfd, (nfds_t)n, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL);
			break;
		}
		for (int k = 0; k < n; k++) {
			char chunk[65536];
			ssize_t got;
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pfd[k].fd, chunk, sizeof chunk);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				pipes[map[k]].open = 0;
				continue;
			}
			runner_pipe_take(&pipes[map[k]], chunk, (size_t)got);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Anything the probe left behind in its group (it forked and exited) goes too. */
	kill(-pid, SIGKILL);

	runner_parse_result(pipes[PIPE_RESULT].buf.data, res);
	res->stdout_text = runner_pipe_text(&pipes[PIPE_STDOUT]);
	res->stderr_tail = runner_pipe_text(&pipes[PIPE_STDERR]);
	res->census_text = pipes[PIPE_CENSUS].buf.len ? runner_pipe_text(&pipes[PIPE_CENSUS]) : NULL;
	if (res->outcome == RUN_LOST && pipes[PIPE_RESULT].buf.len == 0 && res->stderr_tail[0] == '\0') {
		free(res->stderr_tail);
		res->stderr_tail = xstrdup("the launcher gave no result (killed after the time limit?)");
	}
	rc = 0;
out:
	for (int i = 0; i < PIPE_COUNT; i++) {
		runner_pipe_close(&pipes[i]);
		sbuf_release(&pipes[i].buf);
	}
	free(argv);
	return rc;
}

void run_result_release(struct run_result *res)
{
	free(res->stdout_text);
	free(res->census_text);
	free(res->stderr_tail);
	res->stdout_text = res->census_text = res->stderr_tail = NULL;
}

const char *run_result_describe(const struct run_result *res)
{
	static char buf[64];

	switch (res->outcome) {
	case RUN_EXITED:
		snprintf(buf, sizeof buf, "exited %d", res->exit_code);
		break;
	case RUN_SIGNALED:
		snprintf(buf, sizeof buf, "SIG%s", sigabbrev_np(res->term_signal)
							 ? sigabbrev_np(res->term_signal)
							 : "?");
		break;
	case RUN_TIMEOUT:
		snprintf(buf, sizeof buf, "timeout");
		break;
	case RUN_EXEC_FAILED:
		snprintf(buf, sizeof buf, "exec failed: %s", strerror(res->exec_errno));
		break;
	case RUN_LOST:
		snprintf(buf, sizeof buf, "lost (launcher gave no result)");
		break;
	}
	return buf;
}
