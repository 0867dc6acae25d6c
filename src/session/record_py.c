// SPDX-License-Identifier: GPL-2.0
/*
 * --python during a recording: find CPython in each process whose mappings were read and give
 * the BPF walker its cp_py_proc, and name the code objects of the Python stacks BPF stored as they
 * appear, while their processes are alive (a short-lived one is gone by the end). The drain takes
 * the names from here (record_py_name).
 *
 * When a process is looked at: every time its mappings are read (its first sample, and each
 * change of its executable mappings: libpython is mapped after exec, or dlopen()ed later);
 * while its interpreter is not initialised, at each tick too. Objects found not to be CPython
 * are not opened again (interp_plain: per object, so a launcher without CPython does not hide the
 * libpython its process maps next). An answer for an older generation of a process than one
 * already seen is dropped: the first sample of a child before its exec asks for generation 0,
 * and /proc shows the exec'd program by the time it is read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include "interp/interp_find.h"
#include "interp/py_detect.h"
#include "interp/py_proc.h"
#include "session/interp_queue.h"
#include "session/record_int.h"
#include "session/record_py.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/u64set.h"

/* Attempts of a process whose interpreter is not initialised yet, one a tick at most. */
#define PY_MAX_TRIES 100
/* Time a tick spends on pending processes at most. */
#define PY_TICK_NS 10000000ull

struct py_known {
	uint32_t pid, gen;
	struct cp_py_proc pp;
};

struct py_named {
	uint32_t pid, gen;
	uint64_t code;
	uint32_t instr;
	int err; /* 0: info holds the names */
	struct py_code_info info;
};

/* interp_prune reads (pid, gen) at the start of each */
_Static_assert(offsetof(struct py_known, pid) == 0 && offsetof(struct py_known, gen) == 4,
	       "py_known starts with pid, gen");
_Static_assert(offsetof(struct py_named, pid) == 0 && offsetof(struct py_named, gen) == 4,
	       "py_named starts with pid, gen");

struct record_py {
	struct py_known *known;
	size_t n_known, cap_known;
	struct interp_queue pending;
	/* names by (pid, gen, code, instr), open addressing on indexes + 1 */
	struct py_named *named;
	size_t n_named, cap_named;
	uint32_t *slots;
	size_t n_slots;
	struct u64set seen; /* pystacks keys already named */
	/* objects (dev, ino) found not to be CPython: not opened again */
	struct interp_plain *plain;
};

static uint64_t named_hash(uint32_t pid, uint32_t gen, uint64_t code, uint32_t instr)
{
	return u64_mix(code ^ u64_mix(((uint64_t)pid << 32 | gen) ^ u64_mix(instr)));
}

/*
 * Index every name in n slots: a new array, or the present one emptied when n is its size
 * (after names went), which cannot fail. 0 or -ENOMEM.
 */
static int named_rehash(struct record_py *p, size_t n)
{
	bool same = p->slots && n == p->n_slots;
	uint32_t *slots = same ? p->slots : calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	if (same)
		memset(slots, 0, n * sizeof(*slots));
	for (size_t i = 0; i < p->n_named; i++) {
		const struct py_named *x = &p->named[i];
		size_t j = named_hash(x->pid, x->gen, x->code, x->instr) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	if (!same) {
		free(p->slots);
		p->slots = slots;
		p->n_slots = n;
	}
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

/*
 * Whether a newer generation of pid than gen was seen. Requests of a generation can come late:
 * the first sample of a child before its exec asks for generation 0, and /proc shows the
 * program exec'd by the time it is read; an attach for generation 0 must not replace the one
 * of generation 1 (then no sample of the program found its CPython).
 */
static bool superseded(const struct record_py *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen > gen)
			return true;
	return interp_queue_has_newer(&p->pending, pid, gen);
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

void record_py_forget(struct record *r, const uint64_t *keys, size_t n)
{
	struct record_py *p = r->py;
	size_t m;

	if (!p || !n)
		return;
	p->n_known = interp_prune(p->known, p->n_known, sizeof(*p->known), keys, n, NULL);
	m = interp_prune(p->named, p->n_named, sizeof(*p->named), keys, n, NULL);
	if (m != p->n_named) {
		p->n_named = m;
		(void)named_rehash(p, p->n_slots); /* the same size: in place */
	}
}

int record_py_init(struct record *r)
{
	if (!r->cfg.python || !r->cfg.unwind_dwarf)
		return 0;
	r->py = calloc(1, sizeof(*r->py));
	if (!r->py)
		return -ENOMEM;
	r->py->plain = interp_plain__new();
	if (!r->py->plain) {
		record_py_free(r);
		return -ENOMEM;
	}
	return 0;
}

void record_py_free(struct record *r)
{
	struct record_py *p = r->py;

	if (!p)
		return;
	free(p->known);
	interp_queue_free(&p->pending);
	free(p->named);
	free(p->slots);
	u64set_clear(&p->seen);
	interp_plain__free(p->plain);
	free(p);
	r->py = NULL;
}

/*
 * One attempt: 0 attached, 1 try again at a tick (not initialised yet), -ENOENT no CPython
 * mapped (looked at again when the mappings change), < 0 not now, not later.
 */
static int attach(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_py *p = r->py;
	struct py_known k = {.pid = pid, .gen = gen};
	struct py_attach_why why;
	int err;

	err = py_attach(r->snap, pid, gen, p->plain, &k.pp, &why);
	if (err == -EAGAIN)
		return 1;
	if (err == -ENOTSUP)
		pr_debug("pid %u: CPython %u.%u is not supported: no Python frames", pid,
			 PY_HEX_MAJOR(why.hexversion), PY_HEX_MINOR(why.hexversion));
	if (err == -EPROTO)
		pr_debug("pid %u: CPython's %s is not where the offsets say: no Python frames", pid,
			 why.mismatch);
	if (err)
		return err;
	if (superseded(p, pid, gen))
		return -ESTALE;
	err = bpf_session__set_py_proc(r->bpf, pid, &k.pp);
	if (err)
		return err;
	pr_debug("pid %u (generation %u): CPython %u.%u, Python frames on", pid, gen,
		 PY_HEX_MAJOR(why.hexversion), PY_HEX_MINOR(why.hexversion));
	for (size_t i = 0; i < p->n_known; i++) {
		if (p->known[i].pid == pid) {
			p->known[i] = k; /* exec: the new program's */
			return 0;
		}
	}
	if (array_grow((void **)&p->known, &p->cap_known, p->n_known + 1, sizeof(*p->known)))
		return -ENOMEM;
	p->known[p->n_known++] = k;
	return 0;
}

void record_py_new(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_py *p = r->py;

	if (!p || known_find(p, pid, gen) || superseded(p, pid, gen))
		return;
	if (attach(r, pid, gen) == 1)
		interp_queue_add(&p->pending, pid, gen);
}

void record_py_later(struct record *r, uint32_t pid, uint32_t gen)
{
	if (r->py)
		interp_queue_add(&r->py->pending, pid, gen);
}

static bool want_py_stack(uint64_t key, void *ctx)
{
	struct record *r = ctx;

	return u64set_add(&r->py->seen, key);
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

/* A queued process: attach it unless that is done or out of date; true to try again. */
static bool retry(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;

	/* attached meanwhile (its mappings were read again), or exec'd since */
	if (known_find(r->py, pid, gen) || superseded(r->py, pid, gen))
		return false;
	return attach(r, pid, gen) == 1;
}

void record_py_tick(struct record *r)
{
	struct record_py *p = r->py;

	if (!p)
		return;
	interp_queue_tick(&p->pending, PY_TICK_NS, PY_MAX_TRIES, retry, r);
	/*
	 * The maps hold at most this many stacks, and a drain empties them: past it, most keys
	 * are of emptied maps. Forgetting all costs one more look at the live ones; keeping all
	 * grew by 0.8 MiB a minute in bench/soak.sh.
	 */
	if (p->seen.n > CP_SLOTS * CP_PY_DEF_STACKS)
		u64set_clear(&p->seen);
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
