// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile/aggregate.h"
#include "interp/interp_merge.h"
#include "util/fmap.h"
#include "util/grow.h"
#include "util/idtable.h"
#include "util/labelset.h"

/* Inlined frames kept per address at most (the outermost ones when a chain is longer). */
#define MAX_CHAIN 16
/* Frames of one sample: two stacks, their inlined frames, pseudo-frames. */
#define MAX_FRAMES ((CP_MAX_USTACK_DEPTH + CP_MAX_STACK_DEPTH) * MAX_CHAIN + 4)
/* Cache key pid of kernel addresses: no process has it. */
#define KERNEL_PID UINT32_MAX

/* The frames an address was named with, cached: many stacks share their addresses. */
struct named_addr {
	uint32_t pid, gen;
	uint64_t addr;
	bool leaf;
	bool entry;	   /* the function is where a process's or thread's stack begins */
	bool known;	   /* a user address in an executable mapping of the process */
	bool anon;	   /* in anonymous executable memory, no perf map naming it */
	uint32_t first, n; /* ids in agg.pool[first..first+n), root first */
};

/* An address named once per profile: its object (or the kernel) and virtual address. */
struct cached_name {
	const void *object;
	uint64_t vaddr;
	bool leaf;
	bool entry;	   /* as named_addr.entry */
	uint32_t first, n; /* ids in name_cache.pool[first..first+n), root first */
};

struct name_cache {
	struct idtable idx;
	struct cached_name *v;
	size_t n, cap, max;
	uint32_t *pool;
	size_t n_pool, cap_pool;
	unsigned int resets;
};

/* The object of every kernel address in the cache. */
static const char kernel_object;

struct name_cache *name_cache__new(size_t max_entries)
{
	struct name_cache *nc = calloc(1, sizeof(*nc));

	if (nc)
		nc->max = max_entries ? max_entries : 1;
	return nc;
}

void name_cache__free(struct name_cache *nc)
{
	if (!nc)
		return;
	idtable_free(&nc->idx);
	free(nc->v);
	free(nc->pool);
	free(nc);
}

size_t name_cache__n(const struct name_cache *nc)
{
	return nc->n;
}

size_t name_cache__bytes(const struct name_cache *nc)
{
	return nc->cap * sizeof(*nc->v) + nc->idx.cap * sizeof(struct idslot) +
	       nc->cap_pool * sizeof(*nc->pool);
}

unsigned int name_cache__resets(const struct name_cache *nc)
{
	return nc->resets;
}

static bool cached_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct cached_name *x = &((const struct name_cache *)ctx)->v[id], *y = key;

	return x->object == y->object && x->vaddr == y->vaddr && x->leaf == y->leaf;
}

/*
 * The hash of a key of two words and a flag, as its fields: these two tables are probed for
 * every frame of every sample, and idtable_hash takes a multiply per byte.
 */
static uint32_t key_hash(uint64_t a, uint64_t b, bool flag)
{
	uint64_t x = a ^ (b * 0x9e3779b97f4a7c15ull) ^ (flag ? 0xc2b2ae3d27d4eb4full : 0);

	/* MurmurHash3's 64-bit finalizer: every bit of x moves the low bits the table uses */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* The key of (object, vaddr, leaf), zeroed first (stored whole in the cache). */
static uint32_t cached_key(struct cached_name *key, const void *object, uint64_t vaddr, bool leaf)
{
	memset(key, 0, sizeof(*key));
	key->object = object;
	key->vaddr = vaddr;
	key->leaf = leaf;
	return key_hash((uintptr_t)object, vaddr, leaf);
}

static const struct cached_name *cache_find(struct name_cache *nc, const void *object,
					    uint64_t vaddr, bool leaf)
{
	struct cached_name key;
	uint32_t h = cached_key(&key, object, vaddr, leaf);
	struct idslot *sl;
	bool found;

	if (!nc->n || idtable_reserve(&nc->idx))
		return NULL;
	sl = idtable_probe(&nc->idx, h, cached_eq, nc, &key, &found);
	return found ? &nc->v[sl->id1 - 1] : NULL;
}

/* Keep the names of (object, vaddr, leaf): ids[0..n), root first. 0 or -ENOMEM. */
static int cache_add(struct name_cache *nc, const void *object, uint64_t vaddr, bool leaf,
		     bool entry, const uint32_t *ids, uint32_t n)
{
	struct cached_name key;
	uint32_t h = cached_key(&key, object, vaddr, leaf);
	struct idslot *sl;
	bool found;

	if (nc->n >= nc->max) {
		/* full: start again rather than grow without bound */
		idtable_free(&nc->idx);
		memset(&nc->idx, 0, sizeof(nc->idx));
		nc->n = 0;
		nc->n_pool = 0;
		nc->resets++;
	}
	if (idtable_reserve(&nc->idx))
		return -ENOMEM;
	sl = idtable_probe(&nc->idx, h, cached_eq, nc, &key, &found);
	if (found)
		return 0;
	if (array_grow((void **)&nc->v, &nc->cap, nc->n + 1, sizeof(*nc->v)) ||
	    array_grow((void **)&nc->pool, &nc->cap_pool, nc->n_pool + n, sizeof(*nc->pool)))
		return -ENOMEM;
	key.entry = entry;
	key.first = (uint32_t)nc->n_pool;
	key.n = n;
	memcpy(&nc->pool[nc->n_pool], ids, n * sizeof(*ids));
	nc->n_pool += n;
	nc->v[nc->n] = key;
	idtable_fill(&nc->idx, sl, h, (uint32_t)nc->n);
	nc->n++;
	return 0;
}

struct agg {
	const struct drain *d;
	struct symbolizer *sy;
	const struct aggregate_opts *o;
	struct profile *prof;
	struct name_cache *nc; /* o->cache, or this drain's own */
	struct aggregate_stats st;
	bool hurry; /* name from symbol tables only from now on (aggregate_hurry) */
	struct idtable cache;
	struct named_addr *named;
	size_t n_named, cap_named;
	uint32_t *pool;
	size_t n_pool, cap_pool;
	/* the DWARF-walked stack of the count being added, where the drain keeps it */
	const uint64_t *dips;
	size_t dlen;
	uint32_t dend;
	struct cp_rt_stack rt;
	struct rt_mframe merged[CP_MAX_USTACK_DEPTH + CP_RT_MAX_FRAMES + 1];
	uint64_t pcs[CP_MAX_USTACK_DEPTH];
	/* cut_unknown's answer for each user frame it looked up: a->named's index, reused */
	uint32_t uidx[CP_MAX_USTACK_DEPTH];
	char rtname[300];
	char labels[LABELSET_MAX_LEN]; /* the labels of the count being added */
	bool rt_unnamed;	       /* an interpreter frame of this sample could not be named */
	struct sym_frame chain[MAX_CHAIN];
	uint32_t frames[MAX_FRAMES];
};

static const char *stack_error(int32_t id)
{
	switch (-id) {
	case EEXIST:
		return "hash collision";
	case ENOMEM:
		return "stack map full";
	case EFAULT:
		return "unreadable";
	case ENOENT:
		return "missing";
	default:
		return "error";
	}
}

static int add_pseudo(struct agg *a, const char *name, uint32_t *n)
{
	struct prof_frame f = {.name = name, .kind = FRAME_PSEUDO};

	return profile__intern_frame(a->prof, &f, &a->frames[(*n)++]);
}

static const enum prof_map_kind map_kinds[] = {
	[SYM_MAP_NONE] = PMAP_UNKNOWN,	  [SYM_MAP_FILE] = PMAP_FILE,
	[SYM_MAP_ANON] = PMAP_ANON,	  [SYM_MAP_VDSO] = PMAP_VDSO,
	[SYM_MAP_SPECIAL] = PMAP_SPECIAL, [SYM_MAP_KERNEL] = PMAP_KERNEL,
};

/* The profile's mapping for a frame (id + 1), 0 when no mapping holds its address. */
static int frame_mapping(struct agg *a, uint32_t pid, const struct sym_frame *sf, uint32_t *out)
{
	struct prof_mapping m = {
		/* one kernel mapping for every process */
		.pid = sf->map_kind == SYM_MAP_KERNEL ? 0 : pid,
		.kind = map_kinds[sf->map_kind],
		.start = sf->map_start,
		.limit = sf->map_end,
		.offset = sf->map_offset,
		.path = sf->map_path,
		.build_id = sf->build_id,
		.go_version = sf->go_version,
	};
	uint32_t id;
	int err;

	*out = 0;
	if (sf->map_kind == SYM_MAP_NONE)
		return 0;
	err = profile__intern_mapping(a->prof, &m, &id);
	if (!err)
		*out = id + 1;
	return err;
}

/* The profile's mapping (id + 1) of an object's frame: the object's, in its own addresses. */
static int place_mapping(struct agg *a, const struct sym_place *pl, const struct sym_frame *sf,
			 uint32_t *out)
{
	struct prof_mapping m = {
		.pid = pl->pid,
		.kind = map_kinds[sf->map_kind],
		.start = pl->start,
		.limit = pl->limit,
		.offset = pl->offset,
		.path = pl->path,
		.build_id = pl->build_id,
		.go_version = pl->go_version,
	};
	uint32_t id;
	int err = profile__intern_mapping(a->prof, &m, &id);

	*out = err ? 0 : id + 1;
	return err;
}

static bool named_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct named_addr *x = &((const struct agg *)ctx)->named[id], *y = key;

	return x->addr == y->addr && x->pid == y->pid && x->gen == y->gen && x->leaf == y->leaf;
}

/*
 * Functions a complete user stack starts with, per runtime (listed in the man page, section
 * OUTPUT): where the kernel starts a program or a thread, or where a runtime begins a stack
 * of its own. The same rule for every unwinder: the outermost frame kept, once named.
 */
static bool is_entry_point(const char *name)
{
	static const char *const entries[] = {
		/* glibc: the program (_start, or the first named frame of a stripped one) */
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"_dl_start_user",
		/* glibc and musl: a thread, and the clone that began it */
		"start_thread",
		"clone3",
		"clone",
		"__clone",
		"__clone3",
		/* musl: the C start of the program */
		"_start_c",
		/*
		 * Go: a goroutine, the first thread's and other threads' system stacks, and
		 * the clone that began a thread; assembly functions carry an ABI suffix
		 */
		"runtime.goexit",
		"runtime.goexit.abi0",
		"runtime.rt0_go",
		"runtime.rt0_go.abi0",
		"runtime.mstart",
		"runtime.mstart.abi0",
		/*
		 * a goroutine parked (mcall switched to g0), or descheduled while its stack grew:
		 * Go's traceback ends there too
		 */
		"runtime.mcall",
		"runtime.morestack",
		"runtime.morestack.abi0",
		"runtime.clone",
		"runtime.clone.abi0",
	};

	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(name, entries[i]))
			return true;
	return false;
}

/*
 * Intern the frames of chain (innermost first, n of them) of an address of process pid (or
 * the kernel), placed at pl, into ids (root first: the profile wants the real function
 * first, its inlined callees after it).
 */
static int intern_chain(struct agg *a, const struct sym_place *pl, bool kernel, uint32_t pid,
			uint64_t addr, const struct sym_frame *chain, size_t n, uint32_t *ids)
{
	bool object = pl->object && !kernel;
	int err;

	for (size_t j = n; j-- > 0;) {
		const struct sym_frame *sf = &chain[j];
		struct prof_frame f = {
			.name = sf->name,
			.module = sf->module,
			.addr = object ? pl->vaddr : addr,
			.rel = sf->rel,
			.kind = kernel ? FRAME_KERNEL : FRAME_USER,
			.named = sf->named,
			.inlined = sf->inlined,
			.mangled = sf->mangled,
			.file = sf->file,
			.line = sf->line,
			.column = sf->column,
		};

		err = object ? place_mapping(a, pl, sf, &f.mapping)
			     : frame_mapping(a, kernel ? 0 : pid, sf, &f.mapping);
		if (!err)
			err = profile__intern_frame(a->prof, &f, ids++);
		if (err)
			return err;
	}
	return 0;
}

/* An address named before (this drain or an earlier one): its frames from the cache. */
static int use_cached(struct agg *a, struct named_addr *na, const struct cached_name *cn,
		      bool kernel)
{
	if (array_grow((void **)&a->pool, &a->cap_pool, a->n_pool + cn->n, sizeof(*a->pool)))
		return -ENOMEM;
	na->first = (uint32_t)a->n_pool;
	na->n = cn->n;
	na->entry = cn->entry;
	na->known = !kernel;
	na->anon = false;
	memcpy(&a->pool[a->n_pool], &a->nc->pool[cn->first], cn->n * sizeof(*a->pool));
	a->n_pool += cn->n;
	return 0;
}

/*
 * Name one address: the frame chain, interned, root first, into a->pool. An address of an
 * object (or the kernel) is named once per profile (a->nc): its frames carry the object's
 * virtual address and mapping, so every process of a program shares them.
 */
static int name_address(struct agg *a, struct named_addr *na, bool kernel)
{
	struct sym_place pl = {0};
	const struct cached_name *cn;
	unsigned long faults;
	bool retried = false;
	size_t n = 1;
	int err;

	if (kernel) {
		pl.object = &kernel_object;
		pl.vaddr = na->addr;
	} else {
		err = symbolizer__place(a->sy, na->pid, na->gen, na->addr, na->leaf, &pl);
		if (err)
			return err;
	}
	cn = pl.object ? cache_find(a->nc, pl.object, pl.vaddr, na->leaf) : NULL;
	if (cn)
		return use_cached(a, na, cn, kernel);
again:
	faults = fmap_fault_count();
	if (kernel) {
		err = symbolizer__kernel(a->sy, na->addr, na->leaf, &a->chain[0]);
	} else if (a->hurry) {
		err = symbolizer__user(a->sy, na->pid, na->gen, na->addr, na->leaf, &a->chain[0]);
		a->st.hurried++;
	} else {
		err = symbolizer__user_chain(a->sy, na->pid, na->gen, na->addr, na->leaf, a->chain,
					     MAX_CHAIN, &n);
	}
	if (err)
		return err;
	if (array_grow((void **)&a->pool, &a->cap_pool, a->n_pool + n, sizeof(*a->pool)))
		return -ENOMEM;
	na->first = (uint32_t)a->n_pool;
	na->n = (uint32_t)n;
	na->entry = !kernel && a->chain[n - 1].named && is_entry_point(a->chain[n - 1].name);
	/* JIT code mapped after the last read of the mappings is known by its perf map name */
	na->known = !kernel && (a->chain[0].map_kind != SYM_MAP_NONE || a->chain[0].named);
	na->anon = !kernel && a->chain[0].map_kind == SYM_MAP_ANON && !a->chain[0].named;
	err = intern_chain(a, &pl, kernel, na->pid, na->addr, a->chain, n, &a->pool[a->n_pool]);
	if (err)
		return err;
	/*
	 * The names point into the objects' mapped files: one truncated meanwhile read as zeros
	 * (util/fmap.h). Named again, its object now answers object+offset.
	 */
	if (fmap_fault_count() != faults && !retried) {
		retried = true;
		goto again;
	}
	a->n_pool += n;
	if (pl.object)
		return cache_add(a->nc, pl.object, pl.vaddr, na->leaf, na->entry,
				 &a->pool[na->first], na->n);
	return 0;
}

/* The cache entry of one address (index in a->named), named at its first use. */
static int find_address(struct agg *a, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
			bool kernel, size_t *idx)
{
	struct named_addr key, *na;
	uint32_t h;
	struct idslot *sl;
	bool found;
	int err;

	/* zeroed: stored whole in a->named */
	memset(&key, 0, sizeof(key));
	key.pid = kernel ? KERNEL_PID : pid;
	key.gen = kernel ? 0 : gen;
	key.addr = addr;
	key.leaf = leaf;
	h = key_hash((uint64_t)key.pid << 32 | key.gen, key.addr, key.leaf);
	if (idtable_reserve(&a->cache))
		return -ENOMEM;
	sl = idtable_probe(&a->cache, h, named_eq, a, &key, &found);
	if (found) {
		*idx = sl->id1 - 1;
		return 0;
	}
	if (array_grow((void **)&a->named, &a->cap_named, a->n_named + 1, sizeof(*a->named)))
		return -ENOMEM;
	na = &a->named[a->n_named];
	*na = key;
	err = name_address(a, na, kernel);
	if (err)
		return err;
	idtable_fill(&a->cache, sl, h, (uint32_t)a->n_named);
	*idx = a->n_named++;
	return 0;
}

/* Append the frames of a->named[idx] (root first) to the sample being built. */
static int add_named(struct agg *a, size_t idx, uint32_t *n, bool *entry)
{
	const struct named_addr *na = &a->named[idx];

	if (entry)
		*entry = na->entry;
	if (*n + na->n > MAX_FRAMES)
		return -E2BIG;
	memcpy(&a->frames[*n], &a->pool[na->first], na->n * sizeof(*a->pool));
	*n += na->n;
	return 0;
}

/* Append the frames of one address (root first) to the sample being built. */
static int add_address(struct agg *a, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		       bool kernel, uint32_t *n, bool *entry)
{
	size_t idx;
	int err;

	err = find_address(a, pid, gen, addr, leaf, kernel, &idx);
	return err ? err : add_named(a, idx, n, entry);
}

/*
 * Frames of a user stack (leaf first) that may be kept: those in executable mappings of the
 * process up to the first that is not (a frame-pointer walk read something that was no frame;
 * a leaf outside them is the previous program's pc in a sample taken during execve, or
 * memory never seen mapped). *depth is cut there; the pseudo-frame that says so in *why.
 */
/* Count count samples of k's process with frames in anonymous memory no perf map names. */
static void count_anon(struct aggregate_stats *st, const struct cp_count_key *k, uint64_t count)
{
	st->anon_samples += count;
	for (int i = 0; i < AGG_ANON_PROCS; i++) {
		struct agg_anon_proc *p = &st->anon[i];

		if (p->samples && p->pid != k->pid)
			continue;
		if (!p->samples) {
			p->pid = k->pid;
			memcpy(p->comm, k->comm, sizeof(p->comm));
			p->comm[sizeof(p->comm) - 1] = 0;
		}
		p->samples += count;
		return;
	}
}

static int cut_unknown(struct agg *a, const struct cp_count_key *k, const uint64_t *ips,
		       size_t *depth, const char **why, uint64_t count)
{
	bool anon = false;
	size_t idx;
	int err;

	*why = NULL;
	for (size_t i = 0; i < *depth; i++) {
		err = find_address(a, k->pid, k->gen, ips[i] & ~CP_IP_EXACT,
				   i == 0 || (ips[i] & CP_IP_EXACT), false, &idx);
		if (err)
			return err;
		if (i < CP_MAX_USTACK_DEPTH)
			a->uidx[i] = (uint32_t)idx;
		anon |= a->named[idx].anon;
		if (!a->named[idx].known) {
			*why = i ? "[truncated: bad return address]"
				 : "[truncated: pc outside the mappings]";
			*depth = i;
			break;
		}
	}
	/* a runtime's frames stand for its code's (the JIT hook's pseudo pcs are there) */
	if (anon && k->istack_kind == CP_RT_NONE)
		count_anon(&a->st, k, count);
	else if (k->istack_kind != CP_RT_NONE && a->st.anon_samples)
		for (int i = 0; i < AGG_ANON_PROCS; i++)
			if (a->st.anon[i].samples && a->st.anon[i].pid == k->pid)
				a->st.anon[i].walked += count;
	return 0;
}

/* Pseudo-frame at the root of a DWARF-walked stack that ended early, NULL if it did not. */
static const char *dwarf_end_name(uint32_t end)
{
	switch (end) {
	case CP_DEND_OK:
		return NULL;
	case CP_DEND_TRUNCATED:
		return "[truncated]";
	case CP_DEND_NO_MAPPING:
		return "[unwind-failed: no mapping]";
	case CP_DEND_NOT_COVERED:
		return "[unwind-failed: no unwind info]";
	case CP_DEND_UNSUPPORTED:
		return "[unwind-failed: unsupported rule]";
	case CP_DEND_READ:
		return "[unwind-failed: stack unreadable]";
	case CP_DEND_LOOP:
		return "[unwind-failed: loop]";
	case CP_DEND_BAD_FP:
		return "[truncated: bad frame pointer]";
	case CP_DEND_BAD_RA:
		return "[truncated: bad return address]";
	default:
		return "[unwind-failed: unknown]";
	}
}

/* The profile's kind of runtime id's frames. */
static enum frame_kind rt_frame_kind(uint32_t id)
{
	switch (id) {
	case CP_RT_RUBY:
		return FRAME_RUBY;
	case CP_RT_PHP:
		return FRAME_PHP;
	case CP_RT_PERL:
		return FRAME_PERL;
	case CP_RT_V8:
		return FRAME_JS;
	case CP_RT_JAVA:
		return FRAME_JAVA;
	}
	return FRAME_PYTHON;
}

/*
 * An interpreter frame: "PREFIX::NAME" (the documented form, README "Python", "Ruby"), with its
 * file and line, and no address: a code object's address differs in every process, so keeping
 * it made every run of a script a stack of its own (ended processes are merged per stack,
 * README "Memory") and the profile grew with the processes, not with the distinct stacks. A
 * frame that cannot be named is counted per reason and keeps its runtime: "PREFIX::[unknown]".
 */
static int add_rt_frame(struct agg *a, const struct cp_count_key *k, const struct runtime *rt,
			const struct cp_rt_frame *rf, uint64_t count, uint32_t *n)
{
	const struct rt_frame_info *fi = NULL;
	struct prof_frame f = {.kind = rt_frame_kind(rt->id),
			       .named = true,
			       .inlined = (rf->flags & CP_RT_FF_INLINED) != 0};
	int err = a->o->rt_name(a->o->rt_ctx, k->pid, k->gen, rf, &fi);

	a->st.rt_frames[rt->id] += count;
	if (err || !fi) {
		a->st.rt_unnamed[rt->id][err == -ESRCH	   ? RT_UNNAMED_GONE
					 : err == -ENOENT  ? RT_UNNAMED_NO_PROC
					 : err == -ENODATA ? RT_UNNAMED_NOT_COPIED
							   : RT_UNNAMED_UNREADABLE] += count;
		snprintf(a->rtname, sizeof(a->rtname), "%s::[unknown]", rt->prefix);
		f.name = a->rtname;
		f.named = false;
		a->rt_unnamed = true;
	} else {
		snprintf(a->rtname, sizeof(a->rtname), "%s::%s", rt->prefix, fi->name);
		f.name = a->rtname;
		if (fi->file[0]) {
			f.file = fi->file;
			f.module = fi->file;
		}
		f.line = fi->line > 0 ? (uint32_t)fi->line : 0;
		f.start_line = fi->firstline > 0 ? (uint32_t)fi->firstline : 0;
		f.column = fi->column > 0 ? (uint32_t)fi->column : 0;
	}
	if (*n >= MAX_FRAMES)
		return -E2BIG;
	return profile__intern_frame(a->prof, &f, &a->frames[(*n)++]);
}

/*
 * Whether native frame id only forwards into runtime rt's loop: its perf map's entries
 * ("py::dump:/.../json/__init__.py" under python3.12 -X perf) and its trampolines. The walker
 * saw the frame they stand for: kept, it would appear twice.
 */
static bool rt_glue(const struct agg *a, const struct runtime *rt, uint32_t id)
{
	const struct prof_frame *f = profile__frame(a->prof, id);
	size_t len = strlen(rt->prefix);

	if (!f || !f->name)
		return false;
	if (!strncmp(f->name, rt->prefix, len) && !strncmp(f->name + len, "::", 2))
		return true;
	for (const char *const *g = rt->glue; g && *g; g++)
		if (!strcmp(f->name, *g))
			return true;
	return false;
}

/*
 * Adds the m frames of a->merged, outermost first: interpreter frames of a->rt, the native
 * ones from a->dips (less runtime rt's glue), a cut interpreter walk as its pseudo-frame.
 */
static int add_merged_frames(struct agg *a, const struct cp_count_key *k, const struct runtime *rt,
			     const char *end, size_t m, uint64_t count, uint32_t *n)
{
	for (size_t j = m; j-- > 0;) {
		const struct rt_mframe *mf = &a->merged[j];
		uint32_t before = *n, kept;
		uint64_t ip;
		bool entry = false;
		int err;

		if (mf->kind == RT_MF_TRUNCATED) {
			err = add_pseudo(a, rt->truncated, n);
		} else if (mf->kind == RT_MF_INTERP) {
			err = add_rt_frame(a, k, rt, &a->rt.frames[mf->index % CP_RT_MAX_FRAMES],
					   count, n);
		} else {
			ip = a->dips[mf->index % a->dlen];
			err = add_address(a, k->pid, k->gen, ip & ~CP_IP_EXACT,
					  mf->index == 0 || (ip & CP_IP_EXACT), false, n,
					  j == m - 1 && !end ? &entry : NULL);
			if (entry)
				a->st.ustacks_entry += count;
			kept = before;
			for (uint32_t i = before; !err && i < *n; i++) {
				if (rt_glue(a, rt, a->frames[i]))
					a->st.rt_glue[rt->id] += count;
				else
					a->frames[kept++] = a->frames[i];
			}
			if (!err)
				*n = kept;
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * A DWARF-walked user stack with the sample's interpreter frames put in place of its
 * runtime's loop activations (interp/interp_merge.h). 1 when there are none to merge.
 */
static int add_merged_stack(struct agg *a, const struct cp_count_key *k, const char *end,
			    size_t depth, uint64_t count, uint32_t *n)
{
	const struct runtime *rt = runtime_of(k->istack_kind);
	struct rt_eval_range ev;
	const void *proc;
	size_t m;
	int err;

	if (!k->istack || !rt || !a->o->rt_proc || !a->d->rt_stack)
		return 1;
	proc = a->o->rt_proc(a->o->rt_ctx, rt->id, k->pid, k->gen);
	if (!proc || a->d->rt_stack(a->d->ctx, k->istack, &a->rt) || !a->rt.len)
		return 1;
	rt->eval(proc, &ev);
	for (size_t i = 0; i < depth; i++)
		a->pcs[i] = a->dips[i] & ~CP_IP_EXACT;
	m = interp_merge(a->pcs, depth, !end && depth == a->dlen, a->rt.frames, a->rt.len,
			 a->rt.end == rt->end_truncated, &ev, a->merged,
			 sizeof(a->merged) / sizeof(a->merged[0]), NULL);
	a->st.rt_stacks[rt->id] += count;
	a->rt_unnamed = false;
	err = add_merged_frames(a, k, rt, end, m, count, n);
	if (a->rt_unnamed)
		a->st.rt_unnamed_samples[rt->id] += count;
	return err;
}

/* A user stack walked in BPF with the unwind tables (--unwind dwarf). */
static int add_dwarf_stack(struct agg *a, const struct cp_count_key *k, uint64_t count, uint32_t *n)
{
	const char *end, *cut;
	size_t depth;
	int err;

	if (a->d->dwarf_stack(a->d->ctx, k->dstack, &a->dips, &a->dlen, &a->dend) || !a->dlen) {
		a->st.stacks_missing += count;
		a->st.ustacks += count;
		return add_pseudo(a, "[user stack lost: missing]", n);
	}
	depth = a->dlen > CP_MAX_USTACK_DEPTH ? CP_MAX_USTACK_DEPTH : a->dlen;
	err = cut_unknown(a, k, a->dips, &depth, &cut, count);
	if (err)
		return err;
	if (a->dend != CP_DEND_OK && a->dend < CP_DEND_MAX)
		a->st.kept[CP_STAT_DWARF_OK + a->dend] += count;
	end = cut ? cut : dwarf_end_name(a->dend);
	if (cut)
		a->st.bad_ra += count;
	if (end) {
		err = add_pseudo(a, end, n);
		if (err)
			return err;
	}
	a->st.ustacks += count;
	err = add_merged_stack(a, k, end, depth, count, n);
	if (err <= 0)
		return err;
	/* depth <= CP_MAX_USTACK_DEPTH: every frame's name as cut_unknown found it */
	for (size_t i = depth; i-- > 0;) {
		bool entry = false;

		err = add_named(a, a->uidx[i], n, i == depth - 1 && !end ? &entry : NULL);
		if (err)
			return err;
		if (entry)
			a->st.ustacks_entry += count;
	}
	return 0;
}

/*
 * The frames of a stack map's ips[0, depth) (leaf first), root first; a user stack's as
 * cut_unknown looked them up.
 */
static int add_frames(struct agg *a, const struct cp_count_key *k, const uint64_t *ips,
		      size_t depth, bool kernel, bool truncated, uint64_t count, uint32_t *n)
{
	int err;

	for (size_t i = depth; i-- > 0;) {
		bool entry = false;
		bool *want = !kernel && i == depth - 1 && !truncated ? &entry : NULL;

		/* a user frame's name as cut_unknown found it (its key had no CP_IP_EXACT) */
		if (!kernel && i < CP_MAX_USTACK_DEPTH && !(ips[i] & CP_IP_EXACT))
			err = add_named(a, a->uidx[i], n, want);
		else
			err = add_address(a, k->pid, k->gen, ips[i], i == 0, kernel, n, want);
		if (err)
			return err;
		if (entry)
			a->st.ustacks_entry += count;
	}
	return 0;
}

static int add_stack(struct agg *a, const struct cp_count_key *k, uint64_t count, bool kernel,
		     uint32_t *n)
{
	int32_t id = kernel ? k->kstack_id : k->ustack_id;
	const uint64_t *ips = NULL;
	char pseudo[64];
	const char *cut = NULL;
	bool truncated;
	size_t depth;
	int err;

	if (id == CP_STACK_NONE)
		return 0;
	if (!kernel && id == CP_STACK_DWARF)
		return add_dwarf_stack(a, k, count, n);
	if (id >= 0 && (a->d->stack(a->d->ctx, kernel, id, &ips, &depth) || !depth)) {
		a->st.stacks_missing += count;
		id = -ENOENT;
	}
	if (id < 0) {
		if (!kernel)
			a->st.ustacks += count;
		snprintf(pseudo, sizeof(pseudo), "[%s stack lost: %s]", kernel ? "kernel" : "user",
			 stack_error(id));
		return add_pseudo(a, pseudo, n);
	}
	/* the outermost callers are the ones lost: mark the root end */
	truncated = depth >= a->o->max_depth;
	if (!kernel) {
		err = cut_unknown(a, k, ips, &depth, &cut, count);
		if (err)
			return err;
		if (cut) {
			a->st.bad_ra += count;
			truncated = true;
		}
	}
	if (truncated) {
		err = add_pseudo(a,
				 kernel ? "[kernel stack truncated]"
				 : cut	? cut
					: "[user stack truncated]",
				 n);
		if (err)
			return err;
	}
	if (!kernel)
		a->st.ustacks += count;
	return add_frames(a, k, ips, depth, kernel, truncated, count, n);
}

/* The stack errors a kept sample's key carries, as the BPF side counted them (stat_inc). */
static void count_key_damage(struct aggregate_stats *st, const struct cp_count_key *k,
			     uint64_t count)
{
	static const uint8_t user[] = {CP_STAT_USTACK_COLLISION, CP_STAT_USTACK_FULL,
				       CP_STAT_USTACK_FAULT, CP_STAT_USTACK_ERROR};
	static const uint8_t kernel[] = {CP_STAT_KSTACK_COLLISION, CP_STAT_KSTACK_FULL,
					 CP_STAT_KSTACK_FAULT, CP_STAT_KSTACK_FAULT};
	const int32_t ids[2] = {k->ustack_id, k->kstack_id};

	for (int i = 0; i < 2; i++) {
		const uint8_t *which = i ? kernel : user;
		int32_t id = ids[i];

		if (id >= 0 || id == CP_STACK_NONE || id == CP_STACK_DWARF)
			continue;
		st->kept[which[id == -EEXIST   ? 0
			       : id == -ENOMEM ? 1
			       : id == -EFAULT ? 2
					       : 3]] += count;
	}
}

/* The key of a count, kept or not by --comm (decided once, when its addresses were noted). */
/*
 * The goroutine labels of key k as a set (util/labelset.h) in a->labels: "" when none or when
 * the set was lost (counted). A key or value cut by BPF ends in "...".
 */
static void count_labels(struct agg *a, const struct cp_count_key *k, uint64_t count)
{
	char kv[CP_GO_LABELS][2][CP_GO_LABEL_VAL + 4];
	const struct cp_go_labels *gl;
	struct label v[CP_GO_LABELS];
	size_t n = 0;

	a->labels[0] = 0;
	if (!k->labels)
		return;
	if (!a->d->labels || a->d->labels(a->d->ctx, k->labels, &gl)) {
		a->st.labels_lost += count;
		return;
	}
	for (uint32_t i = 0; i < gl->n && i < CP_GO_LABELS; i++) {
		bool cut = gl->cut >> i & 1;

		snprintf(kv[n][0], sizeof(kv[n][0]), "%.*s", CP_GO_LABEL_KEY - 1, gl->l[i].key);
		snprintf(kv[n][1], sizeof(kv[n][1]), "%.*s%s", CP_GO_LABEL_VAL - 1, gl->l[i].val,
			 cut ? "..." : "");
		if (!kv[n][0][0])
			continue;
		v[n].key = kv[n][0];
		v[n].val = kv[n][1];
		n++;
	}
	if (labelset_encode(v, n, a->labels, sizeof(a->labels)))
		a->st.labels_lost += count;
	else if (n)
		a->st.labeled += count;
}

static int add_count(struct agg *a, const struct cp_count_key *k, uint64_t count, bool keep)
{
	char comm[CP_COMM_LEN + 1] = {}, tcomm[CP_COMM_LEN + 1] = {};
	uint32_t n = 0;
	int err;

	if (!keep) {
		a->st.comm_filtered += count;
		return 0;
	}
	memcpy(comm, k->comm, CP_COMM_LEN);
	memcpy(tcomm, k->tcomm, CP_COMM_LEN);
	count_key_damage(&a->st, k, count);
	/* root first: the user stack, then the kernel stack the sample was taken in */
	err = add_stack(a, k, count, false, &n);
	if (!err)
		err = add_stack(a, k, count, true, &n);
	if (!err && n == 0) {
		const char *what = a->o->kernel_only ? "[user space]"
				   : a->o->no_kernel ? "[kernel]"
						     : "[no stack]";

		err = add_pseudo(a, what, &n);
	}
	count_labels(a, k, count);
	if (!err)
		err = profile__add_labeled(a->prof, k->pid, k->tid, comm, tcomm, a->labels,
					   a->frames, n, count);
	return err;
}

/* ---- the steps: naming ahead, in parallel, then adding -------------------------------------- */

/*
 * Each step takes the next counts of the drain until they hold PREFETCH_CHUNK object
 * addresses the cache does not know (or COUNT_CHUNK counts), names those addresses ahead, then
 * adds the counts to the profile: one pass over the counts, each stack read where the drain
 * keeps it. Naming ahead shares the objects of a chunk (by build-id) out among o->jobs threads,
 * one object's addresses all to one thread (an index serves one thread at a time), then the
 * answers are interned and cached in the order the addresses were met, so the profile does
 * not depend on the number of threads. The adding then finds them in the cache. Between steps
 * the caller does what it must (aggregate_hurry among it): nothing here calls back.
 */
#define PREFETCH_CHUNK 256
#define COUNT_CHUNK    256
/* One count notes at most this many addresses past a chunk's PREFETCH_CHUNK. */
#define CHUNK_ROOM        \
	(PREFETCH_CHUNK + \
	 (CP_MAX_USTACK_DEPTH > CP_MAX_STACK_DEPTH ? CP_MAX_USTACK_DEPTH : CP_MAX_STACK_DEPTH))

struct todo {
	uint32_t pid, gen;
	uint64_t addr;
	bool leaf;
	struct sym_place pl;
	const void *group; /* one thread names a group: the build-id, else the object */
	int err;
	size_t n;  /* frames in the answer */
	bool skip; /* placed elsewhere by now: left to the walk */
};

struct prefetch {
	struct agg *a;
	struct todo *v;
	size_t n, cap;
	struct idtable idx; /* (object, vaddr, leaf) -> index in v */
	/* the chunk being named */
	size_t from, to;
	size_t *order;	/* its items, grouped */
	size_t *groups; /* start of each group in order; n_groups + 1 entries */
	size_t n_groups;
	atomic_size_t next; /* the next group to take */
	struct sym_frame (*res)[MAX_CHAIN];
};

static bool todo_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct todo *x = &((const struct prefetch *)ctx)->v[id], *y = key;

	return x->pl.object == y->pl.object && x->pl.vaddr == y->pl.vaddr && x->leaf == y->leaf;
}

/* Note an address to name ahead, unless cached or noted already. */
static int prefetch_note(struct prefetch *pf, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf)
{
	struct todo t = {.pid = pid, .gen = gen, .addr = addr, .leaf = leaf};
	struct cached_name key;
	struct idslot *sl;
	bool found;
	uint32_t h;
	int err;

	err = symbolizer__place(pf->a->sy, pid, gen, addr, leaf, &t.pl);
	if (err || !t.pl.object || cache_find(pf->a->nc, t.pl.object, t.pl.vaddr, leaf))
		return err;
	h = cached_key(&key, t.pl.object, t.pl.vaddr, leaf);
	if (idtable_reserve(&pf->idx))
		return -ENOMEM;
	sl = idtable_probe(&pf->idx, h, todo_eq, pf, &t, &found);
	if (found)
		return 0;
	if (array_grow((void **)&pf->v, &pf->cap, pf->n + 1, sizeof(*pf->v)))
		return -ENOMEM;
	t.group = t.pl.build_id && *t.pl.build_id ? (const void *)t.pl.build_id : t.pl.object;
	pf->v[pf->n] = t;
	idtable_fill(&pf->idx, sl, h, (uint32_t)pf->n++);
	return 0;
}

/* A drain being added, step by step (aggregate.h). */
struct aggregate {
	struct agg a;
	struct prefetch pf;
	bool own_cache; /* a.nc is this drain's own (no o->cache) */
	size_t n_counts;
	bool *keep;    /* per count: --comm matched (asked once per count) */
	size_t noted;  /* counts whose addresses are noted */
	size_t walked; /* counts added to the profile */
};

static void *prefetch_worker(void *arg)
{
	struct prefetch *pf = arg;
	size_t g;

	while ((g = atomic_fetch_add(&pf->next, 1)) < pf->n_groups) {
		for (size_t j = pf->groups[g]; j < pf->groups[g + 1]; j++) {
			size_t i = pf->order[j];
			struct todo *t = &pf->v[i];

			t->err = symbolizer__user_chain(pf->a->sy, t->pid, t->gen, t->addr, t->leaf,
							pf->res[i - pf->from], MAX_CHAIN, &t->n);
		}
	}
	return NULL;
}

/* Name items [from, to) with up to jobs threads (this one among them). */
static void prefetch_chunk(struct prefetch *pf, size_t from, size_t to, unsigned int jobs)
{
	pthread_t th[63];
	unsigned int started = 0;
	size_t n = 0;

	pf->from = from;
	pf->to = to;
	/*
	 * Placed again, here, alone: mappings read since the items were noted may have put another
	 * object at an address (that item is left to the walk), and the threads must each find
	 * only their own group's objects, headers read.
	 */
	for (size_t i = from; i < to; i++) {
		struct todo *t = &pf->v[i];
		struct sym_place pl;

		t->skip = symbolizer__place(pf->a->sy, t->pid, t->gen, t->addr, t->leaf, &pl) ||
			  pl.object != t->pl.object || pl.vaddr != t->pl.vaddr;
		t->n = 0;
		t->err = 0;
	}
	/* group the items, groups in the order they are first met */
	pf->n_groups = 0;
	for (size_t i = from; i < to; i++) {
		bool seen = false;

		if (pf->v[i].skip)
			continue;

		for (size_t j = from; j < i && !seen; j++)
			seen = !pf->v[j].skip && pf->v[j].group == pf->v[i].group;
		if (seen)
			continue;
		pf->groups[pf->n_groups++] = n;
		for (size_t j = i; j < to; j++)
			if (!pf->v[j].skip && pf->v[j].group == pf->v[i].group)
				pf->order[n++] = j;
	}
	pf->groups[pf->n_groups] = n;
	atomic_store(&pf->next, 0);
	if (jobs > pf->n_groups)
		jobs = (unsigned int)pf->n_groups;
	for (unsigned int t = 1; t < jobs && started < 63; t++)
		if (!pthread_create(&th[started], NULL, prefetch_worker, pf))
			started++;
	prefetch_worker(pf);
	for (unsigned int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
}

/* Note the user addresses of count i, as the adding will name them; --comm decided here. */
static int note_count(struct aggregate *g, size_t i)
{
	struct agg *a = &g->a;
	const struct cp_count_key *k;
	char comm[CP_COMM_LEN + 1] = {};
	const uint64_t *ips;
	uint64_t count;
	size_t depth = 0;
	uint32_t end;
	int err;

	err = a->d->count(a->d->ctx, i, &k, &count);
	if (err)
		return err;
	memcpy(comm, k->comm, CP_COMM_LEN);
	/* the final word on --comm: the name the process had when it was sampled */
	g->keep[i] = !a->o->comm_re || regexec(a->o->comm_re, comm, 0, NULL, 0) == 0;
	a->st.comm_checks += a->o->comm_re != NULL;
	if (!g->keep[i] || a->hurry)
		return 0;
	/* a failure to note is met again, and returned, by the adding */
	if (k->ustack_id == CP_STACK_DWARF) {
		if (a->d->dwarf_stack(a->d->ctx, k->dstack, &ips, &depth, &end))
			return 0;
		depth = depth > CP_MAX_USTACK_DEPTH ? CP_MAX_USTACK_DEPTH : depth;
		for (size_t j = 0; !err && j < depth; j++)
			err = prefetch_note(&g->pf, k->pid, k->gen, ips[j] & ~CP_IP_EXACT,
					    j == 0 || (ips[j] & CP_IP_EXACT));
	} else if (k->ustack_id >= 0) {
		if (a->d->stack(a->d->ctx, false, k->ustack_id, &ips, &depth))
			return 0;
		for (size_t j = 0; !err && j < depth; j++)
			err = prefetch_note(&g->pf, k->pid, k->gen, ips[j], j == 0);
	}
	return 0;
}

/* Name items [from, to) of the noted addresses and cache their names. */
static int name_ahead(struct aggregate *g, size_t from, size_t to)
{
	struct prefetch *pf = &g->pf;
	uint32_t ids[MAX_CHAIN];
	unsigned long faults = fmap_fault_count();
	int err = 0;

	prefetch_chunk(pf, from, to, g->a.o->jobs ? g->a.o->jobs : 1);
	for (size_t i = from; !err && i < to; i++) {
		const struct todo *t = &pf->v[i];
		const struct sym_frame *chain = pf->res[i - from];
		bool entry;

		/* a failure is met again, and returned, by the adding */
		if (t->skip || t->err || !t->n)
			continue;
		entry = chain[t->n - 1].named && is_entry_point(chain[t->n - 1].name);
		err = intern_chain(&g->a, &t->pl, false, t->pid, t->addr, chain, t->n, ids);
		/*
		 * a file shrank under the naming or the copying of names (which point into it):
		 * the adding names the rest of the chunk again
		 */
		if (!err && fmap_fault_count() != faults)
			continue;
		if (!err)
			err = cache_add(g->a.nc, t->pl.object, t->pl.vaddr, t->leaf, entry, ids,
					(uint32_t)t->n);
	}
	return err;
}

int aggregate_begin(const struct drain *d, struct symbolizer *sy, const struct aggregate_opts *o,
		    struct profile *p, struct aggregate **out)
{
	struct aggregate *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->a = (struct agg){.d = d, .sy = sy, .o = o, .prof = p};
	g->a.nc = o->cache ? o->cache : name_cache__new(SIZE_MAX);
	g->own_cache = !o->cache;
	g->pf.a = &g->a;
	g->n_counts = d->n_counts(d->ctx);
	g->keep = calloc(g->n_counts ? g->n_counts : 1, sizeof(*g->keep));
	g->pf.order = malloc(CHUNK_ROOM * sizeof(*g->pf.order));
	g->pf.groups = malloc((CHUNK_ROOM + 1) * sizeof(*g->pf.groups));
	g->pf.res = malloc(CHUNK_ROOM * sizeof(*g->pf.res));
	if (!g->a.nc || !g->keep || !g->pf.order || !g->pf.groups || !g->pf.res) {
		aggregate_end(g, NULL);
		return -ENOMEM;
	}
	*out = g;
	return 0;
}

int aggregate_step(struct aggregate *g)
{
	size_t from = g->pf.n;
	int err = 0, read_err = 0;

	while (g->noted < g->n_counts && g->pf.n - from < PREFETCH_CHUNK &&
	       g->noted - g->walked < COUNT_CHUNK) {
		/* a failed read of the drain ends the walk once the counts before it are added */
		read_err = note_count(g, g->noted);
		if (read_err)
			break;
		g->noted++;
	}
	if (!g->a.hurry && g->pf.n > from)
		err = name_ahead(g, from, g->pf.n);
	for (; !err && g->walked < g->noted; g->walked++) {
		const struct cp_count_key *k;
		uint64_t count;

		err = g->a.d->count(g->a.d->ctx, g->walked, &k, &count);
		if (!err)
			err = add_count(&g->a, k, count, g->keep[g->walked]);
	}
	if (!err)
		err = read_err;
	if (err)
		return err;
	return g->walked < g->n_counts;
}

void aggregate_hurry(struct aggregate *g)
{
	g->a.hurry = true;
}

bool aggregate_hurried(const struct aggregate *g)
{
	return g->a.hurry;
}

void aggregate_end(struct aggregate *g, struct aggregate_stats *st)
{
	if (!g)
		return;
	if (st)
		*st = g->a.st;
	if (g->own_cache)
		name_cache__free(g->a.nc);
	idtable_free(&g->a.cache);
	free(g->a.named);
	free(g->a.pool);
	idtable_free(&g->pf.idx);
	free(g->pf.v);
	free(g->pf.order);
	free(g->pf.groups);
	free(g->pf.res);
	free(g->keep);
	free(g);
}

int aggregate_counts(const struct drain *d, struct symbolizer *sy, const struct aggregate_opts *o,
		     struct profile *p, struct aggregate_stats *st)
{
	struct aggregate *g;
	int err = aggregate_begin(d, sy, o, p, &g);

	memset(st, 0, sizeof(*st));
	if (err)
		return err;
	do
		err = aggregate_step(g);
	while (err > 0);
	aggregate_end(g, st);
	return err;
}

void aggregate_stats_add(struct aggregate_stats *to, const struct aggregate_stats *from)
{
	to->comm_filtered += from->comm_filtered;
	to->comm_checks += from->comm_checks;
	to->stacks_missing += from->stacks_missing;
	to->ustacks += from->ustacks;
	to->ustacks_entry += from->ustacks_entry;
	to->hurried += from->hurried;
	for (int i = 0; i < CP_STAT_MAX; i++)
		to->kept[i] += from->kept[i];
	to->bad_ra += from->bad_ra;
	for (int i = 0; i < AGG_ANON_PROCS && from->anon_samples; i++) {
		const struct agg_anon_proc *p = &from->anon[i];
		struct cp_count_key k = {.pid = p->pid};

		if (!p->samples)
			continue;
		memcpy(k.comm, p->comm, sizeof(p->comm));
		count_anon(to, &k, p->samples);
		to->anon_samples -= p->samples;
		for (int j = 0; j < AGG_ANON_PROCS; j++)
			if (to->anon[j].samples && to->anon[j].pid == p->pid)
				to->anon[j].walked += p->walked;
	}
	to->anon_samples += from->anon_samples;
	to->labeled += from->labeled;
	to->labels_lost += from->labels_lost;
	for (int i = 0; i < CP_RT_MAX; i++) {
		to->rt_stacks[i] += from->rt_stacks[i];
		to->rt_frames[i] += from->rt_frames[i];
		to->rt_glue[i] += from->rt_glue[i];
		to->rt_unnamed_samples[i] += from->rt_unnamed_samples[i];
		for (int j = 0; j < RT_UNNAMED_MAX; j++)
			to->rt_unnamed[i][j] += from->rt_unnamed[i][j];
	}
}
