// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <elf.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "elf/elf_layout.h"
#include "elf/elf_syms.h"
#include "util/grow.h"
#include "unwind/unwind_maps.h"
#include "unwind/unwind_table.h"
#include "proc/vdso.h"

/* The table of one object; n 0 when it has none. */
struct uw_obj {
	struct cp_unwind_row *rows; /* the built rows until attach() places them */
	uint32_t n;
	uint32_t first; /* in the row store, when placed */
	bool placed;
	uint64_t base; /* vaddr the row pcs are relative to */
	uint32_t n_segs;
	struct cp_obj_seg segs[CP_OBJ_SEGS]; /* its executable PT_LOADs, for objtab */
};

/* One executable mapping of a process, before its table is published. */
struct uw_pmap {
	uint64_t start, end, vaddr;
	struct uw_obj *o; /* NULL: no table (anonymous, JIT, no CFI) */
};

struct uw_proc {
	uint32_t pid, gen, n;
	struct uw_pmap m[CP_MAX_UNWIND_MAPS];
};

/*
 * Index entry: a file (dev, ino), or a build-id (dev UINT64_MAX, ino the interned pointer):
 * copies of one object at other paths or in other mount namespaces share its table.
 */
struct uw_key {
	uint64_t dev, ino;
	struct uw_obj *o;
};

struct unwind_maps {
	struct unwind_sink sink;
	bool attached;
	uint32_t max_rows;
	uint64_t built;		 /* rows of the tables kept (in memory or placed) */
	struct row_store *store; /* once attached */
	void *keys;		 /* tsearch tree of struct uw_key *, by (dev, ino) */
	struct uw_obj **list;	 /* every object once (the vDSO's too) */
	size_t n_list, cap_list;
	struct uw_proc *pending; /* added before attach */
	size_t n_pending, cap_pending;
	struct uw_obj vdso;   /* the kernel's vDSO, built from cpuprof's own copy */
	uint64_t vdso_vaddr;  /* vaddr of the image's first byte */
	struct go_tables *go; /* Go's function tables, read once for every user; NULL: here */
	bool vdso_tried;
	struct uw_proc scratch;
	struct cp_unwind_proc up;
	struct unwind_maps_stats st;
};

static int cmp_key(const void *a, const void *b)
{
	const struct uw_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

struct unwind_maps *unwind_maps__new(uint32_t max_rows)
{
	struct unwind_maps *um = calloc(1, sizeof(*um));

	if (!um)
		return NULL;
	um->max_rows = max_rows;
	return um;
}

void unwind_maps__free(struct unwind_maps *um)
{
	if (!um)
		return;
	tdestroy(um->keys, free);
	for (size_t i = 0; i < um->n_list; i++) {
		free(um->list[i]->rows);
		if (um->list[i] != &um->vdso)
			free(um->list[i]);
	}
	free(um->list);
	free(um->pending);
	row_store__free(um->store);
	free(um);
}

/* A table of n rows left out: over --max-unwind-memory. */
static void count_full(struct unwind_maps *um, size_t n)
{
	um->st.objects_full++;
	um->st.rows_full += n;
	if (n > um->st.largest_full)
		um->st.largest_full = n;
}

/*
 * Before attach: make room for a table of n rows by leaving out the largest tables kept, as
 * long as they are larger than it (so many small tables are kept rather than one big one).
 */
static void make_room(struct unwind_maps *um, size_t n)
{
	while (n > um->max_rows - um->built) {
		struct uw_obj *big = NULL;

		for (size_t i = 0; i < um->n_list; i++) {
			struct uw_obj *o = um->list[i];

			if (o->rows && o->n > n && (!big || o->n > big->n))
				big = o;
		}
		if (!big)
			return;
		count_full(um, big->n);
		um->built -= big->n;
		um->st.objects--;
		free(big->rows);
		big->rows = NULL;
		big->n = 0;
	}
}

/*
 * Place rows[0, n) of o in the row store. 0, or -1 when they are left out (counted): over
 * the budget, or the store could not take them.
 */
static int place(struct unwind_maps *um, struct uw_obj *o, const struct cp_unwind_row *rows,
		 size_t n)
{
	int err = row_store__add(um->store, rows, (uint32_t)n, &o->first);

	if (err == -ENOSPC) {
		count_full(um, n);
		return -1;
	}
	if (err) {
		um->st.objects_dropped++;
		um->st.rows_dropped += n;
		return -1;
	}
	o->placed = true;
	return 0;
}

/* The build of a table of n rows: its time, and the largest. */
static void count_build(struct unwind_maps *um, const struct unwind_table *ut, size_t n)
{
	struct unwind_table_stats ts;

	unwind_table__stats(ut, &ts);
	um->st.build_ns += ts.build_ns;
	if (n > um->st.largest_rows) {
		um->st.largest_rows = n;
		um->st.largest_ns = ts.build_ns;
	}
}

/* o's n rows are in the row store from o->first. */
static void count_kept(struct unwind_maps *um, struct uw_obj *o, size_t n)
{
	o->n = (uint32_t)n;
	um->built += n;
	um->st.objects++;
	um->st.rows = um->built;
}

/*
 * Keep the table ut of o, and free ut: its rows go into the row store once attached; before,
 * o takes them over. Left out (counted) when over the budget or the rows cannot be written.
 */
static void keep_table(struct unwind_maps *um, struct uw_obj *o, struct unwind_table *ut)
{
	size_t n;

	unwind_table__rows(ut, &n);
	count_build(um, ut, n);
	o->base = unwind_table__base(ut);
	if (!n)
		goto out;
	if (n > um->max_rows) {
		count_full(um, n);
		goto out;
	}
	if (um->attached) {
		if (place(um, o, unwind_table__rows(ut, &n), n))
			goto out;
	} else {
		make_room(um, n);
		if (n > um->max_rows - um->built) {
			count_full(um, n);
			goto out;
		}
		o->rows = unwind_table__take_rows(ut, &n);
	}
	count_kept(um, o, n);
out:
	unwind_table__free(ut);
}

/*
 * Rows a streamed table is built into (after attach), a batch at a time: no copy of the whole
 * table is held. The rows that 32 MiB of rows' worth of CFI makes would otherwise be held
 * twice for a moment (the table, grown by doubling) besides the kernel's.
 */
#define STREAM_ROWS (CP_ROW_CHUNK_ROWS / 4)

/* A table streamed into the row store: the first error; rows past it are only counted. */
struct run {
	struct row_store *store;
	int err;
};

static int run_rows(void *ctx, const struct cp_unwind_row *rows, size_t n)
{
	struct run *r = ctx;

	if (!r->err)
		r->err = row_store__append(r->store, rows, (uint32_t)n);
	return 0;
}

/*
 * After attach: build the table of the file open on fd straight into the row store, as one
 * run kept only when it is whole. Left out (counted, with its rows) when it passes the budget
 * or its rows cannot be written. false when the file has no table.
 */
static bool stream_table(struct unwind_maps *um, struct uw_obj *o, int fd)
{
	struct run run = {.store = um->store};
	struct unwind_table_stats ts;
	struct unwind_table *ut;
	bool keep;

	run.err = row_store__begin(um->store, &o->first);
	ut = run.err ? NULL : unwind_table__stream_fd_go(fd, um->go, STREAM_ROWS, run_rows, &run);
	if (ut)
		unwind_table__stats(ut, &ts);
	keep = ut && !run.err && ts.rows;
	row_store__end(um->store, keep);
	if (!ut)
		return false;
	count_build(um, ut, ts.rows);
	o->base = unwind_table__base(ut);
	unwind_table__free(ut);
	if (run.err == -ENOSPC) {
		count_full(um, ts.rows);
	} else if (run.err) {
		um->st.objects_dropped++;
		um->st.rows_dropped += ts.rows;
	} else if (keep) {
		o->placed = true;
		count_kept(um, o, ts.rows);
	}
	return true;
}

/*
 * The vDSO's table: the kernel maps one image into every process, so cpuprof's own copy
 * serves them all. NULL when there is none.
 */
static struct uw_obj *vdso_table(struct unwind_maps *um)
{
	struct uw_obj *o = &um->vdso;
	struct unwind_table *ut;
	const void *image;
	size_t size;

	if (um->vdso_tried)
		return o->n ? o : NULL;
	um->vdso_tried = true;
	if (vdso_image(&image, &size) ||
	    array_grow((void **)&um->list, &um->cap_list, um->n_list + 1, sizeof(*um->list)))
		return NULL;
	ut = unwind_table__from_mem(image, size);
	if (!ut) {
		um->st.objects_failed++;
		return NULL;
	}
	um->vdso_vaddr = vdso_image_vaddr(image, size);
	keep_table(um, o, ut);
	/* laid out by attach() with the others */
	um->list[um->n_list++] = o;
	return o->n ? o : NULL;
}

/* Enter key (dev, ino) -> o in the index. 0 or -ENOMEM. */
static int index_obj(struct unwind_maps *um, uint64_t dev, uint64_t ino, struct uw_obj *o)
{
	struct uw_key *k = malloc(sizeof(*k)), **slot;

	if (!k)
		return -ENOMEM;
	*k = (struct uw_key){.dev = dev, .ino = ino, .o = o};
	slot = tsearch(k, &um->keys, cmp_key);
	if (!slot) {
		free(k);
		return -ENOMEM;
	}
	if (*slot != k) /* there already */
		free(k);
	return 0;
}

static struct uw_obj *find_obj(struct unwind_maps *um, uint64_t dev, uint64_t ino)
{
	struct uw_key key = {.dev = dev, .ino = ino}, **slot = tfind(&key, &um->keys, cmp_key);

	return slot ? (*slot)->o : NULL;
}

/* The executable PT_LOADs of the object open on fd, as objtab wants them. */
static void read_segs(struct uw_obj *o, int fd)
{
	struct elf_syms *es = elf_syms__headers_from_fd(fd);
	const struct elf_load *segs;
	size_t n = elf_syms__loads(es, &segs);

	for (size_t i = 0; i < n && o->n_segs < CP_OBJ_SEGS; i++) {
		if (!(segs[i].flags & PF_X))
			continue;
		o->segs[o->n_segs++] = (struct cp_obj_seg){
			.start = segs[i].offset & ~(uint64_t)(ELF_LAYOUT_PAGE - 1),
			.end = segs[i].offset + segs[i].filesz,
			.delta = (int64_t)(segs[i].vaddr - segs[i].offset),
		};
	}
	elf_syms__free(es);
}

/*
 * Give the walker file (dev, ino)'s table for its own lookups, once the rows are in the
 * sink. A failure costs only that lookup (the mapping tables still hold the file).
 */
static void put_object(struct unwind_maps *um, uint64_t dev, uint64_t ino, const struct uw_obj *o)
{
	struct cp_obj_key k = {
		/* the kernel's MKDEV(major, minor), as the walker reads s_dev */
		.dev = (uint64_t)major(dev) << CP_KDEV_MINOR_BITS | minor(dev),
		.ino = ino,
	};
	struct cp_obj_table t = {.base = o->base, .first_row = o->first, .n_rows = o->n};

	if (!um->attached || !um->sink.put_object || !o->placed || !o->n_segs || dev == UINT64_MAX)
		return;
	t.n_segs = o->n_segs;
	memcpy(t.segs, o->segs, sizeof(t.segs));
	if (um->sink.put_object(um->sink.ctx, &k, &t))
		um->st.objtab_failed++;
}

/*
 * The table of file (dev, ino) open on fd, with build-id bid (interned, or NULL), built at the
 * first call for that file or build-id. NULL when out of memory.
 */
static struct uw_obj *get_table(struct unwind_maps *um, uint64_t dev, uint64_t ino, const char *bid,
				int fd)
{
	struct unwind_table *ut;
	struct uw_obj *o;

	o = find_obj(um, dev, ino);
	/* built ahead from the file alone (add_file): now its build-id is known too */
	if (o && bid && !find_obj(um, UINT64_MAX, (uintptr_t)bid) &&
	    index_obj(um, UINT64_MAX, (uintptr_t)bid, o))
		return NULL;
	if (o)
		return o;
	o = bid ? find_obj(um, UINT64_MAX, (uintptr_t)bid) : NULL;
	if (o) {
		/* a copy of a known object: its table under this file too */
		if (index_obj(um, dev, ino, o))
			return NULL;
		put_object(um, dev, ino, o);
		return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o ||
	    array_grow((void **)&um->list, &um->cap_list, um->n_list + 1, sizeof(*um->list))) {
		free(o);
		return NULL;
	}
	um->list[um->n_list++] = o;
	if (index_obj(um, dev, ino, o) || (bid && index_obj(um, UINT64_MAX, (uintptr_t)bid, o)))
		return NULL;
	if (um->attached) {
		if (!stream_table(um, o, fd)) {
			um->st.objects_failed++;
			return o;
		}
		read_segs(o, fd);
		put_object(um, dev, ino, o);
		return o;
	}
	ut = unwind_table__from_fd_go(fd, um->go);
	if (ut) {
		read_segs(o, fd);
		keep_table(um, o, ut);
	} else {
		um->st.objects_failed++;
	}
	return o;
}

void unwind_maps__set_go_tables(struct unwind_maps *um, struct go_tables *t)
{
	um->go = t;
}

int unwind_maps__add_file(struct unwind_maps *um, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return get_table(um, st.st_dev, st.st_ino, NULL, fd) ? 0 : -ENOMEM;
}

static int add_map(const struct ps_map_info *mi, void *arg)
{
	struct unwind_maps *um = arg;
	struct uw_proc *p = &um->scratch;
	struct uw_pmap *m;

	if (p->n == CP_MAX_UNWIND_MAPS) {
		um->st.maps_dropped++;
		return 0;
	}
	m = &p->m[p->n++];
	memset(m, 0, sizeof(*m));
	m->start = mi->start;
	m->end = mi->end;
	m->vaddr = mi->vaddr;
	if (mi->vdso) {
		m->o = vdso_table(um);
		m->vaddr = um->vdso_vaddr;
		return 0;
	}
	if (mi->fd < 0)
		return 0;
	m->o = get_table(um, mi->dev, mi->ino, mi->build_id, mi->fd);
	return m->o ? 0 : -ENOMEM;
}

/* The BPF form of p's mapping table: only placed tables have rows. */
static int publish(struct unwind_maps *um, const struct uw_proc *p)
{
	struct cp_unwind_proc *up = &um->up;
	int err;

	memset(up, 0, sizeof(*up));
	up->gen = p->gen;
	up->n_maps = p->n;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct uw_pmap *m = &p->m[i];
		struct cp_unwind_map *bm = &up->maps[i];

		bm->start = m->start;
		bm->end = m->end;
		if (!m->o || !m->o->placed)
			continue;
		/* runtime pc - (start - vaddr at start) is the file vaddr; rows count from base */
		bm->bias = m->start - m->vaddr + m->o->base;
		bm->first_row = m->o->first;
		bm->n_rows = m->o->n;
	}
	err = um->sink.publish(um->sink.ctx, p->pid, up);
	if (!err)
		um->st.procs++;
	return err;
}

/* Before attach: remember p, replacing an older table of the same process. */
static int keep_pending(struct unwind_maps *um, const struct uw_proc *p)
{
	size_t i;

	for (i = 0; i < um->n_pending; i++)
		if (um->pending[i].pid == p->pid)
			break;
	if (i == um->n_pending) {
		if (array_grow((void **)&um->pending, &um->cap_pending, i + 1,
			       sizeof(*um->pending)))
			return -ENOMEM;
		um->n_pending++;
	}
	memcpy(&um->pending[i], p, offsetof(struct uw_proc, m) + p->n * sizeof(p->m[0]));
	return 0;
}

int unwind_maps__add_proc(struct unwind_maps *um, struct proc_snapshot *ps, uint32_t pid,
			  uint32_t gen)
{
	struct uw_proc *p = &um->scratch;
	int err;

	p->pid = pid;
	p->gen = gen;
	p->n = 0;
	err = proc_snapshot__for_each_map(ps, pid, gen, add_map, um);
	if (err)
		return err;
	return um->attached ? publish(um, p) : keep_pending(um, p);
}

uint32_t unwind_maps__rows(const struct unwind_maps *um)
{
	return (uint32_t)um->built;
}

/* twalk_r: each file's table to objtab, at attach. */
static void put_key(const void *node, VISIT which, void *ctx)
{
	const struct uw_key *k = *(const struct uw_key *const *)node;

	if (which == postorder || which == leaf)
		put_object(ctx, k->dev, k->ino, k->o);
}

static int cmp_size_asc(const void *a, const void *b)
{
	const struct uw_obj *x = *(struct uw_obj *const *)a, *y = *(struct uw_obj *const *)b;

	return x->n < y->n ? -1 : x->n > y->n;
}

int unwind_maps__attach(struct unwind_maps *um, const struct unwind_sink *sink)
{
	size_t i;
	int err = 0;

	um->store = row_store__new(um->max_rows, &sink->rows);
	if (!um->store)
		return -ENOMEM;
	um->sink = *sink;
	um->attached = true;
	/* smallest first: the largest are left out when the store cannot grow */
	if (um->n_list)
		qsort(um->list, um->n_list, sizeof(*um->list), cmp_size_asc);
	for (i = 0; i < um->n_list; i++) {
		struct uw_obj *o = um->list[i];

		if (!o->rows)
			continue;
		if (place(um, o, o->rows, o->n)) {
			um->built -= o->n;
			um->st.objects--;
			o->n = 0;
		}
		free(o->rows);
		o->rows = NULL;
	}
	um->st.rows = um->built;
	twalk_r(um->keys, put_key, um);
	for (i = 0; i < um->n_pending; i++) {
		int e = publish(um, &um->pending[i]);

		if (e && !err)
			err = e;
	}
	free(um->pending);
	um->pending = NULL;
	um->n_pending = um->cap_pending = 0;
	return err;
}

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *st)
{
	struct row_store_stats rs = {0};

	*st = um->st;
	st->rows_cap = um->max_rows;
	if (um->store)
		row_store__stats(um->store, &rs);
	st->chunks = rs.chunks;
}
