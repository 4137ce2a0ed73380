#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCRATCH_TAG       "gcratchet-scratch 1"
#define SCRATCH_MAX_DEPTH 32 /* deeper than any probe makes; bounds the descriptors held */

/* This boot's id, "" when unknown. */
static void scratch_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * When process pid started, in clock ticks since boot (/proc/PID/stat, field 22): with the
 * pid, the one name of a process for as long as the boot lasts. 0 when it cannot be read.
 */
static unsigned long long scratch_start_time(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name, in parentheses, may hold blanks and parentheses: count after it. */
	if (!(p = strrchr(buf, ')')))
		return 0;
	p++;
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1)
		return 0;
	return start;
}

int scratch_root(const char **root, struct err *e)
{
	const char *env = getenv("GCR_SCRATCH_ROOT");

	*root = SCRATCH_ROOT;
	if (!env || !*env)
		return 0;
	if (env[0] != '/')
		return err_setc(e, ERR_INVALID,
		                "GCR_SCRATCH_ROOT: must be an absolute path, got \"%s\"", env);
	*root = env;
	return 0;
}

int scratch_create(const char *root, const char *prefix, char **out, struct err *e)
{
	char *dir = xasprintf("%s/%sXXXXXX", root, prefix), *owner = NULL, *text = NULL;
	char boot[64];
	int fd = -1, rc = -1;
	ssize_t len;

	*out = NULL;
	if (!mkdtemp(dir)) {
		err_setc(e, ERR_IO, "cannot create a scratch folder in %s: %s", root,
		         strerror(errno));
		free(dir);
		return -1;
	}
	scratch_boot_id(boot, sizeof boot);
	if (!boot[0] || strchr(boot, ' '))
		snprintf(boot, sizeof boot, "-");
	text = xasprintf(SCRATCH_TAG "\npid %ld\nstart %llu\nboot %s\n", (long)getpid(),
	                 scratch_start_time((long)getpid()), boot);
	owner = xasprintf("%s/" SCRATCH_OWNER_FILE, dir);
	fd = open(owner, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	len = (ssize_t)strlen(text);
	if (fd < 0 || write(fd, text, (size_t)len) != len) {
		err_setc(e, ERR_IO, "%s: cannot write: %s", owner, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = err_setc(e, ERR_IO, "%s: cannot write: %s", owner, strerror(errno));
	if (rc != 0) {
		unlink(owner);
		rmdir(dir);
		free(dir);
	} else {
		*out = dir;
	}
	free(owner);
	free(text);
	return rc;
}

/* Whether dir holds nothing but its owner file. */
static int scratch_only_owner(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int only = 1;

	if (!d)
		return 0;
	while (only && (ent = readdir(d)))
		if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0 &&
		    strcmp(ent->d_name, SCRATCH_OWNER_FILE) != 0)
			only = 0;
	closedir(d);
	return only;
}

void scratch_remove(const char *dir, const struct strlist *links)
{
	char *owner = xasprintf("%s/" SCRATCH_OWNER_FILE, dir);

	for (size_t i = 0; links && i < links->n; i++) {
		char *link = xasprintf("%s/%s", dir, links->items[i]);
		unlink(link);
		free(link);
	}
	if (scratch_only_owner(dir)) {
		unlink(owner);
		rmdir(dir);
	}
	free(owner);
}

/*
 * Whether the owner file's text names a process that is gone: another boot's, a pid no
 * process has, or a pid some later process has taken (another start time). Unreadable facts
 * count as alive: a folder kept too long costs nothing, one removed under a running session
 * costs its runs.
 */
static int scratch_owner_gone(const char *text)
{
	char boot[64], now[64];
	long pid;
	unsigned long long start, start_now;

	if (sscanf(text, SCRATCH_TAG "\npid %ld\nstart %llu\nboot %63s\n", &pid, &start, boot) !=
	        3 ||
	    pid <= 0)
		return 0;
	scratch_boot_id(now, sizeof now);
	if (now[0] && strcmp(boot, "-") != 0 && strcmp(boot, now) != 0)
		return 1;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return 1;
	start_now = scratch_start_time(pid);
	return start != 0 && start_now != 0 && start_now != start;
}

/*
 * Empties the folder open at fd, without following a link: links and files are unlinked,
 * folders on the same file system emptied and removed. The owner file goes last, so that a
 * sweep cut short leaves a folder the next sweep still knows.
 */
static void scratch_clear(int fd, dev_t dev, int depth)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *ent;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return;
	}
	while ((ent = readdir(d))) {
		struct stat sb;
		int sub;

		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0 ||
		    (depth == 0 && strcmp(ent->d_name, SCRATCH_OWNER_FILE) == 0))
			continue;
		if (fstatat(fd, ent->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISDIR(sb.st_mode)) {
			unlinkat(fd, ent->d_name, 0);
			continue;
		}
		if (sb.st_dev != dev || depth >= SCRATCH_MAX_DEPTH)
			continue;
		sub = openat(fd, ent->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		scratch_clear(sub, dev, depth + 1);
		close(sub);
		unlinkat(fd, ent->d_name, AT_REMOVEDIR);
	}
	closedir(d);
	if (depth == 0)
		unlinkat(fd, SCRATCH_OWNER_FILE, 0);
}

/* Whether name is prefix + XXXXXX with six letters or digits, as mkdtemp makes them. */
static int scratch_is_name(const char *name, const char *prefix)
{
	const char *x = name + strlen(prefix);

	if (strncmp(name, prefix, strlen(prefix)) != 0 || strlen(x) != 6)
		return 0;
	for (; *x; x++)
		if (!((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z') ||
		      (*x >= '0' && *x <= '9')))
			return 0;
	return 1;
}

/* The owner file of the folder open at fd, if it is a small regular file of ours. */
static int scratch_read_owner(int fd, char *buf, size_t size)
{
	int of = openat(fd, SCRATCH_OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	ssize_t n = -1;

	if (of < 0)
		return -1;
	if (fstat(of, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
		n = read(of, buf, size - 1);
	close(of);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

size_t scratch_sweep(const char *root, const char *prefix)
{
	int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dup_fd;
	DIR *d;
	struct dirent *ent;
	size_t removed = 0;

	if (rfd < 0)
		return 0;
	if ((dup_fd = dup(rfd)) < 0 || !(d = fdopendir(dup_fd))) {
		if (dup_fd >= 0)
			close(dup_fd);
		close(rfd);
		return 0;
	}
	while ((ent = readdir(d))) {
		struct stat sb, fb;
		char owner[256];
		int fd;

		if (!scratch_is_name(ent->d_name, prefix) ||
		    fstatat(rfd, ent->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		fd = openat(rfd, ent->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* The folder opened is the one looked at, not one swapped in since. */
		if (fstat(fd, &fb) == 0 && fb.st_dev == sb.st_dev && fb.st_ino == sb.st_ino &&
		    scratch_read_owner(fd, owner, sizeof owner) == 0 && scratch_owner_gone(owner)) {
			scratch_clear(fd, fb.st_dev, 0);
			if (unlinkat(rfd, ent->d_name, AT_REMOVEDIR) == 0)
				removed++;
		}
		close(fd);
	}
	closedir(d);
	close(rfd);
	return removed;
}
