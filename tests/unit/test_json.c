/* The strict JSON reader: what it accepts, and what it refuses with a line, column and path. */
#include <stdint.h>
#include <stdlib.h>

#include "json.h"
#include "unit.h"

/* Parses a NUL-terminated text; the message, when it fails, is left in e. */
static int parse(const char *text, struct err *e)
{
	cJSON *root;
	int rc = json_parse(text, strlen(text), "t.json", &root, e);

	if (rc == 0)
		cJSON_Delete(root);
	return rc;
}

static int refused_with(const char *text, const char *want)
{
	struct err e = ERR_INIT;
	int ok = parse(text, &e) != 0 && strstr(e.msg, want) != NULL;

	if (!ok)
		fprintf(stderr, "  %s -> %s\n", text, e.msg[0] ? e.msg : "(accepted)");
	return ok;
}

static void test_accepts(void)
{
	static const char *const good[] = {
	    "{}",
	    " [ ] \n",
	    "0",
	    "-0.5e-3",
	    "1E+2",
	    "\"\\u00e9\\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"",
	    "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
	    "{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}",
	    "{\"a\": 1, \"A\": 2, \"a \": 3}",
	    "true",
	    "null",
	    "{\"x\":[1,2,3]}\r\n\t ",
	};
	struct err e;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		int rc = parse(good[i], &e);
		CHECK(rc == 0);
		if (rc != 0)
			fprintf(stderr, "  %s -> %s\n", good[i], e.msg);
	}
}

static void test_refuses(void)
{
	/* The end of input: one value, then only whitespace. */
	CHECK(refused_with("{\"a\": 1} x", "t.json:1:10: not valid JSON: text after the end"));
	CHECK(refused_with("{\"a\": 1}\n{\"a\": 1}\n", "t.json:2:1: not valid JSON: text after"));
	CHECK(refused_with("", "t.json:1:1: not valid JSON: empty"));
	CHECK(refused_with("  \n ", "t.json:2:2: not valid JSON: empty"));

	/* Duplicate keys, at any depth, compared after unescaping. */
	CHECK(refused_with("{\"a\": 1, \"a\": 2}",
	                   "t.json:1:10: a: duplicate key (first at line 1, column 2)"));
	CHECK(refused_with("{\"rules\": {\n  \"valgrind.ir\": {},\n  \"valgrind.ir\": {}}}",
	                   "t.json:3:3: rules.\"valgrind.ir\": duplicate key (first at line 2"));
	CHECK(refused_with("{\"cells\": [{\"n\": 1}, {\"n\": 1, \"n\": 2}]}",
	                   "cells[1].n: duplicate key"));
	CHECK(refused_with("{\"a\": 1, \"\\u0061\": 2}", "a: duplicate key"));
	/* Of two pairs, the one whose second key comes first is named. */
	CHECK(refused_with("{\"b\": 1, \"a\": 1, \"a\": 2, \"b\": 2}", "1:18: a: duplicate key"));

	/* Syntax, with the place. */
	CHECK(refused_with("{\"a\": 1,}", "t.json:1:9: not valid JSON: expected a key"));
	CHECK(refused_with("{\"a\" 1}", "expected ':'"));
	CHECK(refused_with("[1 2]", "t.json:1:4: not valid JSON: expected ',' or ']'"));
	CHECK(refused_with("{\"a\": [1, }", "(in a[1])"));
	CHECK(refused_with("{\"a\": tru}", "expected a value"));
	CHECK(refused_with("{\"a\": \"x}", "string never ends"));
	CHECK(refused_with("\"a\tb\"", "control byte 0x09"));
	CHECK(refused_with("\"\\x\"", "unknown escape"));
	CHECK(refused_with("\"\\u12\"", "four hex digits"));
	CHECK(refused_with("{\"probe\\u0000x\": 1}", "may not hold a NUL"));
	CHECK(refused_with("\"\\udc00\"", "lone low surrogate"));
	CHECK(refused_with("\"\\ud800x\"", "high surrogate"));
	CHECK(refused_with("\"\xc3\"", "not UTF-8"));
	CHECK(refused_with("\"\xc0\xaf\"", "not UTF-8"));         /* overlong '/' */
	CHECK(refused_with("\"\xed\xa0\x80\"", "not UTF-8"));     /* an encoded surrogate */
	CHECK(refused_with("\"\xf4\x90\x80\x80\"", "not UTF-8")); /* beyond U+10FFFF */

	/* Numbers: RFC 8259's grammar, and finite as a double. */
	CHECK(refused_with("01", "text after the end"));
	CHECK(refused_with("+1", "expected a value"));
	CHECK(refused_with(".5", "expected a value"));
	CHECK(refused_with("1.", "digit after '.'"));
	CHECK(refused_with("1e", "digit in the exponent"));
	CHECK(refused_with("NaN", "expected a value"));
	CHECK(refused_with("[Infinity]", "expected a value"));
	CHECK(refused_with("1e400", "beyond the range of a double"));
	CHECK(refused_with("-1e400", "beyond the range of a double"));
	CHECK(refused_with("1000000000000000000000000000000000000000000000000000000000000000",
	                   "longer than 63"));

	/* A NUL byte inside the length is refused, not read as the end. */
	{
		struct err e;
		cJSON *root;
		CHECK(json_parse("{}\0{}", 5, "census", &root, &e) != 0);
		CHECK(strstr(e.msg, "census:1:3: not valid JSON: text after") != NULL);
		CHECK(root == NULL);
		/* And a text need not be NUL-terminated. */
		CHECK(json_parse("[1]]", 3, "census", &root, &e) == 0);
		cJSON_Delete(root);
	}

	/* Deep nesting is refused before cJSON's recursion. */
	{
		char deep[1200];
		cJSON *root;
		struct err e;
		memset(deep, '[', 600);
		memset(deep + 600, ']', 600);
		CHECK(json_parse(deep, sizeof deep, "t.json", &root, &e) != 0);
		CHECK(strstr(e.msg, "nested deeper than") != NULL);
	}
}

static void test_getters(void)
{
	static const char values[] = "{\"n\": 3, \"big\": 1e300, \"half\": 1.5, \"neg\": -1, "
	                             "\"max\": 9007199254740991, \"over\": 9007199254740992, "
	                             "\"s\": \"x\", \"t\": true}";
	cJSON *root;
	struct err e;
	int64_t i = 42;
	double d;
	int b;
	const char *s;

	CHECK(json_parse(values, strlen(values), "f.json", &root, &e) == 0);
	CHECK(json_int(cJSON_GetObjectItem(root, "n"), 1, JSON_INT_MAX, "f.json", "n", &i, &e) ==
	      0);
	CHECK(i == 3);
	/* Out of range: refused before conversion, *out untouched, the range named. */
	i = 42;
	CHECK(json_int(cJSON_GetObjectItem(root, "big"), 1, JSON_INT_MAX, "f.json", "big", &i,
	               &e) != 0);
	CHECK(i == 42);
	CHECK_STR(e.msg, "f.json: big: must be an integer from 1 to 2^53-1, got 1e+300");
	CHECK(json_int(cJSON_GetObjectItem(root, "half"), 0, 10, "f.json", "half", &i, &e) != 0);
	CHECK_STR(e.msg, "f.json: half: must be an integer from 0 to 10, got 1.5");
	CHECK(json_int(cJSON_GetObjectItem(root, "neg"), 0, 10, "f.json", "neg", &i, &e) != 0);
	CHECK(json_int(cJSON_GetObjectItem(root, "neg"), -1, 10, "f.json", "neg", &i, &e) == 0);
	CHECK(i == -1);
	CHECK(json_int(cJSON_GetObjectItem(root, "max"), 0, JSON_INT_MAX, "f.json", "max", &i,
	               &e) == 0);
	CHECK(i == JSON_INT_MAX);
	CHECK(json_int(cJSON_GetObjectItem(root, "over"), 0, JSON_INT_MAX, "f.json", "over", &i,
	               &e) != 0);
	CHECK_STR(e.msg, "f.json: over: must be a non-negative integer below 2^53, got "
	                 "9007199254740992");
	CHECK(json_int(cJSON_GetObjectItem(root, "s"), 0, 1, "f.json", "s", &i, &e) != 0);
	CHECK(strstr(e.msg, "f.json: s: must be an integer from 0 to 1, not a string") != NULL);
	CHECK(json_int(NULL, 0, 1, "f.json", "gone", &i, &e) != 0);
	CHECK(strstr(e.msg, "f.json: gone: is missing") != NULL);

	CHECK(json_number(cJSON_GetObjectItem(root, "half"), "f.json", "half", &d, &e) == 0);
	CHECK(d == 1.5);
	CHECK(json_number(cJSON_GetObjectItem(root, "t"), "f.json", "t", &d, &e) != 0);
	CHECK(strstr(e.msg, "must be a number, not a boolean") != NULL);
	CHECK(json_bool(cJSON_GetObjectItem(root, "t"), "f.json", "t", &b, &e) == 0 && b == 1);
	CHECK(json_bool(cJSON_GetObjectItem(root, "n"), "f.json", "n", &b, &e) != 0);
	CHECK(json_string(cJSON_GetObjectItem(root, "s"), "f.json", "s", &s, &e) == 0);
	CHECK_STR(s, "x");
	CHECK(json_string(cJSON_GetObjectItem(root, "n"), "f.json", "n", &s, &e) != 0);
	cJSON_Delete(root);
}

static void test_paths(void)
{
	char buf[128];

	json_path_key(buf, sizeof buf, "", "rules");
	CHECK_STR(buf, "rules");
	json_path_key(buf, sizeof buf, "rules", "valgrind.ir");
	CHECK_STR(buf, "rules.\"valgrind.ir\"");
	json_path_key(buf, sizeof buf, "probes", "01_nursery_churn");
	CHECK_STR(buf, "probes.\"01_nursery_churn\"");
	json_path_key(buf, sizeof buf, "x", "say \"hi\"");
	CHECK_STR(buf, "x.\"say \\\"hi\\\"\"");
	json_path_index(buf, sizeof buf, "cells", 3);
	CHECK_STR(buf, "cells[3]");
}

int main(void)
{
	test_accepts();
	test_refuses();
	test_getters();
	test_paths();
	return unit_done("test_json");
}
