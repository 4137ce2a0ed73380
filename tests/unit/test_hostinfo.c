/*
 * test_hostinfo.c — the THP condition a session records and check reads back (issue 31):
 * the option's values, the facts written and read again, facts from before the condition was
 * recorded, malformed facts refused naming the field, which conditions are comparable, and
 * the child that finds what a probe gets on this host.
 */
#include <stdlib.h>
#include <string.h>

#include "hostinfo.h"
#include "unit.h"
#include "util.h"

static struct hostinfo_thp thp(enum hostinfo_thp_condition c, const char *enabled,
                               const char *defrag)
{
	struct hostinfo_thp t;

	memset(&t, 0, sizeof t);
	t.requested = t.condition = c;
	snprintf(t.enabled, sizeof t.enabled, "%s", enabled);
	snprintf(t.defrag, sizeof t.defrag, "%s", defrag);
	return t;
}

static void test_parse(void)
{
	enum hostinfo_thp_condition c = HOSTINFO_THP_HOST;

	CHECK(hostinfo_thp_parse("off", &c) == 0 && c == HOSTINFO_THP_OFF);
	CHECK(hostinfo_thp_parse("host", &c) == 0 && c == HOSTINFO_THP_HOST);
	CHECK(hostinfo_thp_parse("on", &c) == -1 && c == HOSTINFO_THP_HOST);
	CHECK(hostinfo_thp_parse("", &c) == -1);
	CHECK_STR(hostinfo_thp_name(HOSTINFO_THP_OFF), "off");
	CHECK_STR(hostinfo_thp_name(HOSTINFO_THP_HOST), "host");
}

/* What session_facts writes (probe_thp inside the host's facts) reads back as it was. */
static void test_round_trip(void)
{
	struct hostinfo_thp t = thp(HOSTINFO_THP_HOST, "madvise", "defer+madvise"), back;
	struct err e = ERR_INIT;
	char *json, *facts, text[128];

	t.requested = HOSTINFO_THP_OFF;
	snprintf(t.why, sizeof t.why, "prctl(PR_SET_THP_DISABLE, 1): Invalid argument");
	json = hostinfo_thp_json(&t);
	CHECK_STR(json, "{\"condition\":\"host\",\"requested\":\"off\",\"enabled\":\"madvise\","
	                "\"defrag\":\"defer+madvise\",\"why\":\"prctl(PR_SET_THP_DISABLE, 1): "
	                "Invalid argument\"}");
	facts = xasprintf("{\"thp\":\"madvise\",\"jobs\":2,\"probe_thp\":%s}", json);
	CHECK(hostinfo_thp_from_facts(facts, &back, &e) == 0);
	CHECK(back.condition == HOSTINFO_THP_HOST && back.requested == HOSTINFO_THP_OFF);
	CHECK_STR(back.enabled, "madvise");
	CHECK_STR(back.defrag, "defer+madvise");
	CHECK_STR(back.why, t.why);
	CHECK(!back.legacy);
	hostinfo_thp_describe(&back, text, sizeof text);
	CHECK_STR(text, "host (enabled madvise, defrag defer+madvise)");
	free(facts);
	free(json);

	/* No why when the condition is the one asked for. */
	t = thp(HOSTINFO_THP_OFF, "always", "madvise");
	json = hostinfo_thp_json(&t);
	CHECK_STR(json, "{\"condition\":\"off\",\"requested\":\"off\",\"enabled\":\"always\","
	                "\"defrag\":\"madvise\"}");
	facts = xasprintf("{\"probe_thp\":%s}", json);
	CHECK(hostinfo_thp_from_facts(facts, &back, &e) == 0 && back.condition == HOSTINFO_THP_OFF);
	CHECK_STR(back.why, "");
	hostinfo_thp_describe(&back, text, sizeof text);
	CHECK_STR(text, "off");
	free(facts);
	free(json);
}

/* A session recorded before gcratchet set THP ran its probes as the host was configured. */
static void test_legacy(void)
{
	struct hostinfo_thp back;
	struct err e = ERR_INIT;

	CHECK(hostinfo_thp_from_facts("{\"thp\":\"always\",\"jobs\":1}", &back, &e) == 0);
	CHECK(back.legacy && back.condition == HOSTINFO_THP_HOST &&
	      back.requested == HOSTINFO_THP_HOST);
	CHECK_STR(back.enabled, "always");
	CHECK_STR(back.defrag, "unknown");
	CHECK(hostinfo_thp_from_facts("{}", &back, &e) == 0 && back.legacy);
	CHECK_STR(back.enabled, "unknown");
}

static void test_malformed(void)
{
	struct hostinfo_thp back;
	struct err e = ERR_INIT;

	CHECK(hostinfo_thp_from_facts(NULL, &back, &e) == -1);
	CHECK_STR(e.msg, "the session has no facts");
	CHECK(hostinfo_thp_from_facts("{\"probe_thp\":", &back, &e) == -1);
	CHECK(strstr(e.msg, "session facts:") == e.msg);
	CHECK(hostinfo_thp_from_facts("{\"probe_thp\":\"off\"}", &back, &e) == -1);
	CHECK_STR(e.msg, "session facts: probe_thp: must be an object");
	CHECK(hostinfo_thp_from_facts("{\"probe_thp\":{\"requested\":\"off\"}}", &back, &e) == -1);
	CHECK(strstr(e.msg, "probe_thp.condition") != NULL);
	CHECK(hostinfo_thp_from_facts(
	          "{\"probe_thp\":{\"condition\":\"on\",\"requested\":\"off\"}}", &back, &e) == -1);
	CHECK_STR(e.msg, "session facts: probe_thp.condition: must be off or host, got \"on\"");
	CHECK(hostinfo_thp_from_facts(
	          "{\"probe_thp\":{\"condition\":\"off\",\"requested\":\"off\",\"enabled\":3}}",
	          &back, &e) == -1);
	CHECK(strstr(e.msg, "probe_thp.enabled") != NULL);
	/* Two probe_thp keys: the strict reader refuses, never picks one. */
	CHECK(hostinfo_thp_from_facts(
	          "{\"probe_thp\":{\"condition\":\"off\",\"requested\":\"off\"},"
	          "\"probe_thp\":{\"condition\":\"host\",\"requested\":\"host\"}}",
	          &back, &e) == -1);
}

static void test_same(void)
{
	struct hostinfo_thp off = thp(HOSTINFO_THP_OFF, "madvise", "madvise");
	struct hostinfo_thp off_always = thp(HOSTINFO_THP_OFF, "always", "always");
	struct hostinfo_thp madv = thp(HOSTINFO_THP_HOST, "madvise", "madvise");
	struct hostinfo_thp madv_defer = thp(HOSTINFO_THP_HOST, "madvise", "defer");
	struct hostinfo_thp madv_old = thp(HOSTINFO_THP_HOST, "madvise", "unknown");
	struct hostinfo_thp always = thp(HOSTINFO_THP_HOST, "always", "madvise");
	struct hostinfo_thp never = thp(HOSTINFO_THP_HOST, "never", "madvise");

	/* Off is off whatever the host's modes. */
	CHECK(hostinfo_thp_same(&off, &off_always));
	CHECK(!hostinfo_thp_same(&off, &madv) && !hostinfo_thp_same(&madv, &off));
	CHECK(hostinfo_thp_same(&madv, &madv));
	CHECK(!hostinfo_thp_same(&madv, &always));
	CHECK(!hostinfo_thp_same(&madv, &madv_defer));
	/* Facts that do not know defrag: the enabled mode decides. */
	CHECK(hostinfo_thp_same(&madv, &madv_old) && hostinfo_thp_same(&madv_old, &madv_defer));
	/* A host that never gives huge pages is 4 KiB pages for every process, as off is. */
	CHECK(hostinfo_thp_same(&never, &off) && hostinfo_thp_same(&off, &never));
	CHECK(!hostinfo_thp_same(&never, &madv));
}

/* The child that does what the launcher does: the answer is one of the two, or says why not. */
static void test_try(void)
{
	struct hostinfo_thp t;
	enum hostinfo_thp_condition asked[] = {HOSTINFO_THP_OFF, HOSTINFO_THP_HOST};

	for (size_t i = 0; i < 2; i++) {
		hostinfo_thp_try(asked[i], &t);
		CHECK(t.requested == asked[i]);
		CHECK(t.condition == HOSTINFO_THP_OFF || t.condition == HOSTINFO_THP_HOST);
		CHECK(t.condition == t.requested || t.why[0] != '\0');
		CHECK(t.enabled[0] != '\0' && t.defrag[0] != '\0');
		printf("test_hostinfo: --thp %s gets %s here (enabled %s, defrag %s)%s%s\n",
		       hostinfo_thp_name(asked[i]), hostinfo_thp_name(t.condition), t.enabled,
		       t.defrag, t.why[0] ? ": " : "", t.why);
	}
}

/*
 * Host facts (issue 43): read from this host's own facts, each recorded; from an older
 * harness's, arch from the kernel's line and libc and page size not recorded; memory in GiB
 * rounded as the fingerprint rounds it; values of another type not recorded.
 */
static void test_facts(void)
{
	struct hostinfo h;
	struct hostinfo_facts a = {{0}}, b = {{0}};
	struct err e;
	char *json;

	hostinfo_read(&h);
	json = hostinfo_json(&h);
	CHECK(hostinfo_facts_from_json(json, &a, &e) == 0);
	for (int f = 0; f < HOSTINFO_NFACTS; f++)
		CHECK(a.value[f] != NULL);
	CHECK_STR(a.value[HOSTINFO_FACT_ARCH], h.arch);
	CHECK(strtol(a.value[HOSTINFO_FACT_PAGE_SIZE], NULL, 10) == h.page_size);
	CHECK(hostinfo_facts_differ(&a, &a) == 0 && hostinfo_facts_missing(&a, &a) == 0);
	free(json);

	CHECK(hostinfo_facts_from_json(
	          "{\"cpu_model\":\"AMD EPYC\",\"ncpu\":2,\"mem_total_bytes\":8345567232,"
	          "\"kernel\":\"Linux 6.1.0 x86_64\",\"libc\":7}",
	          &b, &e) == 0);
	CHECK_STR(b.value[HOSTINFO_FACT_ARCH], "x86_64");
	CHECK_STR(b.value[HOSTINFO_FACT_MEM_GIB], "8");
	CHECK_STR(b.value[HOSTINFO_FACT_NCPU], "2");
	CHECK(b.value[HOSTINFO_FACT_LIBC] == NULL && b.value[HOSTINFO_FACT_PAGE_SIZE] == NULL);
	CHECK(hostinfo_facts_missing(&a, &b) ==
	      (HOSTINFO_FACT_BIT(HOSTINFO_FACT_LIBC) | HOSTINFO_FACT_BIT(HOSTINFO_FACT_PAGE_SIZE)));
	CHECK(hostinfo_facts_missing(&b, &a) == 0);
	CHECK(hostinfo_facts_differ(&a, &b) & HOSTINFO_FACT_BIT(HOSTINFO_FACT_CPU_MODEL) ||
	      strcmp(a.value[HOSTINFO_FACT_CPU_MODEL], "AMD EPYC") == 0);
	CHECK(!(hostinfo_facts_differ(&a, &b) & HOSTINFO_FACT_BIT(HOSTINFO_FACT_LIBC)));
	hostinfo_facts_release(&b);
	CHECK(hostinfo_facts_from_json("not json", &b, &e) == -1);
	CHECK_STR(hostinfo_fact_key(HOSTINFO_FACT_CPU_MODEL), "cpu_model");
	CHECK(hostinfo_fact_is_count(HOSTINFO_FACT_MEM_GIB) &&
	      !hostinfo_fact_is_count(HOSTINFO_FACT_LIBC));
	hostinfo_facts_release(&a);
}

int main(void)
{
	test_facts();
	test_parse();
	test_round_trip();
	test_legacy();
	test_malformed();
	test_same();
	test_try();
	return unit_done("test_hostinfo");
}
