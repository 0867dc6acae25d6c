// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG (XML) escaper, flame_xml_escape, on any bytes and buffer sizes: the output is valid
 * XML character data (valid UTF-8 of characters XML allows, '&' only in the five entities,
 * no '<', '>', quote or apostrophe as such), cut only between whole replacements, and the
 * uncut output unescapes to the name by the rule.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "text_check.h"
#include "output/flame.h"
#include "util/utf8safe.h"

#define need(c)                  \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

static const char *const entities[][2] = {
	{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"},
};

/* out unescaped into buf (big enough); aborts on anything XML character data may not hold */
static void unescape(const char *out, char *buf)
{
	size_t n = 0;

	need(text_check(out, strlen(out)));
	for (const char *p = out; *p;) {
		size_t k;

		need(*p != '<' && *p != '>' && *p != '"' && *p != '\'');
		if (*p != '&') {
			buf[n++] = *p++;
			continue;
		}
		for (k = 0; k < 5; k++)
			if (!strncmp(p, entities[k][0], strlen(entities[k][0])))
				break;
		need(k < 5);
		buf[n++] = entities[k][1][0];
		p += strlen(entities[k][0]);
	}
	buf[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *safe, *big, *plain, small[40];
	size_t bsize;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	safe = utf8safe_dup(s);
	bsize = 6 * size + 1; /* "&quot;" is the longest a byte becomes */
	big = malloc(bsize);
	plain = malloc(bsize);
	need(safe && big && plain);
	flame_xml_escape(s, big, bsize);
	unescape(big, plain);
	need(!strcmp(plain, safe));
	/* a small buffer: a prefix of the whole output, itself valid */
	flame_xml_escape(s, small, size % sizeof(small) + 1);
	need(!strncmp(small, big, strlen(small)));
	unescape(small, plain);
	free(plain);
	free(big);
	free(safe);
	free(s);
	return 0;
}
