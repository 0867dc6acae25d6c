// SPDX-License-Identifier: GPL-2.0
/*
 * The one rule for foreign text (util/utf8safe.h) on any bytes: what comes out is valid by an
 * independent check, a terminal gets no control byte, clean text is kept as it is, and a cut
 * copy is a prefix of the whole one.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "text_check.h"
#include "util/utf8safe.h"

#define need(c)                  \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *out, *term, cut[64];
	size_t n, want;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* the text is what comes before a NUL */
	out = utf8safe_dup(s);
	term = utf8safe_term_dup(s);
	need(out && term);
	need(text_check(out, strlen(out)));
	need(text_check(term, strlen(term)));
	need(utf8safe_ok(out) && utf8safe_ok(term));
	if (text_check(s, strlen(s))) {
		need(utf8safe_ok(s));
		need(!strcmp(out, s) && !strcmp(term, s));
	} else {
		need(!utf8safe_ok(s));
	}
	want = utf8safe_copy(NULL, 0, s);
	need(want == strlen(out));
	n = size % sizeof(cut) + 1;
	need(utf8safe_copy(cut, n, s) == want);
	need(strlen(cut) < n && !strncmp(cut, out, strlen(cut)));
	need(text_check(cut, strlen(cut)));
	need(utf8safe_term(cut, n, s) == strlen(term));
	need(text_check(cut, strlen(cut)) && !strncmp(cut, term, strlen(cut)));
	free(out);
	free(term);
	free(s);
	return 0;
}
