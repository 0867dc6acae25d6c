/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one rule for text cpuprof did not write (process, thread, function and file names, paths,
 * command lines), so that no name can make an output invalid or reach a terminal as a control
 * sequence. A character is written as it is when it is valid UTF-8 (RFC 3629: shortest form,
 * no UTF-16 surrogate, nothing above U+10FFFF) and neither a control character (U+0000 to
 * U+001F, U+007F to U+009F: tab and newline included) nor a noncharacter (U+FDD0 to U+FDEF and
 * the last two code points of every plane, U+FFFE and U+FFFF among them, which XML forbids).
 *
 * - in profiles (every string the profile interns, so every writer: folded, pprof, JSON, SVG,
 *   HTML, the report tables) and in the strings writers add (titles, command lines), each
 *   byte that starts no valid sequence, and each whole character the rule refuses, becomes
 *   U+FFFD (utf8safe_copy, utf8safe_dup);
 * - on a terminal (messages on stderr), the same bytes are written as \xHH (utf8safe_term),
 *   which says what they were.
 */
#ifndef CPUPROF_UTF8SAFE_H
#define CPUPROF_UTF8SAFE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The character at s (a NUL-terminated string, never read past the NUL): its length in bytes
 * (1 when the byte at s starts no valid sequence), and in *ok whether the rule lets it through.
 * 0 at the NUL. The rule is here and nowhere else.
 */
size_t utf8safe_next(const char *s, bool *ok);

/* Whether s is written as it is. */
bool utf8safe_ok(const char *s);

/*
 * s by the rule into buf of size bytes, cut at a character boundary when it does not fit
 * (always NUL-terminated when size > 0). Returns the length the whole result has, as
 * snprintf does.
 */
size_t utf8safe_copy(char *buf, size_t size, const char *s);

/* The same, malloc'ed; NULL on ENOMEM. */
char *utf8safe_dup(const char *s);

/* For a terminal: what the rule refuses as \xHH per byte, the rest as it is; as utf8safe_copy. */
size_t utf8safe_term(char *buf, size_t size, const char *s);

/* The same, malloc'ed; NULL on ENOMEM. */
char *utf8safe_term_dup(const char *s);

/* The same, written to f. 0, or EOF when a write fails. */
int utf8safe_term_fputs(const char *s, FILE *f);

#endif
