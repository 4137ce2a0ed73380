/*
 * test_scratch.c — a scratch folder is private (0700) and records its maker; removing it takes
 * the session's links and the folder, but leaves a folder a probe left something in; the sweep
 * removes exactly the folders whose maker is gone (not this live process's, not one without an
 * owner file, not one of another name, not a link), and never follows a link out of a folder;
 * the root is $GCR_SCRATCH_ROOT when absolute, refused when relative.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "unit.h"

static char dir[] = "/tmp/gcratchet-test-scratch.XXXXXX";

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static char *at(const char *folder, const char *name)
{
	return xasprintf("%s/%s", folder, name);
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

static void test_root(void)
{
	const char *root = NULL;
	struct err e = ERR_INIT;

	unsetenv("GCR_SCRATCH_ROOT");
	CHECK(scratch_root(&root, &e) == 0 && root && strcmp(root, SCRATCH_ROOT) == 0);
	setenv("GCR_SCRATCH_ROOT", "", 1);
	CHECK(scratch_root(&root, &e) == 0 && root && strcmp(root, SCRATCH_ROOT) == 0);
	setenv("GCR_SCRATCH_ROOT", dir, 1);
	CHECK(scratch_root(&root, &e) == 0 && root && strcmp(root, dir) == 0);
	setenv("GCR_SCRATCH_ROOT", "relative/root", 1);
	CHECK(scratch_root(&root, &e) != 0);
	CHECK(strstr(e.msg, "GCR_SCRATCH_ROOT") != NULL);
	unsetenv("GCR_SCRATCH_ROOT");
}

static void test_create_remove(void)
{
	struct strlist links = {0};
	struct err e = ERR_INIT;
	struct stat st;
	char *s = NULL, *link, *owner, *left;

	CHECK(scratch_create(dir, SCRATCH_PREFIX, &s, &e) == 0 && s != NULL);
	if (!s)
		return;
	CHECK(strncmp(s, dir, strlen(dir)) == 0);
	CHECK(strncmp(s + strlen(dir), "/" SCRATCH_PREFIX, strlen(SCRATCH_PREFIX) + 1) == 0);
	CHECK(stat(s, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	owner = at(s, SCRATCH_OWNER_FILE);
	CHECK(exists(owner));
	/* The session's links go, and the folder with them. */
	link = at(s, "01_probe");
	CHECK(symlink("/bin/true", link) == 0);
	strlist_push(&links, "01_probe");
	scratch_remove(s, &links);
	CHECK(!exists(link) && !exists(s));
	free(link);
	free(owner);
	free(s);

	/* A folder a probe left something in stays, with its owner file, for the sweep. */
	s = NULL;
	CHECK(scratch_create(dir, SCRATCH_WORKER_PREFIX, &s, &e) == 0 && s != NULL);
	if (!s)
		goto out;
	left = at(s, "hs_err_pid1.log");
	owner = at(s, SCRATCH_OWNER_FILE);
	touch(left);
	scratch_remove(s, NULL);
	CHECK(exists(left) && exists(owner) && exists(s));
	/* ... but this process is alive: its sweep leaves the folder. */
	CHECK(scratch_sweep(dir, SCRATCH_WORKER_PREFIX) == 0);
	CHECK(exists(left));
	unlink(left);
	scratch_remove(s, NULL);
	CHECK(!exists(s));
	free(left);
	free(owner);
	free(s);

	/* A root that is not there: an error, and nothing made. */
	s = xasprintf("%s/nowhere", dir);
	{
		char *got = (char *)"unset";
		e = (struct err)ERR_INIT;
		CHECK(scratch_create(s, SCRATCH_PREFIX, &got, &e) != 0);
		CHECK(got == NULL && e.msg[0] != '\0');
	}
	free(s);
out:
	strlist_release(&links);
}

static void test_sweep(void)
{
	struct err e = ERR_INIT;
	char *dead = NULL, *live = NULL, *bare, *other, *victim, *victim_file, *in_dead, *lnk;
	int fds[2];
	pid_t pid;

	/* A folder whose maker has exited, with a link out of it and a file a probe left. */
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		char *s = NULL;
		struct err ce = ERR_INIT;
		close(fds[0]);
		if (scratch_create(dir, SCRATCH_PREFIX, &s, &ce) != 0)
			_exit(1);
		if (write(fds[1], s, strlen(s)) != (ssize_t)strlen(s))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	{
		char buf[512];
		ssize_t n = read(fds[0], buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		dead = xstrdup(buf);
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	CHECK(exists(dead));
	victim = at(dir, "victim");
	CHECK(mkdir(victim, 0700) == 0);
	victim_file = at(victim, "keep");
	touch(victim_file);
	lnk = at(dead, "out");
	CHECK(symlink(victim, lnk) == 0);
	in_dead = at(dead, "left.log");
	touch(in_dead);

	/* This live process's folder, one with no owner file, one of another name. */
	CHECK(scratch_create(dir, SCRATCH_PREFIX, &live, &e) == 0);
	bare = at(dir, SCRATCH_PREFIX "abc123");
	CHECK(mkdir(bare, 0700) == 0);
	other = at(dir, "gcratchet-other.abc123");
	CHECK(mkdir(other, 0700) == 0);

	/* Only the worker prefix swept: the session's dead folder stays. */
	CHECK(scratch_sweep(dir, SCRATCH_WORKER_PREFIX) == 0);
	CHECK(exists(dead));
	CHECK(scratch_sweep(dir, SCRATCH_PREFIX) == 1);
	CHECK(!exists(dead));
	CHECK(exists(victim_file)); /* the link was unlinked, not followed */
	CHECK(live && exists(live));
	CHECK(exists(bare) && exists(other));
	CHECK(scratch_sweep(dir, SCRATCH_PREFIX) == 0);
	scratch_remove(live, NULL);
	free(dead);
	free(live);
	free(bare);
	free(other);
	free(victim);
	free(victim_file);
	free(in_dead);
	free(lnk);
}

int main(void)
{
	char *rm;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_root();
	test_create_remove();
	test_sweep();
	rm = xasprintf("rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	free(rm);
	return unit_done("test_scratch");
}
