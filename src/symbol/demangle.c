// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symbol/demangle.h"

char *demangle(const char *name)
{
	char *s;

	/* only manglings we know: other names (C, or words that merely look mangled) stay */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) {
		errno = ENOENT;
		return NULL;
	}
	/* DMGL_AUTO: libiberty tries Rust (legacy and v0) first, then the Itanium C++ ABI */
	s = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!s)
		errno = ENOENT;
	return s;
}

/* Open addressing on the pointer; a value equal to its key means "not mangled". */
struct demangle_slot {
	const char *key;
	char *val;
};

struct demangle_cache {
	struct demangle_slot *v;
	size_t cap, n; /* cap is a power of two */
};

struct demangle_cache *demangle_cache__new(void)
{
	struct demangle_cache *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->cap = 256;
	dc->v = calloc(dc->cap, sizeof(*dc->v));
	if (!dc->v) {
		free(dc);
		errno = ENOMEM;
		return NULL;
	}
	return dc;
}

void demangle_cache__free(struct demangle_cache *dc)
{
	if (!dc)
		return;
	for (size_t i = 0; i < dc->cap; i++)
		if (dc->v[i].val != dc->v[i].key)
			free(dc->v[i].val);
	free(dc->v);
	free(dc);
}

static size_t slot_of(const struct demangle_cache *dc, const char *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 20) & (dc->cap - 1);

	while (dc->v[i].key && dc->v[i].key != key)
		i = (i + 1) & (dc->cap - 1);
	return i;
}

static int grow(struct demangle_cache *dc)
{
	struct demangle_cache big = {.cap = dc->cap * 2};

	big.v = calloc(big.cap, sizeof(*big.v));
	if (!big.v)
		return -ENOMEM;
	for (size_t i = 0; i < dc->cap; i++)
		if (dc->v[i].key)
			big.v[slot_of(&big, dc->v[i].key)] = dc->v[i];
	free(dc->v);
	dc->v = big.v;
	dc->cap = big.cap;
	return 0;
}

const char *demangle_cache__get(struct demangle_cache *dc, const char *name)
{
	size_t i;
	char *s;

	if (!name)
		return NULL;
	i = slot_of(dc, name);
	if (dc->v[i].key)
		return dc->v[i].val;
	if (2 * (dc->n + 1) > dc->cap) {
		if (grow(dc))
			return name;
		i = slot_of(dc, name);
	}
	s = demangle(name);
	if (!s && errno == ENOMEM)
		return name;
	dc->v[i].key = name;
	dc->v[i].val = s ? s : (char *)name;
	dc->n++;
	return dc->v[i].val;
}
