// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "util/idtable.h"

int idtable_reserve(struct idtable *t)
{
	struct idslot *ns;
	size_t ncap;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	ncap = t->cap ? t->cap * 2 : 256;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slots[i].id1)
			continue;
		for (j = t->slots[i].hash & (ncap - 1); ns[j].id1; j = (j + 1) & (ncap - 1))
			;
		ns[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

struct idslot *idtable_probe(const struct idtable *t, uint32_t hash, idtable_eq_fn eq,
			     const void *ctx, const void *key, bool *found)
{
	for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct idslot *s = &t->slots[i];

		if (!s->id1) {
			*found = false;
			return s;
		}
		if (s->hash == hash && eq(ctx, s->id1 - 1, key)) {
			*found = true;
			return s;
		}
	}
}

void idtable_fill(struct idtable *t, struct idslot *slot, uint32_t hash, uint32_t id)
{
	slot->hash = hash;
	slot->id1 = id + 1;
	t->n++;
}

void idtable_free(struct idtable *t)
{
	free(t->slots);
	*t = (struct idtable){0};
}

uint32_t idtable_hash(uint32_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}
