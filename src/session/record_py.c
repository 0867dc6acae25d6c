// SPDX-License-Identifier: GPL-2.0
/*
 * --python during a recording: find CPython in each process whose mappings were read and give
 * the BPF walker its cp_py_proc (retried while the interpreter is not initialised yet, right
 * after exec), and name the code objects of the Python stacks BPF stored as they appear, while
 * their processes are alive (a short-lived one is gone by the end). The drain takes the names
 * from here (record_py_name).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interp/py_detect.h"
#include "interp/py_offsets.h"
#include "interp/py_proc.h"
#include "session/record_int.h"
#include "session/record_py.h"
#include "util/grow.h"
#include "util/log.h"

/* Attempts of a process whose interpreter is not initialised yet, one a tick at most. */
#define PY_MAX_TRIES 100
/*
 * The cache of objects without CPython is off: with it, pyenv's static python3.7 was never
 * attached (not understood yet; see the branch's report).
 */
#define PY_PLAIN_CACHE 0
/* Time a tick spends on pending processes at most. */
#define PY_TICK_NS 10000000ull

static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A set of nonzero 64-bit keys, open addressing. */
struct u64set {
	uint64_t *v;
	size_t n, cap;
};

struct py_known {
	uint32_t pid, gen;
	struct cp_py_proc pp;
};

struct py_pending {
	uint32_t pid, gen;
	unsigned int tries;
};

struct py_named {
	uint32_t pid, gen;
	uint64_t code;
	uint32_t instr;
	int err; /* 0: info holds the names */
	struct py_code_info info;
};

struct record_py {
	struct py_known *known;
	size_t n_known, cap_known;
	struct py_pending *pending;
	size_t n_pending, cap_pending;
	/* names by (pid, gen, code, instr), open addressing on indexes + 1 */
	struct py_named *named;
	size_t n_named, cap_named;
	uint32_t *slots;
	size_t n_slots;
	struct u64set seen; /* pystacks keys already named */
	/* objects (dev, ino) of processes found without CPython: not opened again */
	struct u64set plain;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* Add key (0 stands for 1); false when it was there already, or on no memory. */
static bool set_add(struct u64set *st, uint64_t key)
{
	size_t j;

	key = key ? key : 1;
	if ((st->n + 1) * 2 > st->cap) {
		size_t n = st->cap ? st->cap * 2 : 1024;
		uint64_t *v = calloc(n, sizeof(*v));

		if (!v)
			return false;
		for (size_t i = 0; i < st->cap; i++) {
			if (!st->v[i])
				continue;
			for (j = mix(st->v[i]) & (n - 1); v[j]; j = (j + 1) & (n - 1))
				;
			v[j] = st->v[i];
		}
		free(st->v);
		st->v = v;
		st->cap = n;
	}
	for (j = mix(key) & (st->cap - 1); st->v[j]; j = (j + 1) & (st->cap - 1))
		if (st->v[j] == key)
			return false;
	st->v[j] = key;
	st->n++;
	return true;
}

static bool set_has(const struct u64set *st, uint64_t key)
{
	key = key ? key : 1;
	if (!st->cap)
		return false;
	for (size_t j = mix(key) & (st->cap - 1); st->v[j]; j = (j + 1) & (st->cap - 1))
		if (st->v[j] == key)
			return true;
	return false;
}

static uint64_t named_hash(uint32_t pid, uint32_t gen, uint64_t code, uint32_t instr)
{
	return mix(code ^ mix(((uint64_t)pid << 32 | gen) ^ mix(instr)));
}

static int named_rehash(struct record_py *p, size_t n)
{
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_named; i++) {
		const struct py_named *x = &p->named[i];
		size_t j = named_hash(x->pid, x->gen, x->code, x->instr) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(p->slots);
	p->slots = slots;
	p->n_slots = n;
	return 0;
}

/* The entry of (pid, gen, code, instr), or NULL; *slot gets where it would go. */
static struct py_named *named_find(struct record_py *p, uint32_t pid, uint32_t gen, uint64_t code,
				   uint32_t instr, size_t *slot)
{
	size_t j;

	if (!p->n_slots)
		return NULL;
	j = named_hash(pid, gen, code, instr) & (p->n_slots - 1);
	for (; p->slots[j]; j = (j + 1) & (p->n_slots - 1)) {
		struct py_named *x = &p->named[p->slots[j] - 1];

		if (x->pid == pid && x->gen == gen && x->code == code && x->instr == instr)
			return x;
	}
	*slot = j;
	return NULL;
}

static const struct py_known *known_find(const struct record_py *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen == gen)
			return &p->known[i];
	return NULL;
}

/* Read the name of (pid, gen, code, instr) now, once. */
static int name_code(struct record_py *p, uint32_t pid, uint32_t gen, uint64_t code, uint32_t instr,
		     struct py_named **out)
{
	const struct py_known *k = known_find(p, pid, gen);
	struct py_named *x;
	size_t slot = 0;
	int err;

	x = named_find(p, pid, gen, code, instr, &slot);
	if (x) {
		*out = x;
		return 0;
	}
	if (!k)
		return -ENOENT;
	if ((p->n_named + 1) * 2 > p->n_slots) {
		err = named_rehash(p, p->n_slots ? p->n_slots * 2 : 1024);
		if (err)
			return err;
		named_find(p, pid, gen, code, instr, &slot);
	}
	if (array_grow((void **)&p->named, &p->cap_named, p->n_named + 1, sizeof(*p->named)))
		return -ENOMEM;
	x = &p->named[p->n_named];
	memset(x, 0, sizeof(*x));
	x->pid = pid;
	x->gen = gen;
	x->code = code;
	x->instr = instr;
	x->err = py_code_read((pid_t)pid, &k->pp.off, code, instr, &x->info);
	p->slots[slot] = (uint32_t)++p->n_named;
	*out = x;
	return 0;
}

int record_py_init(struct record *r)
{
	if (!r->cfg.python || !r->cfg.unwind_dwarf)
		return 0;
	r->py = calloc(1, sizeof(*r->py));
	return r->py ? 0 : -ENOMEM;
}

void record_py_free(struct record *r)
{
	struct record_py *p = r->py;

	if (!p)
		return;
	free(p->known);
	free(p->pending);
	free(p->named);
	free(p->slots);
	free(p->seen.v);
	free(p->plain.v);
	free(p);
	r->py = NULL;
}

static uint64_t object_key(const struct ps_map_info *mi)
{
	return mix(mi->dev) ^ mi->ino;
}

/* ps_map_fn: -EEXIST at an object not known to be without CPython. */
static int any_new_object(const struct ps_map_info *mi, void *ctx)
{
	const struct record_py *p = ctx;

	return mi->fd >= 0 && !set_has(&p->plain, object_key(mi)) ? -EEXIST : 0;
}

static int note_plain(const struct ps_map_info *mi, void *ctx)
{
	struct record_py *p = ctx;

	if (mi->fd >= 0)
		set_add(&p->plain, object_key(mi));
	return 0;
}

/* One attempt: 0 attached, 1 try again later, < 0 not CPython or not supported. */
static int attach(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_py *p = r->py;
	struct py_process proc;
	struct py_known k = {.pid = pid, .gen = gen};
	struct cp_py_offsets off;
	enum py_offsets_source src;
	const char *mismatch = NULL;
	int err;

	/*
	 * Opening every object of every new process is slow (an exec storm): only processes
	 * that map an object not seen in a process without CPython are looked at.
	 */
	if (PY_PLAIN_CACHE &&
	    proc_snapshot__for_each_map(r->snap, pid, gen, any_new_object, p) != -EEXIST)
		return -ENOENT;
	err = py_detect_process(r->snap, pid, gen, &proc);
	if (PY_PLAIN_CACHE && err == -ENOENT)
		proc_snapshot__for_each_map(r->snap, pid, gen, note_plain, p);
	if (err == -ENOTSUP)
		pr_debug("pid %u: CPython %u.%u is not supported: no Python frames", pid,
			 PY_HEX_MAJOR(proc.info.hexversion), PY_HEX_MINOR(proc.info.hexversion));
	if (err)
		return err;
	err = py_offsets_for_process((pid_t)pid, &proc, &off, &src);
	if (err)
		return err;
	err = py_offsets_check_code((pid_t)pid, &proc, &off, &mismatch);
	if (err >= 0 && mismatch) {
		pr_debug("pid %u: CPython's %s is not where the offsets say: no Python frames", pid,
			 mismatch);
		return -EPROTO;
	}
	if (err == -EFAULT || err == -EIO)
		return 1; /* not readable yet */
	if (err < 0)
		return err;
	/* not &k.pp.off: py_proc_build clears its output first */
	err = py_proc_build((pid_t)pid, &proc, &off, &k.pp);
	if (err == -EAGAIN)
		return 1;
	if (err)
		return err;
	err = bpf_session__set_py_proc(r->bpf, pid, &k.pp);
	if (err)
		return err;
	for (size_t i = 0; i < p->n_known; i++) {
		if (p->known[i].pid == pid) {
			p->known[i] = k; /* exec: the new program's */
			return 0;
		}
	}
	if (array_grow((void **)&p->known, &p->cap_known, p->n_known + 1, sizeof(*p->known)))
		return -ENOMEM;
	p->known[p->n_known++] = k;
	pr_debug("pid %u: CPython %u.%u, Python frames on", pid, PY_HEX_MAJOR(proc.info.hexversion),
		 PY_HEX_MINOR(proc.info.hexversion));
	return 0;
}

static void pend(struct record_py *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_pending; i++)
		if (p->pending[i].pid == pid && p->pending[i].gen == gen)
			return;
	if (array_grow((void **)&p->pending, &p->cap_pending, p->n_pending + 1,
		       sizeof(*p->pending)))
		return;
	p->pending[p->n_pending++] = (struct py_pending){.pid = pid, .gen = gen};
}

void record_py_new(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_py *p = r->py;

	if (p && !known_find(p, pid, gen) && attach(r, pid, gen) == 1)
		pend(p, pid, gen);
}

void record_py_later(struct record *r, uint32_t pid, uint32_t gen)
{
	if (r->py)
		pend(r->py, pid, gen);
}

static bool want_py_stack(uint64_t key, void *ctx)
{
	struct record *r = ctx;

	return set_add(&r->py->seen, key);
}

static int on_py_stack(uint64_t key, const struct cp_py_stored *v, void *ctx)
{
	struct record *r = ctx;
	struct py_named *x;

	(void)key;
	for (uint32_t i = 0; i < v->st.len && i < CP_PY_MAX_FRAMES; i++)
		name_code(r->py, v->pid, v->gen, v->st.frames[i].code, v->st.frames[i].instr, &x);
	return 0;
}

void record_py_tick(struct record *r)
{
	struct record_py *p = r->py;
	size_t keep = 0;

	if (!p)
		return;
	uint64_t t0 = clock_ns();

	for (size_t i = 0; i < p->n_pending; i++) {
		struct py_pending pe = p->pending[i];

		/* a tick's time is bounded (many processes at the start): the rest waits */
		if (clock_ns() - t0 > PY_TICK_NS) {
			p->pending[keep++] = pe;
			continue;
		}
		if (attach(r, pe.pid, pe.gen) == 1 && ++pe.tries < PY_MAX_TRIES)
			p->pending[keep++] = pe;
	}
	p->n_pending = keep;
	bpf_session__for_each_py_stack(r->bpf, want_py_stack, on_py_stack, r);
}

const struct cp_py_proc *record_py_proc(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;
	const struct py_known *k;

	if (!r->py)
		return NULL;
	k = known_find(r->py, pid, gen);
	return k ? &k->pp : NULL;
}

int record_py_name(void *ctx, uint32_t pid, uint32_t gen, uint64_t code, uint32_t instr,
		   const struct py_code_info **out)
{
	struct record *r = ctx;
	struct py_named *x;
	int err;

	if (!r->py)
		return -ENOENT;
	err = name_code(r->py, pid, gen, code, instr, &x);
	if (err)
		return err;
	if (x->err)
		return x->err;
	*out = &x->info;
	return 0;
}
