// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/elf_named.h"
#include "interp/interp_find.h"
#include "proc/proc_snapshot.h"

struct plain_obj {
	uint64_t dev, ino;
	bool used;
};

/*
 * An object found to be the interpreter (or refused: -ENOTSUP), with what its detection said:
 * what the file says, the same in every process that maps it under that name. Every node
 * process started made V8's detection look up its 60 v8dbg_ symbols again, each a scan of
 * node's 185,000 symbols (30 % of cpuprof's CPU during a build on a busy machine).
 */
struct found_obj {
	uint64_t dev, ino;
	char *name;
	int result;
	void *info;
	size_t size;
};

/* found objects remembered at most (a full list only costs detections again) */
#define INTERP_FOUND_MAX 64

struct interp_plain {
	struct plain_obj *v; /* open addressing, cap a power of two */
	size_t n, cap;
	struct found_obj found[INTERP_FOUND_MAX];
	size_t n_found;
};

struct interp_plain *interp_plain__new(void)
{
	return calloc(1, sizeof(struct interp_plain));
}

void interp_plain__free(struct interp_plain *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n_found; i++) {
		free(pl->found[i].name);
		free(pl->found[i].info);
	}
	free(pl->v);
	free(pl);
}

static size_t plain_slot(uint64_t dev, uint64_t ino, size_t cap)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ ino;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

bool interp_plain__has(const struct interp_plain *pl, uint64_t dev, uint64_t ino)
{
	if (!pl || !pl->cap)
		return false;
	for (size_t j = plain_slot(dev, ino, pl->cap); pl->v[j].used; j = (j + 1) & (pl->cap - 1))
		if (pl->v[j].dev == dev && pl->v[j].ino == ino)
			return true;
	return false;
}

size_t interp_plain__count(const struct interp_plain *pl)
{
	return pl ? pl->n : 0;
}

/* Add (dev, ino); a full or unallocatable set only costs an object opened again. */
static void plain_add(struct interp_plain *pl, uint64_t dev, uint64_t ino)
{
	size_t j;

	if (!pl || interp_plain__has(pl, dev, ino))
		return;
	if ((pl->n + 1) * 2 > pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 256;
		struct plain_obj *v = calloc(cap, sizeof(*v));

		if (!v)
			return;
		for (size_t i = 0; i < pl->cap; i++) {
			if (!pl->v[i].used)
				continue;
			for (j = plain_slot(pl->v[i].dev, pl->v[i].ino, cap); v[j].used;
			     j = (j + 1) & (cap - 1))
				;
			v[j] = pl->v[i];
		}
		free(pl->v);
		pl->v = v;
		pl->cap = cap;
	}
	for (j = plain_slot(dev, ino, pl->cap); pl->v[j].used; j = (j + 1) & (pl->cap - 1))
		;
	pl->v[j] = (struct plain_obj){.dev = dev, .ino = ino, .used = true};
	pl->n++;
}

static const struct found_obj *found_find(const struct interp_plain *pl, uint64_t dev, uint64_t ino,
					  const char *name, size_t size)
{
	for (size_t i = 0; pl && i < pl->n_found; i++) {
		const struct found_obj *f = &pl->found[i];

		if (f->dev == dev && f->ino == ino && f->size == size && !strcmp(f->name, name))
			return f;
	}
	return NULL;
}

/* Remember a detection the file decided (0 or -ENOTSUP); no memory only costs it again. */
static void found_add(struct interp_plain *pl, uint64_t dev, uint64_t ino, const char *name,
		      int result, const void *info, size_t size)
{
	struct found_obj *f;

	if (!pl || pl->n_found == INTERP_FOUND_MAX || (result && result != -ENOTSUP))
		return;
	f = &pl->found[pl->n_found];
	*f = (struct found_obj){dev, ino, strdup(name), result, malloc(size ? size : 1), size};
	if (!f->name || !f->info) {
		free(f->name);
		free(f->info);
		return;
	}
	memcpy(f->info, info, size);
	pl->n_found++;
}

struct find_ctx {
	struct interp_plain *plain;
	interp_detect_fn detect;
	void *info;
	size_t info_size;
	struct interp_found *out;
	int result; /* of the object found: -ENOENT while none */
	uint64_t seen_dev, seen_ino;
};

static int find_one(const struct ps_map_info *mi, void *arg)
{
	struct find_ctx *c = arg;
	char path[64], target[4096];
	const struct found_obj *found;
	const char *base;
	ssize_t n;
	int err;

	if (mi->fd < 0 || (mi->dev == c->seen_dev && mi->ino == c->seen_ino) ||
	    interp_plain__has(c->plain, mi->dev, mi->ino))
		return 0;
	c->seen_dev = mi->dev;
	c->seen_ino = mi->ino;
	/* the name for the version: what the object is called in the process */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mi->fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		n = 0;
	target[n] = 0;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	found = found_find(c->plain, mi->dev, mi->ino, base, c->info_size);
	if (found) {
		memcpy(c->info, found->info, c->info_size);
		err = found->result;
	} else {
		err = c->detect(mi->fd, base, c->info);
		found_add(c->plain, mi->dev, mi->ino, base, err, c->info, c->info_size);
	}
	if (err == -ENOENT || err == -ENOEXEC) {
		/* what the file says: the same in every process that maps it */
		plain_add(c->plain, mi->dev, mi->ino);
		memset(c->info, 0, c->info_size);
		return 0;
	}
	c->out->bias = mi->start - mi->vaddr;
	c->out->dev = mi->dev;
	c->out->ino = mi->ino;
	c->out->fd = mi->fd;
	c->result = err;
	return err == -ENOMEM ? err : 1; /* the first one found */
}

int interp_find(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		interp_detect_fn detect, void *info, size_t info_size, struct interp_found *out)
{
	struct find_ctx c = {.plain = plain,
			     .detect = detect,
			     .info = info,
			     .info_size = info_size,
			     .out = out,
			     .result = -ENOENT,
			     .seen_dev = ~0ull,
			     .seen_ino = ~0ull};
	int err;

	memset(info, 0, info_size);
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	err = proc_snapshot__for_each_map(ps, pid, gen, find_one, &c);
	if (err < 0 && err != -ENOENT)
		return err;
	return c.result;
}

int interp_detect_elf(int fd, const char *name, void *info, size_t size,
		      int (*detect)(const struct elf_named *en, const char *name, void *info))
{
	struct elf_named *en;
	int err = elf_named__open(fd, &en);

	if (err) {
		memset(info, 0, size);
		return err;
	}
	err = detect(en, name, info);
	elf_named__free(en);
	return err;
}
