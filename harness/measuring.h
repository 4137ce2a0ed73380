/*
 * measuring.h — a session run under a progress line, and its outcome printed: what measure
 * does once its options are parsed, and what baseline pin and update and ratchet do to
 * measure; what sweep runs its (build, factor) session under.
 *
 * This is the cli layer: it prints each run's line on stdout and where the session is on
 * stderr (progress.h), and its errors as "gcratchet CMD: ...". No verb's file is called from
 * another: what two verbs share is here.
 */
#ifndef MEASURING_H
#define MEASURING_H

#include <stdint.h>

#include "session.h"

struct session_opts;
struct session_setup;

/*
 * How measuring_session shows the runs: each on a line of its own (measure, pin), or only the
 * runs that failed, went inert or warned, plus one line that overwrites itself on a terminal
 * (ratchet, whose verdict must fit on a screen).
 */
enum measuring_view { MEASURING_VIEW_RUNS, MEASURING_VIEW_QUIET };

/*
 * A verb's lines for the runs of a session: shown(ctx, p) says whether run p gets a line on
 * stdout (NULL: every run does), print(ctx, p) prints it. The status line on stderr is erased
 * before a line when stdout is the same terminal, and redrawn after every run.
 */
struct measuring_lines {
	int (*shown)(void *ctx, const struct session_progress *p);
	void (*print)(void *ctx, const struct session_progress *p);
	void *ctx;
};

/*
 * Runs the session s set up (session_opts.h) as s->plan says, showing its runs as `lines`
 * says (NULL: none on stdout, only the status line: ab, bisect). 0 with *outcome; -1 after printing why the harness failed ("gcratchet CMD: ...",
 * saying that the runs stored so far are kept when the session had begun), outcome's
 * session_id still set.
 */
int measuring_run(const char *cmd, struct session_setup *s, const struct measuring_lines *lines,
                  struct session_outcome *outcome);
/*
 * 1 once a session this process ran was interrupted after its last run (session.h,
 * late_interrupt): that session is complete, but the user asked to stop, so a verb that would
 * go on to measure more (pin's next sub-session, ratchet's minimum-heap search, bisect's next
 * step) stops there instead.
 */
int measuring_stop_asked(void);

/*
 * What measure does once its options are parsed, for baseline pin, update and ratchet too:
 * sets up the session o describes, runs it showing its runs as `view` says, and prints its
 * outcome. `command` is the command line recorded with the session. *session_id (when not
 * NULL) is the stored session, 0 when none was opened. Returns measure's exit status: 0,
 * 2 (a run failed, the session was interrupted, or it could not run), or 1 when a run that
 * was not ok halted it (o->halt_on_failure): the session stored is the answer (a bisect's
 * step is skipped on it), not a failure of the harness.
 */
int measuring_session(const char *cmd, const struct session_opts *o, const char *command,
                      enum measuring_view view, int64_t *session_id);

#endif /* MEASURING_H */
