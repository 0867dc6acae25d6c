// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON string escaper (json_out_string) and the HTML embedding of JSON (html_script_json)
 * on any bytes: the JSON text is valid UTF-8 and reads back as the name by the rule; embedded
 * in a page it has no '<', '>', '&', U+2028 or U+2029 and still reads back the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "fuzz.h"
#include "text_check.h"
#include "output/html.h"
#include "output/json_out.h"
#include "util/utf8safe.h"

#define need(c)                  \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

/* json's string value equals want */
static void reads_back(const char *text, size_t n, const char *want)
{
	json_t *j = json_loadb(text, n, JSON_DECODE_ANY, NULL);

	need(j && json_is_array(j));
	need(!strcmp(json_string_value(json_array_get(j, 0)), want));
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *safe, *text, *page = NULL;
	size_t plen = 0, tl;
	json_t *arr;
	FILE *f;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	safe = utf8safe_dup(s);
	arr = json_array();
	need(safe && arr && !json_array_append_new(arr, json_out_string(s)));
	/* as the HTML writer dumps its document */
	text = json_dumps(arr, JSON_COMPACT | JSON_ESCAPE_SLASH);
	need(text);
	tl = strlen(text);
	/* the JSON text may hold any character jansson writes as it is: valid UTF-8 by the rule */
	need(text_check(text, tl));
	reads_back(text, tl, safe);
	f = open_memstream(&page, &plen);
	need(f && !html_script_json(text, tl, f));
	need(!fclose(f));
	need(plen >= tl && text_check(page, plen));
	for (size_t i = 0; i < plen; i++) {
		need(page[i] != '<' && page[i] != '>' && page[i] != '&');
		need(!(i + 2 < plen && !memcmp(page + i, "\xe2\x80", 2) &&
		       (page[i + 2] == '\xa8' || page[i + 2] == '\xa9')));
	}
	reads_back(page, plen, safe);
	free(page);
	free(text);
	json_decref(arr);
	free(safe);
	free(s);
	return 0;
}
