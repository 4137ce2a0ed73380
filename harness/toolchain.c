#include "toolchain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int toolchain_string(const cJSON *obj, const char *name, const char *key, int required,
                            char **out, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[64];
	const char *s;

	if (!v && !required)
		return 0;
	json_path_key(where, sizeof where, "toolchain", key);
	if (json_string(v, name, where, &s, e) != 0)
		return -1;
	*out = xstrdup(s);
	return 0;
}

int toolchain_parse(const cJSON *v, const char *name, struct toolchain *out, struct err *e)
{
	const cJSON *vg;

	memset(out, 0, sizeof *out);
	if (!v)
		return 0;
	if (!cJSON_IsObject(v)) {
		err_setc(e, ERR_INVALID,
		         "%s: toolchain: must be an object {compiler, version, flags, valgrind}",
		         name);
		return -1;
	}
	if (toolchain_string(v, name, "compiler", 1, &out->compiler, e) != 0 ||
	    toolchain_string(v, name, "version", 1, &out->version, e) != 0 ||
	    toolchain_string(v, name, "flags", 1, &out->flags, e) != 0 ||
	    toolchain_string(v, name, "cc", 0, &out->cc, e) != 0 ||
	    toolchain_string(v, name, "cc_version", 0, &out->cc_version, e) != 0)
		goto fail;
	/* null, not absent: a manifest says there was no valgrind, it does not forget to say. */
	vg = cJSON_GetObjectItemCaseSensitive(v, "valgrind");
	if (!cJSON_IsNull(vg) && toolchain_string(v, name, "valgrind", 1, &out->valgrind, e) != 0)
		goto fail;
	out->known = 1;
	return 0;
fail:
	toolchain_release(out);
	return -1;
}

int toolchain_from_manifest(const char *text, const char *name, struct toolchain *out,
                            struct err *e)
{
	cJSON *root = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (json_parse(text, strlen(text), name, &root, e) != 0)
		return -1;
	if (!cJSON_IsObject(root))
		err_setc(e, ERR_INVALID, "%s: must be a JSON object", name);
	else
		rc = toolchain_parse(cJSON_GetObjectItemCaseSensitive(root, "toolchain"), name, out,
		                     e);
	cJSON_Delete(root);
	return rc;
}

static char *toolchain_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void toolchain_copy(struct toolchain *dst, const struct toolchain *src)
{
	dst->known = src->known;
	dst->cc = toolchain_dup(src->cc);
	dst->cc_version = toolchain_dup(src->cc_version);
	dst->compiler = toolchain_dup(src->compiler);
	dst->version = toolchain_dup(src->version);
	dst->flags = toolchain_dup(src->flags);
	dst->valgrind = toolchain_dup(src->valgrind);
}

void toolchain_release(struct toolchain *t)
{
	free(t->cc);
	free(t->cc_version);
	free(t->compiler);
	free(t->version);
	free(t->flags);
	free(t->valgrind);
	memset(t, 0, sizeof *t);
}

void toolchain_set_valgrind_from_meters(struct toolchain *t, const char *meters)
{
	const char *at = meters ? strstr(meters, "valgrind:") : NULL;

	if (!t->known || !at)
		return;
	at += strlen("valgrind:");
	free(t->valgrind);
	t->valgrind = xasprintf("%.*s", (int)strcspn(at, ","), at);
}

int toolchain_version_major(const char *version)
{
	const char *p = version;

	while (p && *p && (*p < '0' || *p > '9'))
		p++;
	return p && *p ? atoi(p) : -1;
}

/* valgrind-MAJOR.MINOR as MAJOR * 100 + MINOR; -1 when it is not one. */
static int toolchain_valgrind_number(const char *v)
{
	int major, minor;

	if (!v || sscanf(v, "valgrind-%d.%d", &major, &minor) != 2)
		return -1;
	return major * 100 + minor;
}

char *toolchain_mismatch(const struct toolchain *now, const struct toolchain *then)
{
	struct sbuf b;
	const char *sep = "";

	if (!now->known || !then->known)
		return NULL;
	sbuf_init(&b);
	if (strcmp(now->compiler, then->compiler) != 0 ||
	    toolchain_version_major(now->version) != toolchain_version_major(then->version)) {
		sbuf_addf(&b, "built with %s %s, the baseline with %s %s", now->compiler,
		          now->version, then->compiler, then->version);
		sep = "; ";
	}
	if (strcmp(now->flags, then->flags) != 0) {
		sbuf_addf(&b, "%sbuilt with flags \"%s\", the baseline with \"%s\"", sep,
		          now->flags, then->flags);
		sep = "; ";
	}
	if (strcmp(now->valgrind ? now->valgrind : "", then->valgrind ? then->valgrind : "") != 0)
		sbuf_addf(&b, "%smeasured with %s, the baseline with %s", sep,
		          now->valgrind ? now->valgrind : "no valgrind",
		          then->valgrind ? then->valgrind : "no valgrind");
	if (b.len == 0) {
		sbuf_release(&b);
		return NULL;
	}
	return b.data;
}

char *toolchain_dwarf_unreadable(const struct toolchain *t, const char *valgrind_version)
{
	int vg = toolchain_valgrind_number(valgrind_version), major, reads;

	if (!t->known || vg < 0 || strstr(t->flags, "-gdwarf-2") || strstr(t->flags, "-gdwarf-3") ||
	    strstr(t->flags, "-gdwarf-4"))
		return NULL;
	major = toolchain_version_major(t->version);
	if (strcmp(t->compiler, "clang") == 0 && major >= 14)
		reads = 320;
	else if (strcmp(t->compiler, "gcc") == 0 && major >= 11)
		reads = 317;
	else
		return NULL;
	if (vg >= reads)
		return NULL;
	return xasprintf("%s %s writes DWARF 5, which %s cannot read (it needs valgrind %d.%d): "
	                 "every Ir run of the build fails",
	                 t->compiler, t->version, valgrind_version, reads / 100, reads % 100);
}
