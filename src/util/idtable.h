/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open-addressing hash index from items to their ids: the caller keeps the items in its own
 * array and tells equality through a callback, the table keeps (hash, id + 1) pairs. Used to
 * intern frames, samples, mappings, strings, functions and locations.
 */
#ifndef CPUPROF_IDTABLE_H
#define CPUPROF_IDTABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idslot {
	uint32_t hash;
	uint32_t id1; /* id + 1; 0: empty */
};

struct idtable {
	struct idslot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* Is item id equal to key? */
typedef bool (*idtable_eq_fn)(const void *ctx, uint32_t id, const void *key);

/* Make room for one more id (load kept under one half). 0 or -ENOMEM. */
int idtable_reserve(struct idtable *t);

/*
 * After idtable_reserve: the id of the item equal to key (*found true), or the slot a new id
 * for it goes to (*found false), to be filled with idtable_fill.
 */
struct idslot *idtable_probe(const struct idtable *t, uint32_t hash, idtable_eq_fn eq,
			     const void *ctx, const void *key, bool *found);

/* Record id in the slot idtable_probe returned. */
void idtable_fill(struct idtable *t, struct idslot *slot, uint32_t hash, uint32_t id);

void idtable_free(struct idtable *t);

/* FNV-1a over bytes, to chain: h = idtable_hash(h, data, len), starting from IDTABLE_SEED. */
#define IDTABLE_SEED 2166136261u
uint32_t idtable_hash(uint32_t h, const void *data, size_t len);

#endif
