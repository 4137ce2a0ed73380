/*
 * escape.h — the one escaper of each output format, shared by every renderer of check and ab.
 *
 * Probe names, build names, git commits, hostnames and above all the reasons taken from a
 * probe's stderr reach every report, and the harness controls none of them: a line of stderr
 * may hold `|`, backticks, markup, control characters or bytes that are not UTF-8. Every field
 * that comes from outside goes through the escaper of the format it lands in, so that each
 * output is valid UTF-8 and valid in its format, and shows the text rather than obeying it.
 *
 * Invalid UTF-8 (a stray byte, a truncated, overlong or surrogate sequence) becomes U+FFFD,
 * one per byte that cannot start or continue a well-formed sequence. NULL is the empty string.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include "util.h"

struct cJSON;

/* The replacement character U+FFFD, as UTF-8. */
#define ESCAPE_REPLACEMENT "\xef\xbf\xbd"

/* Appends s as valid UTF-8, invalid bytes replaced; nothing else changes. */
void escape_utf8(struct sbuf *b, const char *s);

/*
 * A whole terminal text made safe: valid UTF-8, and every control character (C0, DEL and the
 * C1 controls U+0080 to U+009F) but newline and tab replaced, so that a reason from stderr
 * can neither break the encoding nor move the cursor. Plain text has no syntax to break, so
 * renderers apply this to what they wrote. Newly allocated.
 */
char *escape_text(const char *text);

/*
 * Appends s as one field of a terminal line: as escape_text, and newline and tab replaced
 * too, so that a build name or a lock holder's note cannot start a line of its own or
 * shift the columns after it.
 */
void escape_line(struct sbuf *b, const char *s);

/*
 * Appends s for a Markdown table cell or line (GitHub-flavoured): `|` as \|, newlines as
 * spaces, Markdown's inline specials backslashed, &, < and > as entities (GitHub renders inline
 * HTML), control characters replaced. Not for inside a code span, where escapes show.
 */
void escape_md(struct sbuf *b, const char *s);

/*
 * Appends s for XML or HTML text and attribute values: &, <, >, " and ' as references, and
 * the characters XML 1.0 forbids (controls but tab, newline and return; U+FFFE, U+FFFF)
 * replaced.
 */
void escape_xml(struct sbuf *b, const char *s);

/* The first characters that make a spreadsheet take a cell for a formula. */
#define ESCAPE_CSV_FORMULA_STARTS "=+-@\t\r"

/*
 * Appends s as one CSV field (RFC 4180): valid UTF-8, and in double quotes, each quote
 * doubled, when it holds a comma, a quote, a carriage return or a newline; otherwise as it is.
 * A field that starts with a character of ESCAPE_CSV_FORMULA_STARTS gets a single quote in
 * front, so that a spreadsheet shows it rather than running it (a build named
 * =HYPERLINK(...)); numbers are not fields of text and are written by their caller.
 * NULL and "" are both an empty field.
 */
void escape_csv(struct sbuf *b, const char *s);

/*
 * A JSON string of s as valid UTF-8 (cJSON escapes quotes and controls but copies other bytes
 * as they are), or a JSON null when s is NULL. The caller adds it to an object or array.
 */
struct cJSON *escape_json_string(const char *s);

#endif /* ESCAPE_H */
