// SPDX-License-Identifier: GPL-2.0
/*
 * The names of interpreter frames during a recording (rt_named.h): an array of entries and a
 * hash index over (pid, gen, ptr, pos, kind).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "session/interp_queue.h"
#include "session/rt_named.h"
#include "util/grow.h"
#include "util/u64set.h"

struct rt_named_entry {
	uint32_t pid, gen;
	uint64_t ptr;
	uint32_t pos;
	uint8_t kind;
	uint8_t tries;	/* looks at BPF's copy; RT_NAMED_TRIES: what err says is final */
	uint32_t round; /* of the last look (rt_named.round) */
	int err;	/* 0: info holds the names */
	struct rt_frame_info info;
};

/* interp_prune reads (pid, gen) at the start of each */
_Static_assert(offsetof(struct rt_named_entry, pid) == 0 &&
		       offsetof(struct rt_named_entry, gen) == 4,
	       "rt_named_entry starts with pid, gen");

struct named_key {
	uint32_t pid, gen;
	uint64_t ptr;
	uint32_t pos;
	uint8_t kind;
};

static uint32_t key_hash(const struct named_key *k)
{
	return (uint32_t)u64_mix(k->ptr ^ u64_mix(((uint64_t)k->pid << 32 | k->gen) ^
						  u64_mix((uint64_t)k->pos << 8 | k->kind)));
}

static bool key_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct rt_named_entry *x = &((const struct rt_named *)ctx)->v[id];
	const struct named_key *k = key;

	return x->pid == k->pid && x->gen == k->gen && x->ptr == k->ptr && x->pos == k->pos &&
	       x->kind == k->kind;
}

void rt_named_init(struct rt_named *c, const struct rt_named_ops *ops)
{
	memset(c, 0, sizeof(*c));
	c->ops = *ops;
}

void rt_named_free(struct rt_named *c)
{
	free(c->v);
	idtable_free(&c->index);
	memset(c, 0, sizeof(*c));
}

size_t rt_named_count(const struct rt_named *c)
{
	return c->n;
}

void rt_named_round(struct rt_named *c)
{
	c->round++;
}

/* One look at what BPF copied of x (frame f), counted. */
static void from_copy(struct rt_named *c, struct rt_named_entry *x, const struct cp_rt_frame *f)
{
	x->round = c->round;
	if (x->tries < RT_NAMED_TRIES)
		x->tries++;
	if (!c->ops.copied(c->ops.ctx, x->pid, x->gen, f, &x->info))
		x->err = 0;
}

/* A new entry for k, read from its process, else from BPF's copy. */
static int read_entry(struct rt_named *c, const struct named_key *k, const struct cp_rt_frame *f,
		      struct rt_named_entry **out)
{
	struct rt_named_entry *x;
	int err;

	if (array_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	x = &c->v[c->n];
	memset(x, 0, sizeof(*x));
	err = c->ops.read(c->ops.ctx, k->pid, k->gen, f, &x->info);
	if (err == -ENOENT)
		return err;
	x->pid = k->pid;
	x->gen = k->gen;
	x->ptr = k->ptr;
	x->pos = k->pos;
	x->kind = k->kind;
	x->err = err;
	if (err) {
		/* only a name BPF is still to copy is worth another look */
		if (err != -ENODATA)
			x->tries = RT_NAMED_TRIES;
		from_copy(c, x, f);
	}
	*out = x;
	return 0;
}

int rt_named_get(struct rt_named *c, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		 const struct rt_frame_info **out)
{
	struct named_key k = {
		.pid = pid, .gen = gen, .ptr = f->ptr, .pos = f->pos, .kind = f->kind};
	uint32_t h = key_hash(&k);
	struct rt_named_entry *x;
	struct idslot *slot;
	bool found;
	int err;

	if (idtable_reserve(&c->index))
		return -ENOMEM;
	slot = idtable_probe(&c->index, h, key_eq, c, &k, &found);
	if (found) {
		x = &c->v[slot->id1 - 1];
		if (x->err && x->tries < RT_NAMED_TRIES && x->round != c->round)
			from_copy(c, x, f);
	} else {
		err = read_entry(c, &k, f, &x);
		if (err)
			return err;
		idtable_fill(&c->index, slot, h, (uint32_t)c->n++);
	}
	if (x->err)
		return x->err;
	*out = &x->info;
	return 0;
}

/* Index every entry again (after some went); out of memory, the rest are read again. */
static void reindex(struct rt_named *c)
{
	idtable_free(&c->index);
	for (size_t i = 0; i < c->n; i++) {
		const struct rt_named_entry *x = &c->v[i];
		struct named_key k = {x->pid, x->gen, x->ptr, x->pos, x->kind};
		uint32_t h = key_hash(&k);
		struct idslot *slot;
		bool found;

		if (idtable_reserve(&c->index))
			return;
		slot = idtable_probe(&c->index, h, key_eq, c, &k, &found);
		if (!found)
			idtable_fill(&c->index, slot, h, (uint32_t)i);
	}
}

void rt_named_forget(struct rt_named *c, const uint64_t *keys, size_t n)
{
	size_t m;

	if (!n || !c->n)
		return;
	m = interp_prune(c->v, c->n, sizeof(*c->v), keys, n, NULL);
	if (m != c->n) {
		c->n = m;
		reindex(c);
	}
}
