/*
 * test_caps.c — a build's capabilities as the rules read them: every protocol name round-trips
 * through parse, json and describe; an unknown name is counted (the first one kept for the
 * warning) and sets no flag; a non-array or a non-string is refused naming where; and the
 * rules (exact retention, census varies, collects, clock paced) for the builds the docs name:
 * a precise collector, epsilon (collects nothing), a conservative one, a clock-paced runtime,
 * and a build that never said.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "caps.h"
#include "unit.h"

static struct caps parse(const char *text)
{
	struct caps c;
	struct err e = ERR_INIT;

	CHECK(caps_parse_text(text, "test", &c, &e) == 0);
	return c;
}

static void test_names(void)
{
	size_t n = 0;
	unsigned all = 0;

	for (const unsigned *f = caps_all; *f; f++, n++) {
		const char *name = caps_flag_name(*f);
		struct caps c;
		char *text, *json;
		CHECK(name != NULL);
		if (!name)
			continue;
		CHECK((all & *f) == 0); /* each flag once */
		all |= *f;
		text = xasprintf("[\"%s\"]", name);
		c = parse(text);
		CHECK(c.known && c.flags == *f && c.unknown == 0);
		json = caps_json(&c);
		CHECK_STR(json, text);
		free(json);
		json = caps_describe(&c);
		CHECK_STR(json, name);
		free(json);
		free(text);
	}
	CHECK(n == 7);
	CHECK_STR(caps_flag_name(CAPS_CLOCK_PACED), "clock_paced");
	CHECK(caps_flag_name(CAPS_COLLECTS | CAPS_PRECISE) == NULL);
	CHECK(caps_flag_name(0) == NULL);
}

static void test_parse(void)
{
	struct caps c;
	struct err e = ERR_INIT;
	char first[32];
	char *s;
	cJSON *v;

	/* Order and repeats do not matter; json writes the protocol's order. */
	c = parse("[\"precise\", \"collects\", \"precise\", \"generational\"]");
	CHECK(c.known && c.flags == (CAPS_COLLECTS | CAPS_PRECISE | CAPS_GENERATIONAL));
	s = caps_json(&c);
	CHECK_STR(s, "[\"collects\", \"precise\", \"generational\"]");
	free(s);
	s = caps_describe(&c);
	CHECK_STR(s, "collects, precise, generational");
	free(s);

	/* Unknown names: counted, the first kept, no flag from them. */
	v = cJSON_Parse("[\"collects\", \"telepathic\", \"psychic\"]");
	CHECK(caps_parse(v, "m.json", &c, first, sizeof first, &e) == 0);
	CHECK(c.known && c.flags == CAPS_COLLECTS && c.unknown == 2);
	CHECK_STR(first, "telepathic");
	cJSON_Delete(v);

	/* An empty list is known and says "none"; no text is unknown. */
	c = parse("[]");
	CHECK(c.known && c.flags == 0);
	s = caps_describe(&c);
	CHECK_STR(s, "none");
	free(s);
	CHECK(caps_parse_text(NULL, "test", &c, &e) == 0);
	CHECK(!c.known && c.flags == 0);
	s = caps_describe(&c);
	CHECK_STR(s, "unknown");
	free(s);

	/* Not an array, or not strings: refused, naming where. */
	e = (struct err)ERR_INIT;
	CHECK(caps_parse_text("{\"collects\":true}", "the census of 01", &c, &e) != 0);
	CHECK(e.code == ERR_INVALID);
	CHECK(strstr(e.msg, "the census of 01: capabilities: must be an array of strings") != NULL);
	e = (struct err)ERR_INIT;
	CHECK(caps_parse_text("[\"collects\", 7]", "m.json", &c, &e) != 0);
	CHECK(strstr(e.msg, "m.json") != NULL && strstr(e.msg, "capabilities[1]") != NULL);
	e = (struct err)ERR_INIT;
	CHECK(caps_parse_text("[\"collects\"", "m.json", &c, &e) != 0);
	CHECK(strstr(e.msg, "m.json") != NULL);
}

static void test_rules(void)
{
	struct caps c;

	/* A precise generational collector (gen): exact retention, a census that repeats. */
	c = parse("[\"collects\", \"precise\", \"moving\", \"generational\", \"barrier\"]");
	CHECK(caps_collects(&c) && caps_exact_retention(&c));
	CHECK(!caps_census_varies(&c) && !caps_clock_paced(&c));
	/* epsilon: collects nothing, so it keeps what the probe kept: exact. */
	c = parse("[]");
	CHECK(!caps_collects(&c) && caps_exact_retention(&c) && !caps_census_varies(&c));
	/* A conservative collector (bdwgc): a stale word keeps a different set alive. */
	c = parse("[\"collects\"]");
	CHECK(caps_collects(&c) && !caps_exact_retention(&c) && caps_census_varies(&c));
	/* A clock-paced precise runtime: its counters vary though it is precise. */
	c = parse("[\"collects\", \"precise\", \"clock_paced\"]");
	CHECK(caps_clock_paced(&c) && caps_exact_retention(&c) && caps_census_varies(&c));
	/* A build that never said: the least it could be, collecting and not precise, but judged
	 * by what its runs measured, not taken to vary. */
	memset(&c, 0, sizeof c);
	CHECK(caps_collects(&c) && !caps_exact_retention(&c));
	CHECK(!caps_census_varies(&c) && !caps_clock_paced(&c));
}

int main(void)
{
	test_names();
	test_parse();
	test_rules();
	return unit_done("test_caps");
}
