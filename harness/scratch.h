/*
 * scratch.h — the private scratch folders probes run in (SCRATCH_ROOT/gcratchet.XXXXXX) and
 * queue workers run jobs in (--scratch/gcratchet-worker.XXXXXX), and the sweep of those a
 * process that is gone left behind. A worker's folder is the worker's: its owner file names
 * the worker, whose verb dies with it (cmd_worker.c).
 *
 * A scratch folder is a run's working directory: it holds the probe links, valgrind's output
 * files and whatever a probe leaves there (a JVM once left its hs_err_pid*.log). A session
 * removes its folders when it ends, unless a probe left something in one; a session that is
 * killed (SIGKILL, a crash of the harness, a reboot) removes nothing. So each folder records
 * who made it in SCRATCH_OWNER_FILE: the pid, the process's start time since boot and the
 * boot's id. A later session's sweep removes every folder whose maker is gone, and only
 * those.
 *
 * Invariants of the sweep: it removes only a folder of its root named PREFIX + XXXXXX (six
 * letters or digits, as mkdtemp makes; PREFIX one of the two below), that is a real folder
 * (not a link) owned by the effective user, holding an owner file of ours that names a
 * process that no longer runs (its pid is gone, or now another process's, or of another
 * boot). A folder with no owner file (an older harness's, or one being made) is left alone.
 * Removal never follows a link: a link in the folder is unlinked, a folder descended into
 * only as itself (O_NOFOLLOW, on the same file system), so nothing outside the folder is
 * touched.
 */
#ifndef SCRATCH_H
#define SCRATCH_H

#include <stddef.h>

#include "util.h"

/* Fixed, whatever TMPDIR says: a probe's path has the same length everywhere (session.c). */
#define SCRATCH_ROOT          "/tmp"
#define SCRATCH_OWNER_FILE    ".gcratchet-owner"
/* The two kinds of folder: a session's (probes run there) and a queue worker's (a job's). */
#define SCRATCH_PREFIX        "gcratchet."
#define SCRATCH_WORKER_PREFIX "gcratchet-worker."

/*
 * The root sessions make their scratch folders in and sweep: SCRATCH_ROOT, or the absolute
 * path in $GCR_SCRATCH_ROOT when that is set and not empty. A root of its own keeps sessions
 * apart that must not sweep each other's folders (the suite's test of the sweep, beside other
 * sessions on the host); its path's length is not /tmp's, so a probe's path, and with it its
 * Ir, differs a little from a session's under /tmp. A relative path is an error, naming the
 * variable. *root is static or the environment's; never freed.
 */
int scratch_root(const char **root, struct err *e);

/*
 * Makes root/PREFIXXXXXXX (mode 0700; prefix SCRATCH_PREFIX or SCRATCH_WORKER_PREFIX) with its
 * owner file; *out is its path, newly allocated. On failure (the root missing, the disk full:
 * the owner file cannot be written) nothing is left and *out is NULL.
 */
int scratch_create(const char *root, const char *prefix, char **out, struct err *e);

/*
 * Removes what the session put in dir (the links named by `links`, which may be NULL) and the
 * folder with its owner file when nothing else is there. A folder a probe left something in
 * stays, owner file and all, for the sweep once this process is gone.
 */
void scratch_remove(const char *dir, const struct strlist *links);

/*
 * Removes the scratch folders named prefix + XXXXXX under root whose maker is gone (see the
 * invariants above). Best effort: what cannot be read or removed stays. Returns how many
 * folders went.
 */
size_t scratch_sweep(const char *root, const char *prefix);

#endif /* SCRATCH_H */
