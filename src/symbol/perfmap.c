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
	size_t seq;  /* line number: among equal starts the last line wins */
	size_t name; /* offset of the name in perfmap.names */
};

struct perfmap {
	struct pm_entry *v;
	size_t n, cap;
	char *names; /* every name, each NUL-terminated: one allocation, not one per line */
	size_t names_len, names_cap;
};

/* What pm holds allocated: entries and names, as reserved. */
size_t perfmap__bytes(const struct perfmap *pm)
{
	return pm->cap * sizeof(*pm->v) + pm->names_cap;
}

bool perfmap__owner_ok(uint32_t owner, int64_t proc_euid)
{
	return owner == 0 || (proc_euid >= 0 && (int64_t)owner == proc_euid);
}

/* Room for one more entry and len + 1 bytes of name, within budget (0: none). */
static int reserve(struct perfmap *pm, size_t len, size_t budget)
{
	size_t cap = pm->cap, names_cap = pm->names_cap;

	if (pm->n == cap)
		cap = cap ? cap * 2 : 64;
	while (names_cap - pm->names_len < len + 1)
		names_cap = names_cap ? names_cap * 2 : 4096;
	/* a doubling past the budget is cut to what is needed, then refused */
	if (budget && cap * sizeof(*pm->v) + names_cap > budget) {
		if (cap != pm->cap)
			cap = pm->n + 1;
		if (names_cap != pm->names_cap)
			names_cap = pm->names_len + len + 1;
		if (cap * sizeof(*pm->v) + names_cap > budget)
			return -EFBIG;
	}
	if (cap != pm->cap) {
		struct pm_entry *nv = reallocarray(pm->v, cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		pm->v = nv;
		pm->cap = cap;
	}
	if (names_cap != pm->names_cap) {
		char *nn = realloc(pm->names, names_cap);

		if (!nn)
			return -ENOMEM;
		pm->names = nn;
		pm->names_cap = names_cap;
	}
	return 0;
}

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

struct perfmap *perfmap__load(FILE *f, size_t budget)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));
	size_t linecap = 0, len, seq = 0;
	char *line = NULL;
	int err = 0;

	if (!pm)
		return NULL;
	while ((err = textline_read(f, &line, &linecap, &len)) != 0) {
		const char *p = line;
		uint64_t start, size;
		size_t name_len;

		seq++;
		/* a line with a NUL or an unparsable one: skip it, keep the rest */
		if (err < 0 && err != -EINVAL)
			break;
		err = 0;
		while (isspace((unsigned char)*p))
			p++;
		if (!parse_hex(&p, &start) || !parse_hex(&p, &size) || !*p || !size)
			continue;
		name_len = strlen(p);
		err = reserve(pm, name_len, budget);
		if (err)
			break;
		memcpy(pm->names + pm->names_len, p, name_len + 1);
		pm->v[pm->n].name = pm->names_len;
		pm->names_len += name_len + 1;
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
	free(pm->names);
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
			return pm->names + e->name;
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
