#include "escape.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/*
 * Walks s by characters: each ASCII character goes to `ascii`, which appends it as its format
 * needs; other well-formed characters are copied; invalid bytes become U+FFFD. With `xml`, the
 * noncharacters U+FFFE and U+FFFF, which XML 1.0 forbids, are replaced too.
 */
enum escape_mode {
	ESCAPE_MODE_PLAIN,
	ESCAPE_MODE_XML,      /* U+FFFE and U+FFFF replaced too */
	ESCAPE_MODE_TERMINAL, /* the C1 controls U+0080 to U+009F replaced too */
};

static void escape_walk(struct sbuf *b, const char *s, void (*ascii)(struct sbuf *b, char c),
                        enum escape_mode mode)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		size_t n = utf8_len(p, SIZE_MAX);
		if (n == 1) {
			ascii(b, (char)*p);
		} else if (n == 0 ||
		           (mode == ESCAPE_MODE_XML && n == 3 && p[0] == 0xef && p[1] == 0xbf &&
		            p[2] >= 0xbe) ||
		           /* A terminal may take U+009B as CSI, as it takes ESC [. */
		           (mode == ESCAPE_MODE_TERMINAL && n == 2 && p[0] == 0xc2 &&
		            p[1] < 0xa0)) {
			sbuf_addf(b, ESCAPE_REPLACEMENT);
			n = n ? n : 1;
		} else {
			sbuf_add(b, p, n);
		}
		p += n;
	}
}

static void escape_ascii_raw(struct sbuf *b, char c)
{
	sbuf_add(b, &c, 1);
}

static void escape_ascii_text(struct sbuf *b, char c)
{
	if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
		sbuf_addf(b, ESCAPE_REPLACEMENT);
	else
		sbuf_add(b, &c, 1);
}

static void escape_ascii_line(struct sbuf *b, char c)
{
	if (c < 0x20 || c == 0x7f)
		sbuf_addf(b, ESCAPE_REPLACEMENT);
	else
		sbuf_add(b, &c, 1);
}

static void escape_ascii_xml(struct sbuf *b, char c)
{
	switch (c) {
	case '&':
		sbuf_addf(b, "&amp;");
		break;
	case '<':
		sbuf_addf(b, "&lt;");
		break;
	case '>':
		sbuf_addf(b, "&gt;");
		break;
	case '"':
		sbuf_addf(b, "&quot;");
		break;
	case '\'':
		sbuf_addf(b, "&#39;");
		break;
	default:
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			sbuf_addf(b, ESCAPE_REPLACEMENT);
		else
			sbuf_add(b, &c, 1);
	}
}

static void escape_ascii_md(struct sbuf *b, char c)
{
	if (c == '|')
		sbuf_addf(b, "\\|");
	else if (c == '\n' || c == '\r' || c == '\t')
		sbuf_addf(b, " ");
	/* GitHub renders inline HTML and Markdown emphasis in comments: neutralise both. */
	else if (c == '`' || c == '*' || c == '[' || c == ']' || c == '\\')
		sbuf_addf(b, "\\%c", c);
	/* Quotes mean nothing outside an attribute: only the specials that start markup. */
	else if (c == '"' || c == '\'')
		sbuf_add(b, &c, 1);
	else
		escape_ascii_xml(b, c);
}

void escape_utf8(struct sbuf *b, const char *s)
{
	escape_walk(b, s, escape_ascii_raw, ESCAPE_MODE_PLAIN);
}

char *escape_text(const char *text)
{
	struct sbuf b;

	sbuf_init(&b);
	escape_walk(&b, text, escape_ascii_text, ESCAPE_MODE_TERMINAL);
	return b.data;
}

void escape_line(struct sbuf *b, const char *s)
{
	escape_walk(b, s, escape_ascii_line, ESCAPE_MODE_TERMINAL);
}

void escape_md(struct sbuf *b, const char *s)
{
	escape_walk(b, s, escape_ascii_md, ESCAPE_MODE_PLAIN);
}

void escape_xml(struct sbuf *b, const char *s)
{
	escape_walk(b, s, escape_ascii_xml, ESCAPE_MODE_XML);
}

void escape_csv(struct sbuf *b, const char *s)
{
	struct sbuf v;

	sbuf_init(&v);
	/*
	 * A spreadsheet runs a cell that starts with one of these as a formula
	 * (=HYPERLINK(...), +cmd|...): a leading quote makes it text (OWASP's CSV injection).
	 */
	if (s && s[0] && strchr(ESCAPE_CSV_FORMULA_STARTS, s[0]))
		sbuf_add(&v, "'", 1);
	escape_utf8(&v, s);
	if (v.len && strpbrk(v.data, ",\"\r\n")) {
		sbuf_add(b, "\"", 1);
		for (const char *p = v.data; *p; p++) {
			if (*p == '"')
				sbuf_add(b, "\"", 1);
			sbuf_add(b, p, 1);
		}
		sbuf_add(b, "\"", 1);
	} else if (v.len) {
		sbuf_add(b, v.data, v.len);
	}
	sbuf_release(&v);
}

struct cJSON *escape_json_string(const char *s)
{
	struct sbuf b;
	cJSON *v;

	if (!s)
		return cJSON_CreateNull();
	sbuf_init(&b);
	escape_utf8(&b, s);
	v = cJSON_CreateString(b.data);
	sbuf_release(&b);
	return v;
}
