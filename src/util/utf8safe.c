// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/utf8safe.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */
#define TERM_ESC    "\\x%02x"	   /* a byte refused on a terminal */

size_t utf8safe_next(const char *s, bool *ok)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char c = u[0];
	uint32_t cp;
	size_t n;

	*ok = false;
	if (!c)
		return 0;
	if (c < 0x80) {
		*ok = c >= 0x20 && c != 0x7f;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 1; /* a continuation byte, C0, C1 (overlong) or F5 to FF */
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) /* the NUL stops here too */
			return 1;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) /* overlong */
		return 1;
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 1;
	*ok = cp > 0x9f && !(cp >= 0xfdd0 && cp <= 0xfdef) && (cp & 0xfffe) != 0xfffe;
	return n;
}

bool utf8safe_ok(const char *s)
{
	bool ok;

	for (size_t n; *s; s += n) {
		/* the common case: printable ASCII */
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
			n = 1;
			continue;
		}
		n = utf8safe_next(s, &ok);
		if (!ok)
			return false;
	}
	return true;
}

/* Append the n bytes of p to buf if they fit whole; *len counts them anyway. */
static void put(char *buf, size_t size, size_t *len, bool *full, const char *p, size_t n)
{
	if (!*full && size && *len + n < size) {
		for (size_t i = 0; i < n; i++)
			buf[*len + i] = p[i];
	} else {
		*full = true;
	}
	*len += n;
}

/* The rule, with what a refused character becomes: U+FFFD (term false) or \xHH. */
static size_t apply(char *buf, size_t size, const char *s, bool term)
{
	size_t len = 0, kept = 0;
	bool full = false, ok;

	for (size_t n; (n = utf8safe_next(s, &ok)); s += n) {
		if (ok) {
			put(buf, size, &len, &full, s, n);
		} else if (!term) {
			put(buf, size, &len, &full, REPLACEMENT, 3);
		} else {
			for (size_t i = 0; i < n; i++) {
				char esc[5];

				snprintf(esc, sizeof(esc), TERM_ESC, (unsigned char)s[i]);
				put(buf, size, &len, &full, esc, 4);
			}
		}
		if (!full)
			kept = len;
	}
	if (size)
		buf[kept] = '\0';
	return len;
}

size_t utf8safe_copy(char *buf, size_t size, const char *s)
{
	return apply(buf, size, s, false);
}

size_t utf8safe_term(char *buf, size_t size, const char *s)
{
	return apply(buf, size, s, true);
}

static char *dup_by(const char *s, bool term)
{
	size_t n = apply(NULL, 0, s, term);
	char *b = malloc(n + 1);

	if (b)
		apply(b, n + 1, s, term);
	return b;
}

char *utf8safe_dup(const char *s)
{
	return dup_by(s, false);
}

char *utf8safe_term_dup(const char *s)
{
	return dup_by(s, true);
}

int utf8safe_term_fputs(const char *s, FILE *f)
{
	bool ok;

	for (size_t n; (n = utf8safe_next(s, &ok)); s += n) {
		if (ok) {
			if (fwrite(s, 1, n, f) != n)
				return EOF;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (fprintf(f, TERM_ESC, (unsigned char)s[i]) < 0)
				return EOF;
	}
	return 0;
}
