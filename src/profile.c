// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

/* Open-addressing hash index of ids; a slot holds id + 1 (0 = empty) and the id's hash. */
struct index {
	struct slot {
		uint32_t id1;
		uint32_t hash;
	} * v;
	size_t cap; /* power of two */
	size_t n;
};

struct profile {
	void *strs; /* tsearch tree of interned strings */
	struct index fidx, sidx, midx;
	struct prof_mapping *maps;
	size_t n_maps, cap_maps;
	struct prof_frame *frames;
	size_t n_frames, cap_frames;
	struct prof_sample *samples;
	size_t n_samples, cap_samples;
	uint64_t total;
};

/* FNV-1a over bytes, folded to 32 bits. */
static uint32_t hash_bytes(uint32_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static uint32_t hash_ptr(uint32_t h, const void *ptr)
{
	uintptr_t v = (uintptr_t)ptr;

	return hash_bytes(h, &v, sizeof(v));
}

/* Strings are interned, so their pointers stand for their contents. */
static uint32_t frame_hash(const struct prof_frame *f)
{
	uint32_t h = 2166136261u;

	h = hash_bytes(h, &f->kind, sizeof(f->kind));
	h = hash_bytes(h, &f->addr, sizeof(f->addr));
	h = hash_bytes(h, &f->rel, sizeof(f->rel));
	h = hash_bytes(h, &f->mapping, sizeof(f->mapping));
	h = hash_bytes(h, &f->line, sizeof(f->line));
	h = hash_ptr(h, f->name);
	h = hash_ptr(h, f->file);
	return hash_ptr(h, f->module);
}

static bool frame_eq(const struct prof_frame *x, const struct prof_frame *y)
{
	return x->kind == y->kind && x->addr == y->addr && x->rel == y->rel && x->name == y->name &&
	       x->module == y->module && x->mapping == y->mapping && x->named == y->named &&
	       x->inlined == y->inlined && x->mangled == y->mangled && x->file == y->file &&
	       x->line == y->line && x->column == y->column;
}

static uint32_t mapping_hash(const struct prof_mapping *m)
{
	uint32_t h = 2166136261u;

	h = hash_bytes(h, &m->pid, sizeof(m->pid));
	h = hash_bytes(h, &m->start, sizeof(m->start));
	h = hash_bytes(h, &m->limit, sizeof(m->limit));
	return hash_ptr(h, m->path);
}

static bool mapping_eq(const struct prof_mapping *x, const struct prof_mapping *y)
{
	return x->pid == y->pid && x->kind == y->kind && x->start == y->start &&
	       x->limit == y->limit && x->offset == y->offset && x->path == y->path &&
	       x->build_id == y->build_id;
}

static uint32_t sample_hash(const struct prof_sample *s)
{
	uint32_t h = 2166136261u;

	h = hash_bytes(h, &s->pid, sizeof(s->pid));
	h = hash_bytes(h, &s->tid, sizeof(s->tid));
	h = hash_ptr(h, s->comm);
	h = hash_ptr(h, s->thread);
	return hash_bytes(h, s->frames, s->nframes * sizeof(*s->frames));
}

static bool sample_eq(const struct prof_sample *x, const struct prof_sample *y)
{
	return x->pid == y->pid && x->tid == y->tid && x->comm == y->comm &&
	       x->thread == y->thread && x->nframes == y->nframes &&
	       memcmp(x->frames, y->frames, x->nframes * sizeof(*x->frames)) == 0;
}

/* The slot for hash where id1 matches (per eq) or the empty slot to fill. */
enum index_kind {
	IX_FRAME,
	IX_SAMPLE,
	IX_MAPPING,
};

static bool item_eq(const struct profile *p, enum index_kind kind, uint32_t id, const void *item)
{
	switch (kind) {
	case IX_FRAME:
		return frame_eq(&p->frames[id], item);
	case IX_SAMPLE:
		return sample_eq(&p->samples[id], item);
	default:
		return mapping_eq(&p->maps[id], item);
	}
}

static struct slot *index_probe(const struct profile *p, const struct index *ix, uint32_t hash,
				const void *item, enum index_kind kind)
{
	for (size_t i = hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
		struct slot *sl = &ix->v[i];

		if (!sl->id1)
			return sl;
		if (sl->hash != hash)
			continue;
		if (item_eq(p, kind, sl->id1 - 1, item))
			return sl;
	}
}

/* Keep the load factor under 1/2. */
static int index_reserve(struct index *ix)
{
	struct slot *nv;
	size_t ncap;

	if ((ix->n + 1) * 2 <= ix->cap)
		return 0;
	ncap = ix->cap ? ix->cap * 2 : 256;
	nv = calloc(ncap, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		size_t j;

		if (!ix->v[i].id1)
			continue;
		for (j = ix->v[i].hash & (ncap - 1); nv[j].id1; j = (j + 1) & (ncap - 1))
			;
		nv[j] = ix->v[i];
	}
	free(ix->v);
	ix->v = nv;
	ix->cap = ncap;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

static const char *intern(struct profile *p, const char *s)
{
	void *slot = tfind(s, &p->strs, cmp_str);
	char *dup;

	if (slot)
		return *(const char **)slot;
	dup = strdup(s);
	if (!dup)
		return NULL;
	if (!tsearch(dup, &p->strs, cmp_str)) {
		free(dup);
		return NULL;
	}
	return dup;
}

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	free(p->fidx.v);
	free(p->sidx.v);
	free(p->midx.v);
	free(p->maps);
	for (size_t i = 0; i < p->n_samples; i++)
		free((void *)p->samples[i].frames);
	free(p->samples);
	free(p->frames);
	tdestroy(p->strs, free);
	free(p);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int profile__intern_frame(struct profile *p, const struct prof_frame *f, uint32_t *id)
{
	struct prof_frame nf = *f;
	struct slot *sl;
	uint32_t h;

	if (f->mapping > p->n_maps)
		return -EINVAL;
	nf.name = intern(p, f->name);
	nf.module = f->module ? intern(p, f->module) : NULL;
	nf.mangled = f->mangled ? intern(p, f->mangled) : NULL;
	nf.file = f->file ? intern(p, f->file) : NULL;
	if (!nf.name || (f->module && !nf.module) || (f->mangled && !nf.mangled) ||
	    (f->file && !nf.file))
		return -ENOMEM;
	if (index_reserve(&p->fidx))
		return -ENOMEM;
	h = frame_hash(&nf);
	sl = index_probe(p, &p->fidx, h, &nf, IX_FRAME);
	if (sl->id1) {
		*id = sl->id1 - 1;
		return 0;
	}
	if (grow((void **)&p->frames, &p->cap_frames, p->n_frames, sizeof(*p->frames)))
		return -ENOMEM;
	p->frames[p->n_frames] = nf;
	sl->id1 = (uint32_t)p->n_frames + 1;
	sl->hash = h;
	p->fidx.n++;
	*id = (uint32_t)p->n_frames++;
	return 0;
}

int profile__add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		 const char *thread, const uint32_t *frames, uint32_t nframes, uint64_t count)
{
	struct prof_sample ns = {
		.pid = pid,
		.tid = tid,
		.comm = intern(p, comm),
		.thread = intern(p, thread ? thread : ""),
		.frames = frames,
		.nframes = nframes,
		.count = count,
	};
	struct slot *sl;
	uint32_t *copy;
	uint32_t h;

	if (!ns.comm || !ns.thread)
		return -ENOMEM;
	for (uint32_t i = 0; i < nframes; i++)
		if (frames[i] >= p->n_frames)
			return -EINVAL;
	if (index_reserve(&p->sidx))
		return -ENOMEM;
	h = sample_hash(&ns);
	sl = index_probe(p, &p->sidx, h, &ns, IX_SAMPLE);
	if (sl->id1) {
		p->samples[sl->id1 - 1].count += count;
		p->total += count;
		return 0;
	}
	if (grow((void **)&p->samples, &p->cap_samples, p->n_samples, sizeof(*p->samples)))
		return -ENOMEM;
	copy = malloc((nframes ? nframes : 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, frames, nframes * sizeof(*copy));
	ns.frames = copy;
	p->samples[p->n_samples] = ns;
	sl->id1 = (uint32_t)p->n_samples + 1;
	sl->hash = h;
	p->sidx.n++;
	p->n_samples++;
	p->total += count;
	return 0;
}

int profile__intern_mapping(struct profile *p, const struct prof_mapping *m, uint32_t *id)
{
	struct prof_mapping nm = *m;
	struct slot *sl;
	uint32_t h;

	nm.path = intern(p, m->path);
	nm.build_id = intern(p, m->build_id ? m->build_id : "");
	if (!nm.path || !nm.build_id || index_reserve(&p->midx))
		return -ENOMEM;
	h = mapping_hash(&nm);
	sl = index_probe(p, &p->midx, h, &nm, IX_MAPPING);
	if (sl->id1) {
		*id = sl->id1 - 1;
		return 0;
	}
	if (grow((void **)&p->maps, &p->cap_maps, p->n_maps, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->n_maps] = nm;
	sl->id1 = (uint32_t)p->n_maps + 1;
	sl->hash = h;
	p->midx.n++;
	*id = (uint32_t)p->n_maps++;
	return 0;
}

size_t profile__n_mappings(const struct profile *p)
{
	return p->n_maps;
}

const struct prof_mapping *profile__mapping(const struct profile *p, uint32_t id)
{
	return id < p->n_maps ? &p->maps[id] : NULL;
}

size_t profile__n_samples(const struct profile *p)
{
	return p->n_samples;
}

const struct prof_sample *profile__sample(const struct profile *p, size_t i)
{
	return i < p->n_samples ? &p->samples[i] : NULL;
}

size_t profile__n_frames(const struct profile *p)
{
	return p->n_frames;
}

const struct prof_frame *profile__frame(const struct profile *p, uint32_t id)
{
	return id < p->n_frames ? &p->frames[id] : NULL;
}

uint64_t profile__total(const struct profile *p)
{
	return p->total;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

size_t profile__n_processes(const struct profile *p)
{
	uint32_t *pids = malloc((p->n_samples ? p->n_samples : 1) * sizeof(*pids));
	size_t n = 0;

	if (!pids)
		return 0;
	for (size_t i = 0; i < p->n_samples; i++)
		pids[i] = p->samples[i].pid;
	qsort(pids, p->n_samples, sizeof(*pids), cmp_pid);
	for (size_t i = 0; i < p->n_samples; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			n++;
	free(pids);
	return n;
}
