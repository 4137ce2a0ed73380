/*
 * progress.h — how far a session is, and how long the rest of it will take.
 *
 * A struct progress learns the session's schedule from its plan (so many timed runs and
 * valgrind runs of each probe on each arm) and the wall time of each run as it is reported
 * (session_progress.elapsed_ns). The time left is a sum over the runs not reported yet: each
 * is expected to take the median wall time of the finished runs most like it, the first of
 * these that has any:
 *   1. the same probe, arm and kind (timed or valgrind);
 *   2. the same probe and kind, on any arm;
 *   3. the same kind;
 *   4. any run: for a valgrind run, a timed median times PROGRESS_VALGRIND_GUESS, since a
 *      probe under cachegrind takes tens of times as long as it does alone.
 * Medians, not means: one run slowed by a disturbance should not move the estimate. The
 * valgrind runs go plan->jobs at once, so their share of the time left is divided by jobs (or
 * by the number of them left, when that is fewer).
 *
 * The estimate only computes and formats. struct progress_display below writes the status
 * line to a stream the caller gives (stderr: stdout is kept for a command's result), redrawn
 * in place on a terminal and otherwise as plain lines no more often than every
 * PROGRESS_PLAIN_EVERY_S, so a log gets a handful of lines, not one per run. Not thread-safe:
 * feed both from the thread session_run reports on.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"

/* Until a valgrind run has finished, one is guessed to take this many times a timed run. */
#define PROGRESS_VALGRIND_GUESS 40

/* Clears the rest of a terminal line (ANSI "erase in line"): "\r" LINE PROGRESS_CLEAR_EOL
 * rewrites a progress line in place, however long the line it replaces was. */
#define PROGRESS_CLEAR_EOL "\033[K"

struct progress;

/*
 * An estimator for the session `plan` will run: its probes, arms, rounds and warm-ups, --two-n
 * (two runs per cell), whether valgrind runs, and jobs. Borrows nothing from plan after it
 * returns. Free with progress_free.
 */
struct progress *progress_new(const struct session_plan *plan);
void progress_free(struct progress *pr); /* NULL is fine */

/*
 * Records a finished run: probe, arm (index into plan->arms), valgrind or timed, and how long
 * it took. A probe or arm the plan does not have is counted in the fallbacks only.
 */
void progress_add(struct progress *pr, const char *probe, size_t arm, int valgrind,
                  int64_t wall_ns);
/* Records the run a session_progress report is about (its arm must be one of plan->arms). */
void progress_report(struct progress *pr, const struct session_progress *p);

/*
 * The time the runs not yet recorded should take, in ns: 0 when none is left, -1 when no run
 * has finished yet (there is nothing to estimate from).
 */
int64_t progress_left_ns(const struct progress *pr);

/* A duration for people, rounded to the second: "7s", "1m05s", "2h03m" (hours round down
 * the seconds away). A negative one is "?". */
void progress_format_duration(int64_t ns, char *buf, size_t size);

/* "~1m05s left" ("<1s left" below half a second) for the runs not yet recorded, or "" when
 * progress_left_ns is -1 or 0. */
void progress_left_text(const struct progress *pr, char *buf, size_t size);
/*
 * "round 2/5", "warm-up 1/1" or "valgrind": where a progress report is in the schedule; for
 * a run the session added to its plan, "again 1" (a timed round after the planned ones),
 * "valgrind again" (Ir did not repeat) or "confirming" (a figure past its allowance).
 */
void progress_where(const struct session_progress *p, char *buf, size_t size);
/*
 * How far the session is: "[ 12/84]" for a run of the plan, whose total never changes, and
 * "[ 84/84] + [  3/26]" for one of a batch added to it, counted apart (session.h).
 */
void progress_counter(const struct session_progress *p, char *buf, size_t size);

/*
 * A one-line status, "[ 12/84] round 2/5  05_binary_trees on epsilon  ~35s left", after the
 * report `p` (already given to progress_report): its count, where in the schedule it is, its
 * probe and arm, its status when not ok ("  crashed"), and the time left, cut to
 * `width` columns (0: no limit) so that it never wraps, which would stop "\r" from rewriting
 * it. To show it in place on a terminal, write "\r", the line and PROGRESS_CLEAR_EOL; when the
 * session ends, "\r" PROGRESS_CLEAR_EOL clears it.
 */
void progress_status_line(const struct progress *pr, const struct session_progress *p, int width,
                          char *buf, size_t size);
/* The same without the time left (with_left 0): an interrupted session has no "rest" to time. */
void progress_status_text(const struct progress *pr, const struct session_progress *p,
                          int with_left, int width, char *buf, size_t size);

/* The width of the terminal on descriptor fd, in columns; 0 when fd is not one or says none. */
int progress_term_width(int fd);

/*
 * 1 when descriptor fd is a terminal that may be redrawn on: a tty, NO_COLOR unset or empty
 * (https://no-color.org: no control sequences at all), and TERM not "dumb".
 */
int progress_redraw_ok(int fd);

/* A plain (not redrawn) progress line is written at most this often, besides the first and last. */
#define PROGRESS_PLAIN_EVERY_S 5

/*
 * Where and how the status line of a session is shown. `out` is the stream (stderr), `fd` its
 * descriptor; `cmd` names the verb in plain lines ("gcratchet measure: [ 3/40] ..."); `stop`,
 * when not NULL, is the session's interrupt count (plan->stop): once it is set the line
 * carries no time left. Borrows cmd and stop for as long as it is used.
 */
struct progress_display {
	FILE *out;
	const char *cmd;
	volatile sig_atomic_t *stop;
	int redraw;      /* progress_redraw_ok(fd) */
	int width;       /* the terminal's columns when redrawing, else 0 */
	int shown;       /* a redrawn line is on the terminal now */
	int64_t last_ns; /* when the last plain line was written; 0: none yet */
};
void progress_display_init(struct progress_display *d, const char *cmd, FILE *out, int fd,
                           volatile sig_atomic_t *stop);
/*
 * Shows where the session is after report p (already given to progress_report): redrawn on a
 * terminal; otherwise a plain line for the first run, the last (of the plan, and of each
 * batch added to it), and any run PROGRESS_PLAIN_EVERY_S or more after the last line written.
 */
void progress_display_update(struct progress_display *d, const struct progress *pr,
                             const struct session_progress *p);
/*
 * Shows a status line the caller composed (made safe here), for work that is not a session's
 * runs (the minimum-heap search): redrawn on a terminal, cut to its width; otherwise a plain
 * line "gcratchet CMD: TEXT" when `force` is set or PROGRESS_PLAIN_EVERY_S after the last.
 */
void progress_display_text(struct progress_display *d, const char *text, int force);
/*
 * Erases a redrawn line, before anything that stays is written to the terminal (on either
 * stream: stdout and stderr are often the same terminal). Nothing when none is shown.
 */
void progress_display_clear(struct progress_display *d);

#endif /* PROGRESS_H */
