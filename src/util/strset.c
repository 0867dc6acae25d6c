// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/strset.h"

#define BLOCK (64u << 10) /* bytes of strings per block; a longer string gets its own */

struct block {
	struct block *next;
	char data[];
};

/* FNV-1a, 64 bits */
static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The slot of s: where it is, or the empty slot it would go to. */
static const char **find(const struct strset *set, const char *s, uint64_t h)
{
	size_t i = (size_t)h & (set->cap - 1);

	while (set->slots[i] && strcmp(set->slots[i], s))
		i = (i + 1) & (set->cap - 1);
	return &set->slots[i];
}

/* Room for one more string at a load of at most a half. 0 or -1 (ENOMEM). */
static int reserve(struct strset *set)
{
	size_t ncap = set->cap ? set->cap * 2 : 256;
	const char **old = set->slots;
	size_t ocap = set->cap;

	if ((set->n + 1) * 2 <= set->cap)
		return 0;
	set->slots = calloc(ncap, sizeof(*set->slots));
	if (!set->slots) {
		set->slots = old;
		return -1;
	}
	set->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			*find(set, old[i], hash_str(old[i], strlen(old[i]))) = old[i];
	free(old);
	return 0;
}

/* len + 1 bytes of a block; NULL on ENOMEM. */
static char *take(struct strset *set, size_t len)
{
	struct block *b;
	size_t size = len + 1 > BLOCK ? len + 1 : BLOCK;

	if (set->blocks && set->room - set->used >= len + 1) {
		set->used += len + 1;
		return ((struct block *)set->blocks)->data + set->used - len - 1;
	}
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	/* a string of its own block goes behind the current one, which keeps its room */
	if (size > BLOCK && set->blocks) {
		b->next = ((struct block *)set->blocks)->next;
		((struct block *)set->blocks)->next = b;
		return b->data;
	}
	b->next = set->blocks;
	set->blocks = b;
	set->used = len + 1;
	set->room = size;
	return b->data;
}

const char *strset_intern(struct strset *set, const char *s)
{
	size_t len = strlen(s);
	uint64_t h = hash_str(s, len);
	char *copy;

	if (set->cap) {
		const char *found = *find(set, s, h);

		if (found)
			return found;
	}
	if (reserve(set))
		return NULL;
	copy = take(set, len);
	if (!copy)
		return NULL;
	memcpy(copy, s, len + 1);
	*find(set, copy, h) = copy;
	set->n++;
	set->bytes += len + 1;
	return copy;
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
	struct block *b = set->blocks;

	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
	free(set->slots);
	*set = (struct strset){0};
}
