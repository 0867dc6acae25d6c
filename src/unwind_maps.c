// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "unwind_maps.h"
#include "unwind_table.h"

/* The table of one file in the row array; n 0 when it has none. */
struct uw_obj {
	uint64_t dev, ino;
	uint32_t first, n;
	uint64_t base; /* vaddr the row pcs are relative to */
};

struct unwind_maps {
	struct bpf_session *s;
	struct cp_unwind_row *rows;
	uint32_t cap, used;
	void *objs; /* tsearch tree of struct uw_obj * */
	struct cp_unwind_proc up;
	struct unwind_maps_stats st;
};

struct load_ctx {
	struct unwind_maps *um;
	int err;
};

static int cmp_obj(const void *a, const void *b)
{
	const struct uw_obj *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

struct unwind_maps *unwind_maps__new(struct bpf_session *s)
{
	struct unwind_maps *um = calloc(1, sizeof(*um));

	if (!um)
		return NULL;
	um->s = s;
	um->rows = bpf_session__unwind_rows(s, &um->cap);
	if (!um->rows) {
		free(um);
		errno = EINVAL;
		return NULL;
	}
	um->st.rows_cap = um->cap;
	return um;
}

void unwind_maps__free(struct unwind_maps *um)
{
	if (!um)
		return;
	tdestroy(um->objs, free);
	free(um);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Build the table of the file open on fd into the row array, once per file. */
static struct uw_obj *get_table(struct unwind_maps *um, const struct sym_map_info *mi)
{
	struct uw_obj key = {.dev = mi->dev, .ino = mi->ino}, *o, **slot;
	const struct cp_unwind_row *rows;
	struct unwind_table *ut;
	uint64_t t0;
	size_t n;

	slot = tfind(&key, &um->objs, cmp_obj);
	if (slot)
		return *slot;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	*o = key;
	if (!tsearch(o, &um->objs, cmp_obj)) {
		free(o);
		return NULL;
	}
	t0 = now_ns();
	ut = unwind_table__from_fd(mi->fd);
	um->st.build_ns += now_ns() - t0;
	if (!ut) {
		um->st.objects_failed++;
		return o;
	}
	rows = unwind_table__rows(ut, &n);
	if (n > um->cap - um->used) {
		um->st.objects_full++;
	} else if (n) {
		memcpy(&um->rows[um->used], rows, n * sizeof(*rows));
		o->first = um->used;
		o->n = (uint32_t)n;
		o->base = unwind_table__base(ut);
		um->used += (uint32_t)n;
		um->st.objects++;
		um->st.rows = um->used;
	}
	unwind_table__free(ut);
	return o;
}

static int add_map(const struct sym_map_info *mi, void *arg)
{
	struct load_ctx *c = arg;
	struct unwind_maps *um = c->um;
	struct cp_unwind_map *m;
	struct uw_obj *o;

	if (um->up.n_maps == CP_MAX_UNWIND_MAPS) {
		um->st.maps_dropped++;
		return 0;
	}
	m = &um->up.maps[um->up.n_maps++];
	memset(m, 0, sizeof(*m));
	m->start = mi->start;
	m->end = mi->end;
	if (mi->fd < 0)
		return 0;
	o = get_table(um, mi);
	if (!o)
		return -ENOMEM;
	if (o->n) {
		/* runtime pc - (start - vaddr at start) is the file vaddr; rows count from base */
		m->bias = mi->start - mi->vaddr + o->base;
		m->first_row = o->first;
		m->n_rows = o->n;
	}
	return 0;
}

int unwind_maps__load_proc(struct unwind_maps *um, struct symbolizer *sy, uint32_t pid,
			   uint32_t gen)
{
	struct load_ctx c = {.um = um};
	int err;

	memset(&um->up, 0, sizeof(um->up));
	um->up.gen = gen;
	err = symbolizer__for_each_map(sy, pid, gen, add_map, &c);
	if (err)
		return err;
	err = bpf_session__set_unwind_proc(um->s, pid, &um->up);
	if (!err)
		um->st.procs++;
	return err;
}

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *st)
{
	*st = um->st;
}
