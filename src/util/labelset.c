// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/labelset.h"

static bool escaped(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '%' || c == ',' || c == '=' || c == ';';
}

/* Append s escaped at out[*at] (size bytes): false when it does not fit. */
static bool put(char *out, size_t size, size_t *at, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t need = escaped(*p) ? 3 : 1;

		if (size - *at <= need)
			return false;
		if (need == 3) {
			out[(*at)++] = '%';
			out[(*at)++] = hex[*p >> 4];
			out[(*at)++] = hex[*p & 15];
		} else {
			out[(*at)++] = (char)*p;
		}
	}
	return true;
}

static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->val, y->val);
}

int labelset_encode(struct label *v, size_t n, char *out, size_t size)
{
	size_t at = 0;

	if (!size)
		return -ENOSPC;
	*out = 0;
	if (n > LABELSET_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!v[i].key || !*v[i].key || !v[i].val)
			return -EINVAL;
	if (n)
		qsort(v, n, sizeof(*v), cmp_label);
	for (size_t i = 0; i < n; i++) {
		/* the separators as themselves, keys and values escaped */
		if (i && size - at > 1)
			out[at++] = ',';
		if (!put(out, size, &at, v[i].key) || size - at <= 1) {
			*out = 0;
			return -ENOSPC;
		}
		out[at++] = '=';
		if (!put(out, size, &at, v[i].val)) {
			*out = 0;
			return -ENOSPC;
		}
	}
	out[at] = 0;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode up to (not including) a byte of stop from *pos into out[size]; *pos after it. */
static void take(const char **pos, const char *stop, char *out, size_t size)
{
	const char *p = *pos;
	size_t n = 0;

	while (*p && !strchr(stop, *p)) {
		char c = *p++;

		if (c == '%' && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
			c = (char)(hexval(p[0]) << 4 | hexval(p[1]));
			p += 2;
		}
		if (size && n < size - 1)
			out[n++] = c;
	}
	if (size)
		out[n] = 0;
	*pos = p;
}

bool labelset_next(const char **pos, char *key, size_t ksize, char *val, size_t vsize)
{
	const char *p = *pos;

	if (!p || !*p)
		return false;
	take(&p, "=,", key, ksize);
	if (*p == '=')
		p++;
	take(&p, ",", val, vsize);
	if (*p == ',')
		p++;
	*pos = p;
	return true;
}

bool labelset_get(const char *set, const char *key, char *val, size_t vsize)
{
	char k[LABELSET_MAX_LEN];

	while (labelset_next(&set, k, sizeof(k), val, vsize))
		if (!strcmp(k, key))
			return true;
	return false;
}

int labelset_id(const char *val, uint8_t *out, size_t n)
{
	size_t len = strlen(val);
	bool any = false;

	if (n != 16 && n != 8)
		return -EINVAL;
	/* W3C traceparent: 2 hex version, 32 hex trace ID, 16 hex parent (span) ID, 2 hex flags */
	if (len == 55 && val[2] == '-' && val[35] == '-' && val[52] == '-')
		val += n == 16 ? 3 : 36;
	else if (len != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(val[2 * i]), lo = hexval(val[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
		any = any || out[i];
	}
	return any ? 0 : -EINVAL;
}

int labelset_canon(const char *in, char *out, size_t size)
{
	/*
	 * Decoding only shortens: every key with its NUL fits the input's length (each key has a
	 * '=' or ',' after it, or the input's end), so do the values: two regions of that size.
	 */
	size_t room = strlen(in) + 1, ku = 0, vu = 0, n = 0;
	char *buf = malloc(2 * room);
	struct label v[LABELSET_MAX];
	int err = -EINVAL;

	if (size)
		*out = 0;
	if (!buf)
		return -ENOMEM;
	while (n < LABELSET_MAX &&
	       labelset_next(&in, buf + ku, room - ku, buf + room + vu, room - vu)) {
		v[n].key = buf + ku;
		v[n].val = buf + room + vu;
		ku += strlen(v[n].key) + 1;
		vu += strlen(v[n].val) + 1;
		n++;
		if (ku >= room || vu >= room)
			break;
	}
	if (!*in)
		err = labelset_encode(v, n, out, size);
	free(buf);
	return err;
}
