// SPDX-License-Identifier: GPL-2.0
/* Version numbers in interpreters' strings and file names (interp_version.h). */
#include <ctype.h>
#include "interp/interp_version.h"

static bool parse_uint(const char **p, const char *end, unsigned int *v)
{
	const char *s = *p;

	*v = 0;
	while (s < end && isdigit((unsigned char)*s) && s - *p < 3)
		*v = *v * 10 + (unsigned int)(*s++ - '0');
	if (s == *p)
		return false;
	*p = s;
	return true;
}

int interp_version_parse(const char **p, const char *end, unsigned int *v, int n)
{
	const char *s = *p;
	int i;

	for (i = 0; i < n; i++)
		v[i] = 0;
	for (i = 0; i < n; i++) {
		const char *at = s;

		if (i && (s >= end || *s++ != '.'))
			break;
		if (!parse_uint(&s, end, &v[i])) {
			s = at;
			break;
		}
		*p = s;
	}
	return i;
}
