/*
 * The escaper of each format on hostile text: markup, table pipes, backticks, control
 * characters and bytes that are not UTF-8, as a probe's stderr may hold them.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "escape.h"
#include "unit.h"

#define FFFD ESCAPE_REPLACEMENT

typedef void (*escaper)(struct sbuf *b, const char *s);

/* 1 when escaping `in` gives exactly `want`; prints what it gave otherwise. */
static int escapes_to(escaper fn, const char *in, const char *want)
{
	struct sbuf b;
	int same;

	sbuf_init(&b);
	fn(&b, in);
	same = strcmp(b.data, want) == 0;
	if (!same)
		fprintf(stderr, "escaped \"%s\" to \"%s\", expected \"%s\"\n", in, b.data, want);
	sbuf_release(&b);
	return same;
}

static void test_utf8(void)
{
	/* Well-formed text of every length passes untouched. */
	CHECK(escapes_to(escape_utf8, "plain", "plain"));
	CHECK(escapes_to(escape_utf8, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9b",
	                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9b"));
	CHECK(escapes_to(escape_utf8, NULL, ""));
	/* Stray bytes, one replacement each. */
	CHECK(escapes_to(escape_utf8, "a\377\376b", "a" FFFD FFFD "b"));
	CHECK(escapes_to(escape_utf8, "\x80", FFFD));
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8 either. */
	CHECK(escapes_to(escape_utf8, "\xc0\xaf", FFFD FFFD));
	CHECK(escapes_to(escape_utf8, "\xe0\x80\xaf", FFFD FFFD FFFD));
	CHECK(escapes_to(escape_utf8, "\xed\xa0\x80", FFFD FFFD FFFD));
	CHECK(escapes_to(escape_utf8, "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD));
	/* A sequence cut short by the end of the text, or by an ASCII byte. */
	CHECK(escapes_to(escape_utf8, "x\xe2\x82", "x" FFFD FFFD));
	CHECK(escapes_to(escape_utf8, "\xe2\x82x", FFFD FFFD "x"));
}

static void test_text(void)
{
	char *t = escape_text("ok\tline\n\033[2Jred\377\n");

	CHECK_STR(t, "ok\tline\n" FFFD "[2Jred" FFFD "\n");
	free(t);
	/* U+009B is CSI to a terminal that reads C1 controls; U+00A0 is printable. */
	t = escape_text("a\xc2\x9b"
	                "2Jb\xc2\xa0"
	                "c\xc2\x85");
	CHECK_STR(t, "a" FFFD "2Jb\xc2\xa0"
	             "c" FFFD);
	free(t);
}

/* One field of a line: no line breaks, no tabs, no controls of either kind. */
static void test_line(void)
{
	CHECK(escapes_to(escape_line, "gen (2)", "gen (2)"));
	CHECK(escapes_to(escape_line, "a\nb\tc\rd", "a" FFFD "b" FFFD "c" FFFD "d"));
	CHECK(escapes_to(escape_line, "\033]0;title\007x\xc2\x9b\377",
	                 FFFD "]0;title" FFFD "x" FFFD FFFD));
	CHECK(escapes_to(escape_line, "caf\xc3\xa9", "caf\xc3\xa9"));
	CHECK(escapes_to(escape_line, NULL, ""));
}

static void test_md(void)
{
	CHECK(escapes_to(escape_md, "| <script>alert(1)</script> `x`",
	                 "\\| &lt;script&gt;alert(1)&lt;/script&gt; \\`x\\`"));
	CHECK(escapes_to(escape_md, "01_nursery_churn", "01_nursery_churn"));
	CHECK(escapes_to(escape_md, "*a* [l](u) \\ & \"q\" 'q'",
	                 "\\*a\\* \\[l\\](u) \\\\ &amp; \"q\" 'q'"));
	CHECK(escapes_to(escape_md, "two\nlines\r\x01\377", "two lines " FFFD FFFD));
}

static void test_xml(void)
{
	CHECK(escapes_to(escape_xml, "<a href=\"x\">&'</a>",
	                 "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"));
	/* XML 1.0 allows tab, newline and return, no other control, and not U+FFFE or U+FFFF. */
	CHECK(escapes_to(escape_xml, "\t\n\r\x01\x1b", "\t\n\r" FFFD FFFD));
	CHECK(escapes_to(escape_xml, "\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd", FFFD FFFD FFFD));
	CHECK(escapes_to(escape_xml, "\376x", FFFD "x"));
}

/* RFC 4180: a field with a comma, a quote, CR or LF is quoted, its quotes doubled. */
static void test_csv(void)
{
	CHECK(escapes_to(escape_csv, "01_nursery_churn", "01_nursery_churn"));
	CHECK(escapes_to(escape_csv, "", ""));
	CHECK(escapes_to(escape_csv, NULL, ""));
	CHECK(escapes_to(escape_csv, "a, b", "\"a, b\""));
	CHECK(escapes_to(escape_csv, "say \"hi\"", "\"say \"\"hi\"\"\""));
	CHECK(escapes_to(escape_csv, "\"", "\"\"\"\""));
	CHECK(escapes_to(escape_csv, "two\nlines", "\"two\nlines\""));
	CHECK(escapes_to(escape_csv, "cr\r", "\"cr\r\""));
	/* Spaces and a semicolon need no quotes; bytes that are not UTF-8 are replaced. */
	CHECK(escapes_to(escape_csv, " x; y ", " x; y "));
	CHECK(escapes_to(escape_csv, "\377,", "\"" FFFD ",\""));
	/* What a spreadsheet would run is text (OWASP): a quote in front, quoted as needed. */
	CHECK(escapes_to(escape_csv, "=HYPERLINK(\"http://x\")",
	                 "\"'=HYPERLINK(\"\"http://x\"\")\""));
	CHECK(escapes_to(escape_csv, "+1", "'+1"));
	CHECK(escapes_to(escape_csv, "-O3", "'-O3"));
	CHECK(escapes_to(escape_csv, "@SUM(A1)", "'@SUM(A1)"));
	CHECK(escapes_to(escape_csv, "\tx", "'\tx"));
	CHECK(escapes_to(escape_csv, "\rx", "\"'\rx\""));
	CHECK(escapes_to(escape_csv, "a=b", "a=b"));
}

static void test_json(void)
{
	cJSON *v = escape_json_string("quote \" and \377\376 and \x01");
	char *text = cJSON_PrintUnformatted(v);

	CHECK_STR(text, "\"quote \\\" and " FFFD FFFD " and \\u0001\"");
	cJSON_free(text);
	cJSON_Delete(v);
	v = escape_json_string(NULL);
	CHECK(cJSON_IsNull(v));
	cJSON_Delete(v);
}

int main(void)
{
	test_utf8();
	test_text();
	test_line();
	test_md();
	test_xml();
	test_csv();
	test_json();
	return unit_done("test_escape");
}
