// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "util/u64set.h"

bool u64set_add(struct u64set *st, uint64_t key)
{
	size_t j;

	key = key ? key : 1;
	if ((st->n + 1) * 2 > st->cap) {
		size_t n = st->cap ? st->cap * 2 : 1024;
		uint64_t *v = calloc(n, sizeof(*v));

		if (!v)
			return false;
		for (size_t i = 0; i < st->cap; i++) {
			if (!st->v[i])
				continue;
			for (j = u64_mix(st->v[i]) & (n - 1); v[j]; j = (j + 1) & (n - 1))
				;
			v[j] = st->v[i];
		}
		free(st->v);
		st->v = v;
		st->cap = n;
	}
	for (j = u64_mix(key) & (st->cap - 1); st->v[j]; j = (j + 1) & (st->cap - 1))
		if (st->v[j] == key)
			return false;
	st->v[j] = key;
	st->n++;
	return true;
}

void u64set_clear(struct u64set *st)
{
	free(st->v);
	*st = (struct u64set){0};
}
