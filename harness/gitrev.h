/*
 * gitrev.h — the few questions gcratchet asks git about a repository's history: a revision's
 * full commit hash, a commit's subject, and any other `git -C REPO ...` whose answer is one
 * line or a list. Core: git runs with its stderr silenced, and nothing here prints or exits;
 * what git said is data for the caller (bisect's engine, the queue's bisect jobs).
 */
#ifndef GITREV_H
#define GITREV_H

#include "util.h"

/*
 * git -C REPO ARGS... (a NULL-terminated list of up to 12 arguments) with its stdout in *out
 * (initialised by the caller; trailing newlines trimmed). Returns git's exit status, negative
 * when it could not run.
 */
int gitrev_run(const char *repo, struct sbuf *out, ...) __attribute__((sentinel));
/*
 * REV as a full commit hash of the repository in `repo` (git rev-parse --verify REV^{commit}),
 * for bisect and for a bisect the queue takes. 0 with out set, -1 when REV names no commit
 * there (or git cannot tell).
 */
int gitrev_commit_hash(const char *repo, const char *rev, struct sbuf *out);
/* The subject of commit `hash`, newly allocated; "" when git cannot say. */
char *gitrev_subject(const char *repo, const char *hash);

#endif /* GITREV_H */
