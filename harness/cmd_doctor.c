/* gcratchet doctor — can this host measure what a profile needs, and if not, what fixes it. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "buildinfo.h"
#include "cli.h"
#include "cmds.h"
#include "escape.h"
#include "hostinfo.h"
#include "meter_perf.h"
#include "meter_valgrind.h"
#include "metrics.h"
#include "quiet.h"

/* A quiet host for pinned_host: load below this share of the CPUs. */
#define DOCTOR_QUIET_LOAD_PER_CPU 0.25
#define DOCTOR_MIN_FREE_BYTES     (1ull << 30)
/* The calibration: 15 loops of 30 ms, about half a second, short enough for every doctor. */
#define DOCTOR_CALIBRATE_REPS     15
#define DOCTOR_CALIBRATE_MS       30
#define DOCTOR_BUSY_SHOWN         3

struct doctor {
	int missing; /* required checks that failed */
	FILE *out;   /* the lines: stdout, or stderr when --json - has stdout */
	cJSON *rows; /* --json: each check as it is printed; NULL: none */
};

/* What doctor takes. */
struct doctor_opts {
	const char *profile;
	const char *json; /* --json FILE, "-" for stdout; NULL: none */
};

/*
 * One line: "ok", "warn" (recorded, not required) or "MISSING" (required), then the fix; with
 * --json, the same as a row {state (lower case), check, detail, fix}.
 */
static void doctor_line(struct doctor *d, const char *state, const char *what, const char *detail,
                        const char *fix)
{
	int ok = strcmp(state, "ok") == 0, missing = strcmp(state, "MISSING") == 0;

	d->missing += missing;
	fprintf(d->out, "%-8s %-22s %s\n", state, what, detail);
	if (fix && *fix && !ok)
		fprintf(d->out, "%-8s %-22s fix: %s\n", "", "", fix);
	if (d->rows) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "state", ok ? "ok" : missing ? "missing" : "warn");
		cJSON_AddItemToObject(o, "check", escape_json_string(what));
		cJSON_AddItemToObject(o, "detail", escape_json_string(detail));
		cJSON_AddItemToObject(o, "fix",
		                      escape_json_string(fix && *fix && !ok ? fix : NULL));
		cJSON_AddItemToArray(d->rows, o);
	}
}

/*
 * Whether the installed valgrind can read the debug info of each shipped build: one it cannot
 * read fails every Ir run (valgrind "gives up"), which check can only call unjudged.
 */
static void doctor_debug_info(struct doctor *d, const char *root, const struct strlist *builds,
                              const char *valgrind)
{
	size_t unreadable = 0;
	char detail[512];

	for (size_t i = 0; i < builds->n; i++) {
		struct buildinfo b;
		struct err e;
		char *dir = xasprintf("%s/collectors/%s", root, builds->items[i]), *why;
		if (buildinfo_load(dir, &b, &e) != 0) {
			doctor_line(d, "warn", "debug info", e.msg, "make");
			free(dir);
			continue;
		}
		if ((why = toolchain_dwarf_unreadable(&b.toolchain, valgrind))) {
			snprintf(detail, sizeof detail, "%s: %s", b.name, why);
			doctor_line(
			    d, "MISSING", "debug info", detail,
			    "rebuild with -gdwarf-4 (make OPT='-O2 -g -gdwarf-4'; "
			    "collectors/build.mk adds it for clang unless DWARF_FLAGS is set), "
			    "or install valgrind >= 3.20");
			unreadable++;
			free(why);
		}
		buildinfo_release(&b);
		free(dir);
	}
	if (builds->n && !unreadable) {
		snprintf(detail, sizeof detail, "%s reads the debug info of every build", valgrind);
		doctor_line(d, "ok", "debug info", detail, NULL);
	}
}

/*
 * Whether time can be gated here, by a number: the spread of one fixed loop, run after run, set
 * against the profile's band for wall time. A band narrower than the host's own spread would
 * only measure the host; for a profile that gates time that is a MISSING line.
 */
static void doctor_calibration(struct doctor *d, const char *profile)
{
	const struct metric_info *wall = metrics_lookup("time.wall_ns");
	struct hostinfo_proc busy[DOCTOR_BUSY_SHOWN];
	struct quiet_calibration cal;
	enum metric_profile p;
	char detail[512], fix[512];
	size_t nbusy, len = 0;
	double band;
	int gated;

	metrics_profile_parse(profile, &p);
	gated = wall->band[p].gated;
	band = wall->band[p].pct;
	quiet_calibrate(DOCTOR_CALIBRATE_REPS, DOCTOR_CALIBRATE_MS, &cal);
	nbusy = hostinfo_busy(200, busy, DOCTOR_BUSY_SHOWN);
	snprintf(detail, sizeof detail,
	         "spread %.1f%% (p90 - p10 over %d loops of %.0f ms) %s %s band %g%%%s",
	         cal.spread_pct, cal.reps, cal.loop_ms, cal.spread_pct > band ? ">" : "<=", profile,
	         band,
	         !gated                  ? " (time is not gated on this profile)"
	         : cal.spread_pct > band ? ": too noisy to pin time"
	                                 : ": quiet enough to pin time");
	len = (size_t)snprintf(fix, sizeof fix, "%s",
	                       "stop other work, pin probes to an idle CPU (--cpu N), wait for a "
	                       "quiet host (--idle-below LOAD)");
	for (size_t i = 0; i < nbusy && len < sizeof fix; i++)
		len += (size_t)snprintf(fix + len, sizeof fix - len, "%s%s (pid %ld, %.0f%% CPU)",
		                        i ? ", " : "; busy now: ", busy[i].comm, busy[i].pid,
		                        busy[i].cpu_pct);
	doctor_line(d,
	            cal.spread_pct <= band ? "ok"
	            : gated                ? "MISSING"
	                                   : "warn",
	            "calibration", detail, fix);
}

/*
 * Transparent huge pages: the host's modes, what they would do to a probe's memory, and what
 * gcratchet does about it (docs/meters.md, "Transparent huge pages"): probes run with THP off
 * unless a session says --thp host. Where that cannot be had, sessions measure and record the
 * host's condition, and their memory cells meet only baselines pinned under it: a warning.
 */
static void doctor_thp(struct doctor *d)
{
	struct hostinfo_thp t;
	char detail[512];
	const char *what;

	hostinfo_thp_try(HOSTINFO_THP_OFF, &t);
	what = strcmp(t.enabled, "always") == 0
	           ? "any anonymous memory may get 2 MiB pages, so RSS moves in 2 MiB steps"
	       : strcmp(t.enabled, "madvise") == 0 ? "only memory a probe madvises gets 2 MiB pages"
	       : strcmp(t.enabled, "never") == 0   ? "no process gets 2 MiB pages"
	                                           : "no THP modes in /sys";
	if (t.condition == HOSTINFO_THP_OFF)
		snprintf(detail, sizeof detail,
		         "enabled %s, defrag %s (%s): probes run with THP off (prctl "
		         "PR_SET_THP_DISABLE works here); --thp host measures as configured",
		         t.enabled, t.defrag, what);
	else
		snprintf(detail, sizeof detail,
		         "enabled %s, defrag %s (%s): cannot turn THP off for probes here (%s): "
		         "sessions run and record --thp host, and their memory cells meet only "
		         "baselines pinned so",
		         t.enabled, t.defrag, what, t.why);
	doctor_line(d, t.condition == HOSTINFO_THP_OFF ? "ok" : "warn", "transparent hugepages",
	            detail,
	            "run gcratchet outside the seccomp filter that refuses "
	            "prctl(PR_SET_THP_DISABLE), on a kernel >= 3.15");
}

/* The host's facts doctor prints on its second line, as JSON. */
static cJSON *doctor_host_json(const struct hostinfo *h)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "hostname", escape_json_string(h->hostname));
	cJSON_AddItemToObject(o, "fingerprint", escape_json_string(h->fingerprint));
	cJSON_AddItemToObject(o, "cpu_model", escape_json_string(h->cpu_model));
	cJSON_AddNumberToObject(o, "cpus", (double)h->ncpu);
	cJSON_AddNumberToObject(o, "mem_total_bytes", (double)h->mem_total_bytes);
	return o;
}

/* --json: the profile, the host, every check and the verdict, written to path. */
static int doctor_json(const char *cmd, const char *path, const char *profile,
                       const struct hostinfo *h, struct doctor *d)
{
	cJSON *root = cJSON_CreateObject();
	char *printed, *text;
	struct err e;
	int rc = 0;

	cJSON_AddStringToObject(root, "format", "gcratchet-doctor");
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddStringToObject(root, "profile", profile);
	cJSON_AddItemToObject(root, "host", doctor_host_json(h));
	cJSON_AddItemToObject(root, "checks", d->rows);
	d->rows = NULL;
	cJSON_AddNumberToObject(root, "missing", d->missing);
	cJSON_AddBoolToObject(root, "can_measure", d->missing == 0);
	printed = cJSON_Print(root);
	text = xasprintf("%s\n", printed);
	if (write_file_atomic(path, text, strlen(text), &e) != 0)
		rc = cli_error(cmd, "%s", e.msg);
	cJSON_free(printed);
	free(text);
	cJSON_Delete(root);
	return rc;
}

static int doctor_main(int argc, char **argv)
{
	struct doctor_opts o = {"shared_ci", NULL};
	const char *profile;
	struct doctor d = {0, stdout, NULL};
	struct hostinfo h;
	struct meter_valgrind vg;
	struct meter_perf perf;
	struct strlist builds = {0};
	struct err e;
	char detail[512], *root = buildinfo_root(), *launcher = NULL;
	double load;
	int r, pinned, have_vg, have_perf = 0, rc = EXIT_UNJUDGED;

	if ((r = cli_parse(&cmd_doctor, argc, argv, &o, NULL)) != 0) {
		rc = r > 0 ? EXIT_OK : EXIT_UNJUDGED;
		goto out;
	}
	profile = o.profile;
	if (o.json) {
		d.rows = cJSON_CreateArray();
		/* --json -: stdout holds the JSON alone; the lines go to stderr. */
		if (write_file_is_stdout(o.json))
			d.out = stderr;
	}
	if (cli_check_profile(cmd_doctor.name, profile) != 0)
		goto out;
	pinned = strcmp(profile, "pinned_host") == 0;
	hostinfo_read(&h);
	load = hostinfo_load1();
	fprintf(d.out, "gcratchet doctor: can this host measure profile %s?\n", profile);
	fprintf(d.out, "host %s (%s), %s, %ld CPUs, %.1f GiB\n\n", h.hostname, h.fingerprint,
	        h.cpu_model, h.ncpu, (double)h.mem_total_bytes / (1 << 30));

	/* The harness itself. */
	launcher = xasprintf("%s/gcratchet-launch", root);
	buildinfo_list(root, &builds);
	snprintf(detail, sizeof detail, "%s", launcher);
	doctor_line(&d, access(launcher, X_OK) == 0 ? "ok" : "MISSING", "launcher", detail, "make");
	snprintf(detail, sizeof detail, "%zu collector builds under %s/collectors", builds.n, root);
	doctor_line(&d, builds.n ? "ok" : "MISSING", "builds", detail, builds.n ? NULL : "make");

	/* Instructions: a PMU, or valgrind's Ir. One is required for either profile. */
	have_vg = meter_valgrind_find(&vg, &e) == 0;
	if (meter_perf_setup(METER_PERF_DEFAULT_EVENTS, &perf, &e) == 0) {
		for (size_t i = 0; i < perf.n; i++) {
			char what[64];
			snprintf(what, sizeof what, "perf %s", perf.events[i].name);
			doctor_line(&d, perf.events[i].available ? "ok" : "warn", what,
			            perf.events[i].available ? perf.events[i].encoding
			                                     : perf.events[i].why,
			            NULL);
			have_perf |= perf.events[i].available &&
			             strncmp(perf.events[i].name, "instructions", 12) == 0;
		}
		meter_perf_release(&perf);
	} else {
		doctor_line(&d, "warn", "perf", e.msg, "apt-get install libpfm4");
	}
	snprintf(detail, sizeof detail, "%s", have_vg ? vg.version : "valgrind is not installed");
	doctor_line(&d,
	            have_vg     ? "ok"
	            : have_perf ? "warn"
	                        : "MISSING",
	            "valgrind Ir", detail, have_vg ? NULL : "apt-get install valgrind");
	if (have_vg)
		doctor_debug_info(&d, root, &builds, vg.version);
	if (!have_perf && !have_vg)
		doctor_line(&d, "MISSING", "instructions",
		            "no PMU and no valgrind: nothing can count instructions here",
		            "apt-get install valgrind");
	snprintf(detail, sizeof detail,
	         "%d (the perf meter counts user space of its own children at <= 2)",
	         h.perf_paranoid);
	doctor_line(&d, h.perf_paranoid <= 2 ? "ok" : "warn", "perf_event_paranoid", detail,
	            h.perf_paranoid <= 2 ? NULL : "sysctl -w kernel.perf_event_paranoid=2");

	/* Memory and load. */
	snprintf(detail, sizeof detail, "%.1f GiB available",
	         (double)h.mem_available_bytes / (1 << 30));
	doctor_line(&d, h.mem_available_bytes >= DOCTOR_MIN_FREE_BYTES ? "ok" : "MISSING",
	            "free memory", detail,
	            "stop what holds the memory; the large probes need several GiB");
	snprintf(detail, sizeof detail, "1-minute load %.2f on %ld CPUs", load, h.ncpu);
	if (pinned)
		doctor_line(&d,
		            load < DOCTOR_QUIET_LOAD_PER_CPU * (double)h.ncpu ? "ok" : "MISSING",
		            "load", detail,
		            "wait for the host to go quiet, or stop other work: time is gated on "
		            "this profile");
	else
		doctor_line(&d, load < (double)h.ncpu ? "ok" : "warn", "load", detail,
		            load < (double)h.ncpu
		                ? NULL
		                : "time figures will be noisy (shared_ci does not gate time)");

	/* Recorded with every session; pinned_host wants them steady. */
	snprintf(detail, sizeof detail, "%s", h.governor);
	doctor_line(&d,
	            !pinned || strcmp(h.governor, "performance") == 0 ||
	                    strcmp(h.governor, "none") == 0
	                ? "ok"
	                : "warn",
	            "cpu governor", detail,
	            pinned && strcmp(h.governor, "performance") && strcmp(h.governor, "none")
	                ? "cpupower frequency-set -g performance"
	                : NULL);
	doctor_thp(&d);
	snprintf(detail, sizeof detail, "%s", h.smt < 0 ? "unknown" : h.smt ? "on" : "off");
	doctor_line(&d, "ok", "smt", detail, NULL);
	snprintf(detail, sizeof detail, "randomize_va_space=%d (valgrind runs turn it off per run)",
	         h.aslr);
	doctor_line(&d, "ok", "aslr", detail, NULL);
	snprintf(detail, sizeof detail, "%s", h.compiler);
	doctor_line(&d, "ok", "compiler", detail, NULL);

	/* Calibration: how much this host spreads a fixed piece of work, right now. */
	doctor_calibration(&d, profile);

	fprintf(d.out, "\nverdict: %s %s be measured here%s\n", profile,
	        d.missing ? "cannot" : "can", d.missing ? " (fix the MISSING lines)" : "");
	fflush(d.out);
	rc = d.missing ? EXIT_UNJUDGED : EXIT_OK;
	if (o.json && doctor_json(cmd_doctor.name, o.json, profile, &h, &d) != 0)
		rc = EXIT_UNJUDGED;
	if (have_vg)
		meter_valgrind_release(&vg);
out:
	cJSON_Delete(d.rows);
	strlist_release(&builds);
	free(launcher);
	free(root);
	return rc;
}

#define DO(field) offsetof(struct doctor_opts, field)
static const struct cli_option doctor_options[] = {
    {"--profile", "shared_ci|pinned_host", CLI_STRING, DO(profile),
     .help = "the profile this host is checked against (default shared_ci)"},
    {"--json", "FILE", CLI_STRING, DO(json),
     .help = "every check with its state, detail and fix, and the verdict, as JSON (format "
             "gcratchet-doctor) written there (- for stdout; the lines then go to stderr)"},
    {0},
};
#undef DO

const struct cli_verb cmd_doctor = {
    .name = "doctor",
    .summary = "check this host against what a profile needs",
    .options = doctor_options,
    .run = doctor_main,
    .description =
        "Checks this host against what the profile needs: an instruction meter (a PMU through\n"
        "perf, or valgrind), perf_event_paranoid, free memory, load (pinned_host wants a quiet\n"
        "host), and records the CPU governor, transparent hugepages, SMT and ASLR. Every line "
        "that\n"
        "is not ok says the exact fix. --json FILE writes the same checks as JSON (format\n"
        "gcratchet-doctor).\n",
    .exit_status = "0 the profile can be measured here; 2 it cannot (see the MISSING lines).",
};
