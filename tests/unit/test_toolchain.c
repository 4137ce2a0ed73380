/*
 * Toolchain records: the strict reader of a manifest's or baseline's "toolchain" object, and
 * the rule doctor uses for a valgrind that cannot read a build's debug info.
 */
#include <stdlib.h>

#include "toolchain.h"
#include "unit.h"

static int parse(const char *text, struct toolchain *t, struct err *e)
{
	return toolchain_from_manifest(text, "m.json", t, e);
}

static void test_parse(void)
{
	struct toolchain t;
	struct err e;

	CHECK(parse("{\"toolchain\": {\"cc\": \"clang\", \"cc_version\": \"Debian clang version "
	            "14.0.6\", \"compiler\": \"clang\", \"version\": \"14.0.6\", \"flags\": \"-O2 "
	            "-g\", \"valgrind\": \"valgrind-3.19.0\"}}",
	            &t, &e) == 0);
	CHECK(t.known && strcmp(t.compiler, "clang") == 0 && strcmp(t.cc, "clang") == 0);
	CHECK(t.valgrind && strcmp(t.valgrind, "valgrind-3.19.0") == 0);
	toolchain_set_valgrind_from_meters(&t, "rusage,valgrind:valgrind-3.22.0,census");
	CHECK_STR(t.valgrind, "valgrind-3.22.0");
	toolchain_release(&t);

	/* An old manifest: unknown, no error. valgrind null: none was installed. */
	CHECK(parse("{\"name\": \"x\"}", &t, &e) == 0 && !t.known);
	CHECK(parse("{\"toolchain\": {\"compiler\": \"gcc\", \"version\": \"12.2.0\", \"flags\": "
	            "\"-O2\", \"valgrind\": null}}",
	            &t, &e) == 0);
	CHECK(t.known && t.valgrind == NULL && t.cc == NULL);
	toolchain_release(&t);

	/* Strict: a wrong type or a missing field names the field. */
	CHECK(parse("{\"toolchain\": []}", &t, &e) == -1 && strstr(e.msg, "m.json: toolchain:"));
	CHECK(parse("{\"toolchain\": {\"compiler\": \"gcc\", \"version\": 12, \"flags\": \"\", "
	            "\"valgrind\": null}}",
	            &t, &e) == -1);
	CHECK(strstr(e.msg, "toolchain.version") != NULL);
	CHECK(parse("{\"toolchain\": {\"compiler\": \"gcc\", \"version\": \"12\", \"flags\": "
	            "\"\"}}",
	            &t, &e) == -1);
	CHECK(strstr(e.msg, "toolchain.valgrind") != NULL);
}

/* A known toolchain of owned copies; toolchain_release frees it. */
static void set(struct toolchain *t, const char *compiler, const char *version, const char *flags,
                const char *valgrind)
{
	toolchain_release(t);
	t->known = 1;
	t->compiler = xstrdup(compiler);
	t->version = xstrdup(version);
	t->flags = xstrdup(flags);
	t->valgrind = valgrind ? xstrdup(valgrind) : NULL;
}

static void test_dwarf(void)
{
	struct toolchain t = {0};
	char *why;

	set(&t, "clang", "14.0.6", "-std=c17 -O2 -g", NULL);
	why = toolchain_dwarf_unreadable(&t, "valgrind-3.19.0");
	CHECK(why && strstr(why, "clang 14.0.6 writes DWARF 5") && strstr(why, "valgrind 3.20"));
	free(why);
	CHECK(toolchain_dwarf_unreadable(&t, "valgrind-3.20.0") == NULL);
	set(&t, "clang", "14.0.6", "-std=c17 -O2 -g -gdwarf-4", NULL);
	CHECK(toolchain_dwarf_unreadable(&t, "valgrind-3.19.0") == NULL);
	/* gcc 12's DWARF 5 valgrind 3.19 reads (the shipped baselines were pinned so). */
	set(&t, "gcc", "12.2.0", "-std=c17 -O2 -g", NULL);
	CHECK(toolchain_dwarf_unreadable(&t, "valgrind-3.19.0") == NULL);
	why = toolchain_dwarf_unreadable(&t, "valgrind-3.16.1");
	CHECK(why != NULL);
	free(why);
	set(&t, "clang", "13.0.1", "-std=c17 -O2 -g", NULL);
	CHECK(toolchain_dwarf_unreadable(&t, "valgrind-3.19.0") == NULL);
	toolchain_release(&t);
	CHECK(toolchain_dwarf_unreadable(&t, "valgrind-3.19.0") == NULL);
}

static void test_mismatch(void)
{
	struct toolchain a = {0}, b = {0}, u = {0};
	char *why;

	set(&a, "gcc", "12.2.0", "-O2 -g", "valgrind-3.19.0");
	set(&b, "gcc", "12.2.0", "-O2 -g", "valgrind-3.19.0");
	CHECK(toolchain_mismatch(&a, &b) == NULL);
	set(&b, "gcc", "12.3.0", "-O2 -g", "valgrind-3.19.0"); /* a minor release: the same */
	CHECK(toolchain_mismatch(&a, &b) == NULL);
	set(&b, "gcc", "13.1.0", "-O2 -g", "valgrind-3.19.0");
	why = toolchain_mismatch(&b, &a);
	CHECK(why && strcmp(why, "built with gcc 13.1.0, the baseline with gcc 12.2.0") == 0);
	free(why);
	CHECK(toolchain_mismatch(&u, &a) == NULL && toolchain_mismatch(&a, &u) == NULL);
	CHECK(toolchain_version_major("valgrind-3.19.0") == 3);
	CHECK(toolchain_version_major("x") == -1);
	toolchain_release(&a);
	toolchain_release(&b);
}

int main(void)
{
	test_parse();
	test_dwarf();
	test_mismatch();
	return unit_done("test_toolchain");
}
