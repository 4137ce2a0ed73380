#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

extern char **environ;

/* How long past the probe's own limit the launcher may take before it is killed too. */
#define RUNNER_GRACE_MS     5000
/*
 * Once the launcher has reported, the probe and its leftovers are dead (the launcher kills
 * those before it replies); anything still holding the pipes, one stuck in the kernel say, is
 * given this long before the process group is killed.
 */
#define RUNNER_DRAIN_MS     500
/* The launcher finds its socket here (and the probe its census pipe, GCR_CENSUS_FD=3). */
#define RUNNER_LAUNCH_FD    3
/*
 * How often a waiting run looks at req->stop: an interrupt that lands just before poll()
 * does not wake it, and with no time limit nothing else would.
 */
#define RUNNER_STOP_POLL_MS 100

enum { PIPE_STDOUT, PIPE_STDERR, PIPE_CENSUS, PIPE_COUNT };

struct runner_pipe {
	int rd, wr;
	struct sbuf buf;
	size_t limit;  /* keep at most this many bytes */
	size_t seen;   /* bytes that arrived, kept or not */
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
	p->seen += n;
	if (!p->keep_tail) {
		if (p->buf.len < p->limit)
			sbuf_add(&p->buf, data,
			         n < p->limit - p->buf.len ? n : p->limit - p->buf.len);
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

static int64_t runner_field_or(const char *line, const char *key, int64_t absent)
{
	const char *p = strstr(line, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : absent;
}

static int64_t runner_field(const char *line, const char *key)
{
	return runner_field_or(line, key, 0);
}

/* " perf=V,E,R;-2;V,E,R" — one entry per requested event. */
static void runner_parse_perf(const char *line, struct run_result *res)
{
	const char *p = strstr(line, " perf=");

	res->nperf = 0;
	if (!p)
		return;
	p += strlen(" perf=");
	while (*p && *p != '\n' && res->nperf < RUNNER_MAX_EVENTS) {
		struct run_perf *r = &res->perf[res->nperf++];
		char *end;
		memset(r, 0, sizeof *r);
		if (*p == '-') {
			r->err = (int)strtol(p, &end, 10);
		} else {
			r->value = strtoull(p, &end, 10);
			if (*end == ',')
				r->enabled_ns = strtoull(end + 1, &end, 10);
			if (*end == ',')
				r->running_ns = strtoull(end + 1, &end, 10);
		}
		p = end;
		if (*p != ';')
			break;
		p++;
	}
}

static void runner_parse_result(const char *line, struct run_result *res)
{
	const char *status = strstr(line, "status=");

	res->outcome = RUN_LOST;
	res->thp_enabled = -1;
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
	else if (strncmp(status, "killed ", 7) == 0)
		res->outcome = RUN_INTERRUPTED;
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
	res->leftovers = (int)runner_field(line, " leftovers=");
	/* Absent is unknown, not "off". */
	res->thp_enabled = (int)runner_field_or(line, " thp_enabled=", -1);
	res->thp_errno = (int)runner_field(line, " thp_errno=");
	runner_parse_perf(line, res);
}

/* Moves a descriptor above the range the child's dup2 targets use, close-on-exec. */
static int runner_high_fd(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	close(fd);
	return high;
}

struct runner {
	char *launcher;
	char *cwd; /* the launcher's working directory, and so every probe's; NULL: ours */
	pid_t pid; /* the launcher; 0 when none is running */
	int sock;  /* our end of the SOCK_SEQPACKET pair; -1 when none */
};

static void runner_stop(struct runner *r)
{
	int status;

	if (r->sock >= 0)
		close(r->sock);
	r->sock = -1;
	if (r->pid > 0) {
		/*
		 * Closing the socket ends a healthy launcher within a moment; one stuck for a
		 * second is killed. Looked at from 0.1 ms on, doubling to 10 ms: a first look at
		 * 10 ms made every session end 10 ms late (docs/overhead.md).
		 */
		for (long waited_us = 0, step_us = 100;
		     waitpid(r->pid, &status, WNOHANG) == 0 && waited_us < 1000000;
		     waited_us += step_us, step_us = step_us < 10000 ? 2 * step_us : step_us)
			usleep((useconds_t)step_us);
		if (waitpid(r->pid, &status, WNOHANG) == 0) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, &status, 0);
		}
	}
	r->pid = 0;
}

static int runner_start(struct runner *r, struct err *e)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char *argv[] = {r->launcher, NULL};
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return err_setc(e, ERR_IO, "cannot create the launcher socket: %s",
		                strerror(errno));
	sv[1] = runner_high_fd(sv[1]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], RUNNER_LAUNCH_FD);
	if (r->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, r->cwd);
	posix_spawnattr_init(&attr);
	/* Its own process group: Ctrl-C stops the harness after this run, not the launcher. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	rc = posix_spawn(&r->pid, r->launcher, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		r->pid = 0;
		return err_set(e, "%s: cannot start the launcher: %s", r->launcher, strerror(rc));
	}
	r->sock = sv[0];
	return 0;
}

int runner_open(const char *launcher, const char *cwd, struct runner **out, struct err *e)
{
	struct runner *r = xcalloc(1, sizeof *r);

	r->launcher = xstrdup(launcher);
	r->cwd = cwd ? xstrdup(cwd) : NULL;
	r->sock = -1;
	if (access(launcher, X_OK) != 0 || runner_start(r, e) != 0) {
		if (access(launcher, X_OK) != 0)
			err_setc(e, ERR_NOT_FOUND, "%s is missing or not executable: run make",
			         launcher);
		runner_close(r);
		*out = NULL;
		return -1;
	}
	*out = r;
	return 0;
}

void runner_close(struct runner *r)
{
	if (!r)
		return;
	runner_stop(r);
	free(r->launcher);
	free(r->cwd);
	free(r);
}

/* Sends one request with the probe's three descriptors; -1 when it does not fit or fails. */
static int runner_send(struct runner *r, const struct runner_request *req, const int fds[3],
                       struct err *e)
{
	struct launch_request hdr = {0};
	struct sbuf b;
	struct msghdr msg = {0};
	struct iovec iov;
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct cmsghdr *c;
	int rc = 0;

	hdr.timeout_ms = req->timeout_ms;
	hdr.no_aslr = req->no_aslr ? 1 : 0;
	hdr.nevents = (uint32_t)req->nevents;
	hdr.cpu = req->cpu;
	hdr.thp_host = req->thp_host ? 1 : 0;
	if (req->nevents > LAUNCH_MAX_EVENTS || req->nevents > RUNNER_MAX_EVENTS)
		return err_setc(e, ERR_INVALID, "at most %d perf events per run",
		                LAUNCH_MAX_EVENTS);
	sbuf_init(&b);
	sbuf_add(&b, &hdr, sizeof hdr);
	if (req->nevents)
		sbuf_add(&b, req->events, req->nevents * sizeof *req->events);
	for (; req->argv[hdr.argc]; hdr.argc++)
		sbuf_add(&b, req->argv[hdr.argc], strlen(req->argv[hdr.argc]) + 1);
	for (; req->envp[hdr.envc]; hdr.envc++)
		sbuf_add(&b, req->envp[hdr.envc], strlen(req->envp[hdr.envc]) + 1);
	memcpy(b.data, &hdr, sizeof hdr);
	if (b.len > LAUNCH_MAX_REQUEST) {
		rc = err_setc(
		    e, ERR_INVALID,
		    "the probe's command line and environment take %zu bytes, more than %d", b.len,
		    LAUNCH_MAX_REQUEST);
		goto out;
	}
	iov.iov_base = b.data;
	iov.iov_len = b.len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	memset(cbuf, 0, sizeof cbuf);
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof cbuf;
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(3 * sizeof(int));
	memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
	while (sendmsg(r->sock, &msg, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR) {
			rc = err_setc(e, ERR_IO, "cannot reach the launcher: %s", strerror(errno));
			break;
		}
	}
out:
	sbuf_release(&b);
	return rc;
}

int runner_run(struct runner *r, const struct runner_request *req, struct run_result *res,
               struct err *e)
{
	struct runner_pipe pipes[PIPE_COUNT];
	int rc = -1, fds[3];
	int64_t deadline_ns = 0, drain_ns = 0;
	pid_t probe = 0;
	char reply[4096];
	int replied = 0, kill_sent = 0;

	memset(res, 0, sizeof *res);
	res->outcome = RUN_LOST;
	res->thp_enabled = -1;
	for (int i = 0; i < PIPE_COUNT; i++) {
		pipes[i].rd = pipes[i].wr = -1;
		sbuf_init(&pipes[i].buf);
		pipes[i].open = 0;
		pipes[i].seen = 0;
	}
	if (r->sock < 0 && runner_start(r, e) != 0)
		goto out;
	for (int i = 0; i < PIPE_COUNT; i++) {
		int p[2];
		pipes[i].keep_tail = i == PIPE_STDERR;
		pipes[i].limit = i == PIPE_STDOUT   ? RUNNER_STDOUT_MAX
		                 : i == PIPE_STDERR ? RUNNER_STDERR_TAIL
		                                    : RUNNER_CENSUS_MAX;
		if (pipe2(p, O_CLOEXEC) != 0) {
			err_setc(e, ERR_IO, "cannot create a pipe: %s", strerror(errno));
			goto out;
		}
		pipes[i].rd = p[0];
		pipes[i].wr = p[1];
		pipes[i].open = 1;
		fds[i] = p[1];
	}
	if (runner_send(r, req, fds, e) != 0) {
		runner_stop(r);
		goto out;
	}
	for (int i = 0; i < PIPE_COUNT; i++) {
		close(pipes[i].wr);
		pipes[i].wr = -1;
	}
	if (req->timeout_ms > 0)
		deadline_ns = now_mono_ns() + (req->timeout_ms + RUNNER_GRACE_MS) * 1000000;

	for (;;) {
		struct pollfd pfd[PIPE_COUNT + 1];
		int map[PIPE_COUNT + 1], n = 0, wait_ms = -1;
		int64_t now = now_mono_ns();
		for (int i = 0; i < PIPE_COUNT; i++) {
			if (!pipes[i].open)
				continue;
			pfd[n].fd = pipes[i].rd;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		if (!replied) {
			pfd[n].fd = r->sock;
			pfd[n].events = POLLIN;
			map[n++] = -1;
		}
		if (n == 0)
			break;
		if (!replied && !kill_sent && req->stop && *req->stop >= 2) {
			/* A second interrupt: the user wants out now, not after this run. */
			int64_t grace_ns = now + RUNNER_GRACE_MS * 1000000LL;
			if (send(r->sock, LAUNCH_KILL, strlen(LAUNCH_KILL), MSG_NOSIGNAL) < 0 &&
			    probe > 0)
				kill(-probe, SIGKILL);
			kill_sent = 1;
			if (!deadline_ns || grace_ns < deadline_ns)
				deadline_ns = grace_ns;
		}
		if (replied && !drain_ns)
			drain_ns = now + RUNNER_DRAIN_MS * 1000000LL;
		if (drain_ns) {
			/* The probe is dead; whatever still holds its pipes is a leftover child. */
			if (now > drain_ns) {
				if (probe > 0)
					kill(-probe, SIGKILL);
				break;
			}
			wait_ms = RUNNER_DRAIN_MS;
		} else if (deadline_ns) {
			int64_t left = (deadline_ns - now) / 1000000;
			if (left <= 0) {
				/* The launcher did not answer in time: kill both, start afresh next run. */
				if (probe > 0)
					kill(-probe, SIGKILL);
				runner_stop(r);
				break;
			}
			wait_ms = left > 1000 ? 1000 : (int)left;
		}
		if (req->stop && !kill_sent && !replied &&
		    (wait_ms < 0 || wait_ms > RUNNER_STOP_POLL_MS))
			wait_ms = RUNNER_STOP_POLL_MS;
		if (poll(pfd, (nfds_t)n, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			err_setc(e, ERR_IO, "poll: %s", strerror(errno));
			goto out;
		}
		for (int k = 0; k < n; k++) {
			char chunk[65536];
			ssize_t got;
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[k] < 0) {
				got = recv(r->sock, reply, sizeof reply - 1, 0);
				if (got < 0 && errno == EINTR)
					continue;
				if (got <= 0) {
					/* The launcher died: this run is lost, the next one restarts it. */
					runner_stop(r);
					replied = 1;
					continue;
				}
				reply[got] = '\0';
				if (strncmp(reply, "started pid=", 12) == 0) {
					probe = (pid_t)strtol(reply + 12, NULL, 10);
				} else {
					runner_parse_result(reply, res);
					replied = 1;
				}
				continue;
			}
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
	res->stdout_text = runner_pipe_text(&pipes[PIPE_STDOUT]);
	res->stderr_tail = runner_pipe_text(&pipes[PIPE_STDERR]);
	res->census_text =
	    pipes[PIPE_CENSUS].buf.len ? runner_pipe_text(&pipes[PIPE_CENSUS]) : NULL;
	res->census_bytes = pipes[PIPE_CENSUS].seen;
	if (res->outcome == RUN_LOST && res->stderr_tail[0] == '\0') {
		free(res->stderr_tail);
		res->stderr_tail = xstrdup(
		    "the launcher gave no result (it died, or was killed after the time limit)");
	}
	rc = 0;
out:
	for (int i = 0; i < PIPE_COUNT; i++) {
		runner_pipe_close(&pipes[i]);
		sbuf_release(&pipes[i].buf);
	}
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
		snprintf(buf, sizeof buf, "SIG%s",
		         sigabbrev_np(res->term_signal) ? sigabbrev_np(res->term_signal) : "?");
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
	case RUN_INTERRUPTED:
		snprintf(buf, sizeof buf, "interrupted");
		break;
	}
	return buf;
}
