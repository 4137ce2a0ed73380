#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than any input of ours needs, and well inside cJSON's own limit (1000). */
#define JSON_MAX_DEPTH  256
/* cJSON reads at most 63 bytes of a number and would stop in the middle of a longer one. */
#define JSON_MAX_NUMBER 63

/* ---- Paths --------------------------------------------------------------------------------- */

static int json_is_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static void json_path_add_key(struct sbuf *b, const char *key)
{
	if (b->len)
		sbuf_add(b, ".", 1);
	if (json_is_identifier(key)) {
		sbuf_add(b, key, strlen(key));
		return;
	}
	sbuf_add(b, "\"", 1);
	for (const char *p = key; *p; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_add(b, "\\", 1);
		sbuf_add(b, p, 1);
	}
	sbuf_add(b, "\"", 1);
}

void json_path_key(char *buf, size_t size, const char *parent, const char *key)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_add(&b, parent, strlen(parent));
	json_path_add_key(&b, key);
	snprintf(buf, size, "%s", b.data);
	sbuf_release(&b);
}

void json_path_index(char *buf, size_t size, const char *parent, size_t i)
{
	snprintf(buf, size, "%s[%zu]", parent, i);
}

void json_line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* ---- The scanner: RFC 8259, duplicate keys, end of input ----------------------------------- */

struct json_key {
	char *s; /* unescaped; never holds a NUL, so C string functions compare it whole */
	size_t off;
};

struct json_scan {
	const char *text;
	size_t len, pos;
	const char *name;
	struct sbuf path; /* the JSON path of the value being scanned, for messages */
	int depth;
	struct err *e;
};

static int json_fail(struct json_scan *s, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int json_fail(struct json_scan *s, size_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	int line, col;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	json_line_col(s->text, off, &line, &col);
	if (s->path.len)
		return err_setc(s->e, ERR_INVALID, "%s:%d:%d: not valid JSON: %s (in %s)", s->name,
		                line, col, what, s->path.data);
	return err_setc(s->e, ERR_INVALID, "%s:%d:%d: not valid JSON: %s", s->name, line, col,
	                what);
}

/* What is at pos, for "expected X, got Y". */
static const char *json_got(const struct json_scan *s, char *buf, size_t size)
{
	unsigned char c;

	if (s->pos >= s->len)
		return "the end of the input";
	c = (unsigned char)s->text[s->pos];
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static void json_skip_ws(struct json_scan *s)
{
	while (s->pos < s->len && (s->text[s->pos] == ' ' || s->text[s->pos] == '\t' ||
	                           s->text[s->pos] == '\n' || s->text[s->pos] == '\r'))
		s->pos++;
}

static int json_hex4(struct json_scan *s, size_t at, unsigned *out)
{
	*out = 0;
	if (s->len - at < 4)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		char c = s->text[at + i];
		*out <<= 4;
		if (c >= '0' && c <= '9')
			*out |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*out |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*out |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static void json_add_utf8(struct sbuf *b, unsigned cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sbuf_add(b, u, n);
}

/* A string at pos (which is '"'); its unescaped bytes go to `out` when it is not NULL. */
static int json_scan_string(struct json_scan *s, struct sbuf *out)
{
	size_t start = s->pos++;

	for (;;) {
		const unsigned char *p = (const unsigned char *)s->text + s->pos;
		size_t n;
		unsigned cu, lo;

		if (s->pos >= s->len)
			return json_fail(s, start, "string never ends");
		if (*p == '"') {
			s->pos++;
			return 0;
		}
		if (*p < 0x20)
			return json_fail(s, s->pos,
			                 "control byte 0x%02x in a string (escape it as \\u%04x)",
			                 *p, *p);
		if (*p != '\\') {
			n = utf8_len(p, s->len - s->pos);
			if (n == 0)
				return json_fail(s, s->pos, "not UTF-8 (byte 0x%02x)", *p);
			if (out)
				sbuf_add(out, p, n);
			s->pos += n;
			continue;
		}
		if (s->pos + 1 >= s->len)
			return json_fail(s, start, "string never ends");
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
			if (out)
				sbuf_add(out, p + 1, 1);
			s->pos += 2;
			continue;
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			if (out)
				sbuf_add(out,
				         p[1] == 'b'   ? "\b"
				         : p[1] == 'f' ? "\f"
				         : p[1] == 'n' ? "\n"
				         : p[1] == 'r' ? "\r"
				                       : "\t",
				         1);
			s->pos += 2;
			continue;
		case 'u':
			break;
		default:
			return json_fail(s, s->pos, "unknown escape \\%c", p[1]);
		}
		if (json_hex4(s, s->pos + 2, &cu) != 0)
			return json_fail(s, s->pos, "\\u needs four hex digits");
		if (cu == 0)
			return json_fail(s, s->pos, "\\u0000: a string may not hold a NUL");
		if (cu >= 0xdc00 && cu <= 0xdfff)
			return json_fail(s, s->pos, "\\u%04x is a lone low surrogate", cu);
		if (cu >= 0xd800 && cu <= 0xdbff) {
			if (s->len - s->pos < 12 || p[6] != '\\' || p[7] != 'u' ||
			    json_hex4(s, s->pos + 8, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
				return json_fail(s, s->pos,
				                 "\\u%04x is a high surrogate without its low half",
				                 cu);
			cu = 0x10000 + ((cu - 0xd800) << 10) + (lo - 0xdc00);
			s->pos += 6;
		}
		if (out)
			json_add_utf8(out, cu);
		s->pos += 6;
	}
}

static int json_digit(const struct json_scan *s)
{
	return s->pos < s->len && s->text[s->pos] >= '0' && s->text[s->pos] <= '9';
}

static int json_scan_number(struct json_scan *s)
{
	size_t start = s->pos;
	char buf[JSON_MAX_NUMBER + 1], got[16];

	if (s->text[s->pos] == '-')
		s->pos++;
	if (s->pos < s->len && s->text[s->pos] == '0') {
		s->pos++;
	} else if (json_digit(s)) {
		while (json_digit(s))
			s->pos++;
	} else {
		return json_fail(s, s->pos, "expected a digit, got %s",
		                 json_got(s, got, sizeof got));
	}
	if (s->pos < s->len && s->text[s->pos] == '.') {
		s->pos++;
		if (!json_digit(s))
			return json_fail(s, s->pos, "expected a digit after '.', got %s",
			                 json_got(s, got, sizeof got));
		while (json_digit(s))
			s->pos++;
	}
	if (s->pos < s->len && (s->text[s->pos] == 'e' || s->text[s->pos] == 'E')) {
		s->pos++;
		if (s->pos < s->len && (s->text[s->pos] == '+' || s->text[s->pos] == '-'))
			s->pos++;
		if (!json_digit(s))
			return json_fail(s, s->pos, "expected a digit in the exponent, got %s",
			                 json_got(s, got, sizeof got));
		while (json_digit(s))
			s->pos++;
	}
	if (s->pos - start > JSON_MAX_NUMBER)
		return json_fail(s, start, "a number longer than %d characters", JSON_MAX_NUMBER);
	memcpy(buf, s->text + start, s->pos - start);
	buf[s->pos - start] = '\0';
	if (!isfinite(strtod(buf, NULL)))
		return json_fail(s, start, "%s is beyond the range of a double", buf);
	return 0;
}

static int json_scan_literal(struct json_scan *s, const char *word)
{
	size_t n = strlen(word);

	if (s->len - s->pos < n || memcmp(s->text + s->pos, word, n) != 0)
		return json_fail(s, s->pos,
		                 "expected a value (true, false, null, a number, a string, "
		                 "an array or an object)");
	s->pos += n;
	return 0;
}

static int json_scan_value(struct json_scan *s);

static int json_key_cmp(const void *a, const void *b)
{
	const struct json_key *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : x->off < y->off ? -1 : x->off > y->off;
}

/* Two equal keys in one object: names the second of the pair whose second comes first. */
static int json_check_keys(struct json_scan *s, struct json_key *keys, size_t n)
{
	size_t dup = 0;
	int line, col, first_line, first_col, rc;

	if (n < 2)
		return 0;
	qsort(keys, n, sizeof *keys, json_key_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(keys[j].s, keys[i].s) == 0; j++)
			;
		if (j - i > 1 && (!dup || keys[i + 1].off < keys[dup].off))
			dup = i + 1;
	}
	if (!dup)
		return 0;
	json_line_col(s->text, keys[dup].off, &line, &col);
	json_line_col(s->text, keys[dup - 1].off, &first_line, &first_col);
	json_path_add_key(&s->path, keys[dup].s);
	rc =
	    err_setc(s->e, ERR_INVALID, "%s:%d:%d: %s: duplicate key (first at line %d, column %d)",
	             s->name, line, col, s->path.data, first_line, first_col);
	return rc;
}

/* Drops what a member or element added to the path, back to `mark`. */
static void json_path_trim(struct json_scan *s, size_t mark)
{
	s->path.len = mark;
	s->path.data[mark] = '\0';
}

/*
 * After a member of an object or an element of an array: 1 after a ',' (another follows), 0
 * after `close` (the end), -1 with the failure recorded otherwise.
 */
static int json_scan_after(struct json_scan *s, char close, const char *what)
{
	char got[16];

	json_skip_ws(s);
	if (s->pos < s->len && s->text[s->pos] == ',') {
		s->pos++;
		return 1;
	}
	if (s->pos < s->len && s->text[s->pos] == close) {
		s->pos++;
		return 0;
	}
	json_fail(s, s->pos, "expected ',' or '%c' after %s, got %s", close, what,
	          json_got(s, got, sizeof got));
	return -1;
}

static int json_scan_object(struct json_scan *s)
{
	struct json_key *keys = NULL;
	size_t nkeys = 0, cap = 0, mark = s->path.len;
	char got[16];
	int rc = -1, more;

	s->pos++;
	json_skip_ws(s);
	if (s->pos < s->len && s->text[s->pos] == '}') {
		s->pos++;
		return 0;
	}
	for (;;) {
		struct sbuf key;
		size_t off;

		json_skip_ws(s);
		if (s->pos >= s->len || s->text[s->pos] != '"') {
			json_fail(s, s->pos, "expected a key (a string), got %s",
			          json_got(s, got, sizeof got));
			goto out;
		}
		off = s->pos;
		sbuf_init(&key);
		if (json_scan_string(s, &key) != 0) {
			sbuf_release(&key);
			goto out;
		}
		if (nkeys == cap) {
			cap = cap ? 2 * cap : 8;
			keys = xrealloc(keys, cap * sizeof *keys);
		}
		keys[nkeys].s = sbuf_detach(&key);
		keys[nkeys++].off = off;
		json_path_add_key(&s->path, keys[nkeys - 1].s);
		json_skip_ws(s);
		if (s->pos >= s->len || s->text[s->pos] != ':') {
			json_fail(s, s->pos, "expected ':' after the key, got %s",
			          json_got(s, got, sizeof got));
			goto out;
		}
		s->pos++;
		if (json_scan_value(s) != 0)
			goto out;
		json_path_trim(s, mark);
		if ((more = json_scan_after(s, '}', "a member")) < 0)
			goto out;
		if (!more)
			break;
	}
	rc = json_check_keys(s, keys, nkeys);
out:
	json_path_trim(s, mark);
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i].s);
	free(keys);
	return rc;
}

static int json_scan_array(struct json_scan *s)
{
	size_t mark = s->path.len;
	int rc = -1, more;

	s->pos++;
	json_skip_ws(s);
	if (s->pos < s->len && s->text[s->pos] == ']') {
		s->pos++;
		return 0;
	}
	for (size_t i = 0;; i++) {
		sbuf_addf(&s->path, "[%zu]", i);
		if (json_scan_value(s) != 0)
			goto out;
		json_path_trim(s, mark);
		if ((more = json_scan_after(s, ']', "an element")) < 0)
			goto out;
		if (!more)
			break;
	}
	rc = 0;
out:
	json_path_trim(s, mark);
	return rc;
}

static int json_scan_value(struct json_scan *s)
{
	char got[16];
	int rc;

	json_skip_ws(s);
	if (s->pos >= s->len)
		return json_fail(s, s->pos, "expected a value, got the end of the input");
	switch (s->text[s->pos]) {
	case '{':
	case '[':
		if (s->depth >= JSON_MAX_DEPTH)
			return json_fail(s, s->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
		s->depth++;
		rc = s->text[s->pos] == '{' ? json_scan_object(s) : json_scan_array(s);
		s->depth--;
		return rc;
	case '"':
		return json_scan_string(s, NULL);
	case 't':
		return json_scan_literal(s, "true");
	case 'f':
		return json_scan_literal(s, "false");
	case 'n':
		return json_scan_literal(s, "null");
	default:
		if (s->text[s->pos] == '-' || (s->text[s->pos] >= '0' && s->text[s->pos] <= '9'))
			return json_scan_number(s);
		return json_fail(s, s->pos, "expected a value, got %s",
		                 json_got(s, got, sizeof got));
	}
}

int json_parse(const char *text, size_t len, const char *name, cJSON **out, struct err *e)
{
	struct json_scan s = {text, len, 0, name, {0}, 0, e};
	int rc = -1;

	*out = NULL;
	sbuf_init(&s.path);
	json_skip_ws(&s);
	if (s.pos >= len) {
		json_fail(&s, s.pos, "empty (expected one JSON value)");
		goto out;
	}
	if (json_scan_value(&s) != 0)
		goto out;
	json_skip_ws(&s);
	if (s.pos < len) {
		json_fail(&s, s.pos,
		          "text after the end of the value (one JSON value, then nothing)");
		goto out;
	}
	*out = cJSON_ParseWithLength(text, len);
	if (!*out) {
		/* The scanner accepts only what cJSON reads; this is a bug, said as such. */
		err_setc(e, ERR_INVALID, "%s: cJSON refused a text the strict scanner accepted",
		         name);
		goto out;
	}
	rc = 0;
out:
	sbuf_release(&s.path);
	return rc;
}

/* ---- Getters ------------------------------------------------------------------------------- */

static const char *json_type_name(const cJSON *v)
{
	return cJSON_IsString(v)   ? "a string"
	       : cJSON_IsNumber(v) ? "a number"
	       : cJSON_IsBool(v)   ? "a boolean"
	       : cJSON_IsNull(v)   ? "null"
	       : cJSON_IsArray(v)  ? "an array"
	                           : "an object";
}

int json_int(const cJSON *v, int64_t min, int64_t max, const char *name, const char *path,
             int64_t *out, struct err *e)
{
	char range[96];
	double d;

	if (min == 0 && max == JSON_INT_MAX)
		snprintf(range, sizeof range, "a non-negative integer below 2^53");
	else if (max == JSON_INT_MAX)
		snprintf(range, sizeof range, "an integer from %lld to 2^53-1", (long long)min);
	else
		snprintf(range, sizeof range, "an integer from %lld to %lld", (long long)min,
		         (long long)max);
	if (!v)
		return err_setc(e, ERR_INVALID, "%s: %s: is missing (%s)", name, path, range);
	if (!cJSON_IsNumber(v))
		return err_setc(e, ERR_INVALID, "%s: %s: must be %s, not %s", name, path, range,
		                json_type_name(v));
	d = v->valuedouble;
	/* Compared as doubles: min and max are exact in a double, and d is not converted yet. */
	if (!isfinite(d) || d != floor(d) || d < (double)min || d > (double)max)
		return err_setc(e, ERR_INVALID,
		                fabs(d) < 1e18 && d == floor(d) ? "%s: %s: must be %s, got %.0f"
		                                                : "%s: %s: must be %s, got %.15g",
		                name, path, range, d);
	*out = (int64_t)d;
	return 0;
}

int json_number(const cJSON *v, const char *name, const char *path, double *out, struct err *e)
{
	if (!v)
		return err_setc(e, ERR_INVALID, "%s: %s: is missing (a number)", name, path);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return err_setc(e, ERR_INVALID, "%s: %s: must be a number, not %s", name, path,
		                json_type_name(v));
	*out = v->valuedouble;
	return 0;
}

int json_bool(const cJSON *v, const char *name, const char *path, int *out, struct err *e)
{
	if (!v)
		return err_setc(e, ERR_INVALID, "%s: %s: is missing (true or false)", name, path);
	if (!cJSON_IsBool(v))
		return err_setc(e, ERR_INVALID, "%s: %s: must be true or false, not %s", name, path,
		                json_type_name(v));
	*out = cJSON_IsTrue(v);
	return 0;
}

int json_string(const cJSON *v, const char *name, const char *path, const char **out, struct err *e)
{
	if (!v)
		return err_setc(e, ERR_INVALID, "%s: %s: is missing (a string)", name, path);
	if (!cJSON_IsString(v))
		return err_setc(e, ERR_INVALID, "%s: %s: must be a string, not %s", name, path,
		                json_type_name(v));
	*out = v->valuestring;
	return 0;
}
