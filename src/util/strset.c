// SPDX-License-Identifier: GPL-2.0
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/strset.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

const char *strset_intern(struct strset *set, const char *s)
{
	void *slot = tfind(s, &set->root, cmp_str);
	char *dup;

	if (slot)
		return *(const char **)slot;
	dup = strdup(s);
	if (!dup)
		return NULL;
	slot = tsearch(dup, &set->root, cmp_str);
	if (!slot) {
		free(dup);
		return NULL;
	}
	set->n++;
	set->bytes += strlen(dup) + 1;
	return dup;
}

const char *strset_internf(struct strset *set, const char *fmt, ...)
{
	const char *r;
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	r = strset_intern(set, s);
	free(s);
	return r;
}

void strset_clear(struct strset *set)
{
	tdestroy(set->root, free);
	set->root = NULL;
	set->n = set->bytes = 0;
}
