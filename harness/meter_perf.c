#include "meter_perf.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int meter_perf_pfm_ready(struct err *e)
{
	static int state; /* 0 not tried, 1 ready, -1 failed */
	static int code;

	if (state == 0) {
		code = pfm_initialize();
		state = code == PFM_SUCCESS ? 1 : -1;
	}
	if (state < 0)
		return err_set(e, "libpfm4 could not initialise: %s", pfm_strerror(code));
	return 0;
}

/* Why an event cannot be opened here, in words a user can act on. */
static char *meter_perf_why(const struct perf_event_attr *a, int err)
{
	const char *what = strerror(err);

	if ((err == ENOENT || err == EOPNOTSUPP || err == ENODEV) &&
	    (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	     a->type >= PERF_TYPE_MAX))
		return xasprintf("no hardware PMU on this host (perf_event_open: %s); use the "
		                 "valgrind meter for instruction counts",
		                 what);
	if (err == EACCES || err == EPERM)
		return xasprintf("not permitted (perf_event_open: %s); lower "
		                 "/proc/sys/kernel/perf_event_paranoid (see gcratchet doctor)",
		                 what);
	return xasprintf("perf_event_open: %s", what);
}

int meter_perf_setup(const char *events, struct meter_perf *m, struct err *e)
{
	struct strlist names = {0};
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (meter_perf_pfm_ready(e) != 0)
		return -1;
	strlist_split(&names, events);
	if (names.n == 0) {
		err_setc(e, ERR_INVALID, "--events names no event");
		goto out;
	}
	if (names.n > METER_PERF_MAX_EVENTS) {
		err_setc(e, ERR_INVALID,
		         "--events names %zu events; at most %d are counted at once", names.n,
		         METER_PERF_MAX_EVENTS);
		goto out;
	}
	m->events = xcalloc(names.n, sizeof *m->events);
	for (size_t i = 0; i < names.n; i++) {
		struct meter_perf_event *ev = &m->events[m->n++];
		pfm_perf_encode_arg_t arg;
		char *fstr = NULL;
		int r, fd;

		ev->name = xstrdup(names.items[i]);
		memset(&arg, 0, sizeof arg);
		arg.attr = &ev->attr;
		arg.fstr = &fstr;
		arg.size = sizeof arg;
		r = pfm_get_os_event_encoding(ev->name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		if (r != PFM_SUCCESS) {
			err_setc(e, ERR_INVALID,
			         "event \"%s\" cannot be encoded by libpfm4 (%s); gcratchet doctor "
			         "lists what this host has",
			         ev->name, pfm_strerror(r));
			free(fstr);
			goto out;
		}
		ev->encoding = xstrdup(fstr ? fstr : ev->name);
		free(fstr);
		ev->attr.size = sizeof ev->attr;
		ev->attr.disabled = 1;
		ev->attr.enable_on_exec = 1;
		ev->attr.inherit = 1;
		ev->attr.read_format =
		    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* Opening it on ourselves, disabled, tells whether this host can count it at all. */
		fd = (int)syscall(SYS_perf_event_open, &ev->attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			ev->available = 1;
			close(fd);
		} else {
			ev->why = meter_perf_why(&ev->attr, errno);
		}
	}
	rc = 0;
out:
	strlist_release(&names);
	if (rc != 0)
		meter_perf_release(m);
	return rc;
}

void meter_perf_release(struct meter_perf *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->events[i].name);
		free(m->events[i].encoding);
		free(m->events[i].why);
	}
	free(m->events);
	memset(m, 0, sizeof *m);
}

size_t meter_perf_available(const struct meter_perf *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += m->events[i].available != 0;
	return n;
}

double meter_perf_scale(unsigned long long value, unsigned long long enabled,
                        unsigned long long running, double *scale)
{
	if (running == 0 || enabled == 0) {
		/* Never scheduled: there is no count to scale, and saying 0 would be a fake zero. */
		*scale = 0;
		return 0;
	}
	*scale = (double)running / (double)enabled;
	if (running >= enabled)
		return (double)value;
	return (double)value * ((double)enabled / (double)running);
}
