#include "caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static const struct {
	unsigned flag;
	const char *name;
} caps_names[] = {
    {CAPS_COLLECTS, "collects"},         {CAPS_PRECISE, "precise"}, {CAPS_MOVING, "moving"},
    {CAPS_GENERATIONAL, "generational"}, {CAPS_BARRIER, "barrier"}, {CAPS_PAUSE_LOG, "pause_log"},
    {CAPS_CLOCK_PACED, "clock_paced"},
};
#define CAPS_N (sizeof caps_names / sizeof caps_names[0])

const unsigned caps_all[] = {CAPS_COLLECTS, CAPS_PRECISE,   CAPS_MOVING,      CAPS_GENERATIONAL,
                             CAPS_BARRIER,  CAPS_PAUSE_LOG, CAPS_CLOCK_PACED, 0};

const char *caps_flag_name(unsigned flag)
{
	for (size_t i = 0; i < CAPS_N; i++)
		if (caps_names[i].flag == flag)
			return caps_names[i].name;
	return NULL;
}

int caps_parse(const cJSON *v, const char *where, struct caps *out, char *first_unknown,
               size_t size, struct err *e)
{
	const cJSON *item;
	size_t i = 0;

	memset(out, 0, sizeof *out);
	if (first_unknown && size)
		first_unknown[0] = '\0';
	if (!cJSON_IsArray(v))
		return err_setc(e, ERR_INVALID, "%s: capabilities: must be an array of strings",
		                where);
	cJSON_ArrayForEach(item, v)
	{
		const char *s;
		char at[48];
		size_t k = 0;
		json_path_index(at, sizeof at, "capabilities", i++);
		if (json_string(item, where, at, &s, e) != 0)
			return -1;
		while (k < CAPS_N && strcmp(caps_names[k].name, s) != 0)
			k++;
		if (k < CAPS_N) {
			out->flags |= caps_names[k].flag;
		} else {
			if (out->unknown++ == 0 && first_unknown && size)
				snprintf(first_unknown, size, "%s", s);
		}
	}
	out->known = 1;
	return 0;
}

int caps_parse_text(const char *text, const char *where, struct caps *out, struct err *e)
{
	cJSON *root = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (!text)
		return 0;
	if (json_parse(text, strlen(text), where, &root, e) != 0)
		return -1;
	rc = caps_parse(root, where, out, NULL, 0, e);
	cJSON_Delete(root);
	return rc;
}

char *caps_json(const struct caps *c)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "[");
	for (size_t i = 0, n = 0; i < CAPS_N; i++)
		if (c->flags & caps_names[i].flag)
			sbuf_addf(&b, "%s\"%s\"", n++ ? ", " : "", caps_names[i].name);
	sbuf_addf(&b, "]");
	return b.data;
}

char *caps_describe(const struct caps *c)
{
	struct sbuf b;

	if (!c->known)
		return xstrdup("unknown");
	if (!c->flags)
		return xstrdup("none");
	sbuf_init(&b);
	for (size_t i = 0, n = 0; i < CAPS_N; i++)
		if (c->flags & caps_names[i].flag)
			sbuf_addf(&b, "%s%s", n++ ? ", " : "", caps_names[i].name);
	return b.data;
}

int caps_collects(const struct caps *c)
{
	return !c->known || (c->flags & CAPS_COLLECTS) != 0;
}

int caps_exact_retention(const struct caps *c)
{
	return c->known && ((c->flags & CAPS_PRECISE) || !(c->flags & CAPS_COLLECTS));
}

int caps_clock_paced(const struct caps *c)
{
	return c->known && (c->flags & CAPS_CLOCK_PACED) != 0;
}

int caps_census_varies(const struct caps *c)
{
	return c->known && ((c->flags & CAPS_CLOCK_PACED) ||
	                    ((c->flags & CAPS_COLLECTS) && !(c->flags & CAPS_PRECISE)));
}
