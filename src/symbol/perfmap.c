// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/perfmap.h"
#include "util/textline.h"

struct pm_entry {
	uint64_t start, size;
	size_t seq; /* line number: among equal starts the last line wins */
	char *name;
};

struct perfmap {
	struct pm_entry *v;
	size_t n;
};

static bool parse_hex(const char **p, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (end == *p || errno || (*end != ' ' && *end != '\t'))
		return false;
	*p = end;
	while (**p == ' ' || **p == '\t')
		(*p)++;
	return true;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct perfmap *perfmap__load(FILE *f)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));
	size_t cap = 0, linecap = 0, len, seq = 0;
	char *line = NULL;
	int err = 0;

	if (!pm)
		return NULL;
	while ((err = textline_read(f, &line, &linecap, &len)) != 0) {
		const char *p = line;
		uint64_t start, size;

		seq++;
		/* a line with a NUL or an unparsable one: skip it, keep the rest */
		if (err < 0 && err != -EINVAL)
			break;
		err = 0;
		while (isspace((unsigned char)*p))
			p++;
		if (!parse_hex(&p, &start) || !parse_hex(&p, &size) || !*p || !size)
			continue;
		if (pm->n == cap) {
			struct pm_entry *nv;

			cap = cap ? cap * 2 : 64;
			nv = reallocarray(pm->v, cap, sizeof(*nv));
			if (!nv) {
				err = -ENOMEM;
				break;
			}
			pm->v = nv;
		}
		pm->v[pm->n].name = strdup(p);
		if (!pm->v[pm->n].name) {
			err = -ENOMEM;
			break;
		}
		pm->v[pm->n].start = start;
		pm->v[pm->n].size = size;
		pm->v[pm->n].seq = seq;
		pm->n++;
	}
	free(line);
	if (err) {
		perfmap__free(pm);
		errno = -err;
		return NULL;
	}
	if (pm->n)
		qsort(pm->v, pm->n, sizeof(*pm->v), cmp_entry);
	return pm;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->n; i++)
		free(pm->v[i].name);
	free(pm->v);
	free(pm);
}

const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = pm->n;

	/* the last entry with start <= addr: the latest of several at one start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* an earlier, longer range may still hold addr past a shorter one */
	for (size_t i = lo; i-- > 0;) {
		const struct pm_entry *e = &pm->v[i];

		if (addr - e->start < e->size) {
			if (off)
				*off = addr - e->start;
			return e->name;
		}
		/* entries are sorted by start: give up once no range could reach addr */
		if (lo - i > 16)
			break;
	}
	return NULL;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm->n;
}
