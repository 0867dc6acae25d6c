// SPDX-License-Identifier: GPL-2.0
/*
 * --ruby during a recording, the twin of record_py.c: find MRI Ruby in each process whose
 * mappings were read and give the BPF walker its cp_rb_proc, and name the frames of the Ruby
 * stacks BPF stored as they appear, while their processes are alive (a short-lived one is gone
 * by the end). The drain takes the names from here (record_rb_name).
 *
 * When a process is looked at: every time its mappings are read (its first sample, and each
 * change of its executable mappings); while the dynamic loader has not filled ruby_current_ec's
 * GOT slot yet, at each tick too. An answer for an older generation of a process than one
 * already seen is dropped (see record_py.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include "interp/interp_find.h"
#include "interp/rb_detect.h"
#include "interp/rb_offsets.h"
#include "interp/rb_proc.h"
#include "session/interp_queue.h"
#include "session/record_int.h"
#include "session/record_rb.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/u64set.h"

/* Attempts of a process whose loader has not filled the slot yet, one a tick at most. */
#define RB_MAX_TRIES 100
/* Time a tick spends on pending processes at most. */
#define RB_TICK_NS 10000000ull

struct rb_known {
	uint32_t pid, gen;
	struct cp_rb_proc rp;
	struct rb_names *names; /* NULL once the process is known to be gone */
};

/* A frame named: (pid, gen, ptr, pos, kind) -> its names. */
struct rb_named {
	uint32_t pid, gen;
	uint64_t ptr;
	uint32_t pos;
	uint8_t kind;
	int err; /* 0: info holds the names */
	struct rb_frame_info info;
};

/* interp_prune reads (pid, gen) at the start of each */
_Static_assert(offsetof(struct rb_known, pid) == 0 && offsetof(struct rb_known, gen) == 4,
	       "rb_known starts with pid, gen");
_Static_assert(offsetof(struct rb_named, pid) == 0 && offsetof(struct rb_named, gen) == 4,
	       "rb_named starts with pid, gen");

struct record_rb {
	struct rb_known *known;
	size_t n_known, cap_known;
	struct interp_queue pending;
	/* names, open addressing on indexes + 1 */
	struct rb_named *named;
	size_t n_named, cap_named;
	uint32_t *slots;
	size_t n_slots;
	struct u64set seen; /* rbstacks keys already named */
	/* objects (dev, ino) found not to be Ruby: not opened again */
	struct interp_plain *plain;
};

static uint64_t named_hash(uint32_t pid, uint32_t gen, const struct cp_rb_frame *f)
{
	return u64_mix(f->ptr ^ u64_mix(((uint64_t)pid << 32 | gen) ^
					u64_mix((uint64_t)f->pos << 8 | f->kind)));
}

static bool named_is(const struct rb_named *x, uint32_t pid, uint32_t gen,
		     const struct cp_rb_frame *f)
{
	return x->pid == pid && x->gen == gen && x->ptr == f->ptr && x->pos == f->pos &&
	       x->kind == f->kind;
}

/*
 * Index every name in n slots: a new array, or the present one emptied when n is its size
 * (after names went), which cannot fail. 0 or -ENOMEM.
 */
static int named_rehash(struct record_rb *p, size_t n)
{
	bool same = p->slots && n == p->n_slots;
	uint32_t *slots = same ? p->slots : calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	if (same)
		memset(slots, 0, n * sizeof(*slots));
	for (size_t i = 0; i < p->n_named; i++) {
		const struct rb_named *x = &p->named[i];
		struct cp_rb_frame f = {.ptr = x->ptr, .pos = x->pos, .kind = x->kind};
		size_t j = named_hash(x->pid, x->gen, &f) & (n - 1);

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

/* The entry of (pid, gen, frame), or NULL; *slot gets where it would go. */
static struct rb_named *named_find(struct record_rb *p, uint32_t pid, uint32_t gen,
				   const struct cp_rb_frame *f, size_t *slot)
{
	size_t j;

	if (!p->n_slots)
		return NULL;
	j = named_hash(pid, gen, f) & (p->n_slots - 1);
	for (; p->slots[j]; j = (j + 1) & (p->n_slots - 1)) {
		struct rb_named *x = &p->named[p->slots[j] - 1];

		if (named_is(x, pid, gen, f))
			return x;
	}
	*slot = j;
	return NULL;
}

static struct rb_known *known_find(const struct record_rb *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen == gen)
			return &p->known[i];
	return NULL;
}

/* Whether a newer generation of pid than gen was seen (record_py.c: superseded). */
static bool superseded(const struct record_rb *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen > gen)
			return true;
	return interp_queue_has_newer(&p->pending, pid, gen);
}

/* Read the names of frame f of (pid, gen) now, once. */
static int name_frame(struct record_rb *p, uint32_t pid, uint32_t gen, const struct cp_rb_frame *f,
		      struct rb_named **out)
{
	struct rb_known *k;
	struct rb_named *x;
	size_t slot = 0;
	int err;

	x = named_find(p, pid, gen, f, &slot);
	if (x) {
		*out = x;
		return 0;
	}
	k = known_find(p, pid, gen);
	if (!k || !k->names)
		return -ENOENT;
	if ((p->n_named + 1) * 2 > p->n_slots) {
		err = named_rehash(p, p->n_slots ? p->n_slots * 2 : 1024);
		if (err)
			return err;
		named_find(p, pid, gen, f, &slot);
	}
	if (array_grow((void **)&p->named, &p->cap_named, p->n_named + 1, sizeof(*p->named)))
		return -ENOMEM;
	x = &p->named[p->n_named];
	memset(x, 0, sizeof(*x));
	x->pid = pid;
	x->gen = gen;
	x->ptr = f->ptr;
	x->pos = f->pos;
	x->kind = f->kind;
	x->err = rb_names_frame(k->names, f, &x->info);
	if (x->err == -ESRCH) {
		/* gone: its names cannot be read any more, nor its caches be of use */
		rb_names_free(k->names);
		k->names = NULL;
	}
	p->slots[slot] = (uint32_t)++p->n_named;
	*out = x;
	return 0;
}

int record_rb_init(struct record *r)
{
	if (!r->cfg.ruby || !r->cfg.unwind_dwarf)
		return 0;
	r->rb_rec = calloc(1, sizeof(*r->rb_rec));
	if (!r->rb_rec)
		return -ENOMEM;
	r->rb_rec->plain = interp_plain__new();
	if (!r->rb_rec->plain) {
		record_rb_free(r);
		return -ENOMEM;
	}
	return 0;
}

static void drop_known(void *item)
{
	rb_names_free(((struct rb_known *)item)->names);
}

void record_rb_forget(struct record *r, const uint64_t *keys, size_t n)
{
	struct record_rb *p = r->rb_rec;
	size_t m;

	if (!p || !n)
		return;
	p->n_known = interp_prune(p->known, p->n_known, sizeof(*p->known), keys, n, drop_known);
	m = interp_prune(p->named, p->n_named, sizeof(*p->named), keys, n, NULL);
	if (m != p->n_named) {
		p->n_named = m;
		(void)named_rehash(p, p->n_slots); /* the same size: in place */
	}
}

void record_rb_free(struct record *r)
{
	struct record_rb *p = r->rb_rec;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_known; i++)
		rb_names_free(p->known[i].names);
	free(p->known);
	interp_queue_free(&p->pending);
	free(p->named);
	free(p->slots);
	u64set_clear(&p->seen);
	interp_plain__free(p->plain);
	free(p);
	r->rb_rec = NULL;
}

/*
 * One attempt: 0 attached, 1 try again at a tick (the loader has not filled the TLS slot
 * yet), -ENOENT no Ruby mapped (looked at again when the mappings change), < 0 not now, not
 * later.
 */
static int attach(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_rb *p = r->rb_rec;
	struct rb_known k = {.pid = pid, .gen = gen};
	struct cp_rb_offsets off;
	struct rb_process rp;
	int err;

	err = rb_detect_process(r->snap, pid, gen, p->plain, &rp);
	if (err == -ENOTSUP)
		pr_debug("pid %u: Ruby %u.%u is not supported: no Ruby frames", pid,
			 rp.info.version >> 16, (rp.info.version >> 8) & 0xff);
	if (err)
		return err;
	err = rb_offsets_table(rp.info.version, &off);
	if (err)
		return err;
	err = rb_proc_build((pid_t)pid, &rp, &off, &k.rp);
	if (err == -EAGAIN)
		return 1;
	if (err) {
		pr_debug("pid %u: Ruby %u.%u, but its execution contexts cannot be found (%s): no "
			 "Ruby frames",
			 pid, rp.info.version >> 16, (rp.info.version >> 8) & 0xff, strerror(-err));
		return err;
	}
	if (superseded(p, pid, gen))
		return -ESTALE;
	k.rp.gen = gen;
	k.names = rb_names_new((pid_t)pid, &rp, &off);
	if (!k.names)
		return -ENOMEM;
	err = bpf_session__set_rb_proc(r->bpf, pid, &k.rp);
	if (err) {
		rb_names_free(k.names);
		return err;
	}
	pr_debug("pid %u (generation %u): Ruby %u.%u.%u, Ruby frames on (EC mode %u)", pid, gen,
		 rp.info.version >> 16, (rp.info.version >> 8) & 0xff, rp.info.version & 0xff,
		 k.rp.ec_mode);
	for (size_t i = 0; i < p->n_known; i++) {
		if (p->known[i].pid == pid) {
			/* exec: the new program's */
			rb_names_free(p->known[i].names);
			p->known[i] = k;
			return 0;
		}
	}
	if (array_grow((void **)&p->known, &p->cap_known, p->n_known + 1, sizeof(*p->known))) {
		rb_names_free(k.names);
		return -ENOMEM;
	}
	p->known[p->n_known++] = k;
	return 0;
}

void record_rb_new(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_rb *p = r->rb_rec;

	if (!p || known_find(p, pid, gen) || superseded(p, pid, gen))
		return;
	if (attach(r, pid, gen) == 1)
		interp_queue_add(&p->pending, pid, gen);
}

void record_rb_later(struct record *r, uint32_t pid, uint32_t gen)
{
	if (r->rb_rec)
		interp_queue_add(&r->rb_rec->pending, pid, gen);
}

static bool want_rb_stack(uint64_t key, void *ctx)
{
	struct record *r = ctx;

	return u64set_add(&r->rb_rec->seen, key);
}

static int on_rb_stack(uint64_t key, const struct cp_rb_stored *v, void *ctx)
{
	struct record *r = ctx;
	struct rb_named *x;

	(void)key;
	for (uint32_t i = 0; i < v->st.len && i < CP_RB_MAX_FRAMES; i++)
		name_frame(r->rb_rec, v->pid, v->gen, &v->st.frames[i], &x);
	return 0;
}

/* A queued process: attach it unless that is done or out of date; true to try again. */
static bool retry(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;

	/* attached meanwhile (its mappings were read again), or exec'd since */
	if (known_find(r->rb_rec, pid, gen) || superseded(r->rb_rec, pid, gen))
		return false;
	return attach(r, pid, gen) == 1;
}

void record_rb_tick(struct record *r)
{
	struct record_rb *p = r->rb_rec;

	if (!p)
		return;
	interp_queue_tick(&p->pending, RB_TICK_NS, RB_MAX_TRIES, retry, r);
	/*
	 * The maps hold at most this many stacks, and a drain empties them: past it, most keys
	 * are of emptied maps. Forgetting all costs one more look at the live ones; keeping all
	 * grew by 0.8 MiB a minute in bench/soak.sh.
	 */
	if (p->seen.n > CP_SLOTS * CP_RB_DEF_STACKS)
		u64set_clear(&p->seen);
	bpf_session__for_each_rb_stack(r->bpf, want_rb_stack, on_rb_stack, r);
}

const struct cp_rb_proc *record_rb_proc(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;
	const struct rb_known *k;

	if (!r->rb_rec)
		return NULL;
	k = known_find(r->rb_rec, pid, gen);
	return k ? &k->rp : NULL;
}

int record_rb_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rb_frame *f,
		   const struct rb_frame_info **out)
{
	struct record *r = ctx;
	struct rb_named *x;
	int err;

	if (!r->rb_rec)
		return -ENOENT;
	err = name_frame(r->rb_rec, pid, gen, f, &x);
	if (err)
		return err;
	if (x->err)
		return x->err;
	*out = &x->info;
	return 0;
}

int record_rb_read_stats(struct record *r)
{
	return r->rb_rec ? bpf_session__read_rb_stats(r->bpf, r->rb_stats) : 0;
}

/* -v: how the Ruby walks went (enum cp_rb_end, enum cp_rb_stat). */
void record_rb_summary(const struct record *r)
{
	static const char *const names[CP_RB_STAT_MAX] = {
		[CP_RB_END_OK] = "whole",
		[CP_RB_END_NO_PROC] = "no Ruby",
		[CP_RB_END_NO_EC] = "no Ruby thread",
		[CP_RB_END_TRUNCATED] = "truncated",
		[CP_RB_END_READ] = "unreadable",
		[CP_RB_END_BAD_STACK] = "frame outside its VM stack",
		[CP_RB_STAT_FULL] = "lost (map full)",
		[CP_RB_STAT_COLLISION] = "lost (collision)",
		[CP_RB_STAT_TAILCALL] = "tail call failed",
	};
	char buf[512];
	size_t n = 0;

	if (!r->rb_rec)
		return;
	for (int i = 0; i < CP_RB_STAT_MAX && n < sizeof(buf); i++)
		if (r->rb_stats[i])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s %s %" PRIu64,
					      n ? "," : "", names[i], r->rb_stats[i]);
	/* no Ruby was sampled: nothing to say */
	if (n)
		pr_info("Ruby walks:%s; %" PRIu64 " samples with Ruby frames", buf,
			r->agg.rb_stacks);
}
