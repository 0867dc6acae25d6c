// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreters during a recording, every runtime of the table alike (interp/runtime.h):
 * find a runtime in each process whose mappings were read and give its BPF walker the
 * process's record (rt_procs), and name the frames of the stacks BPF stored as they appear,
 * while their processes are alive. A process gone before its frames were named (a 50 ms
 * script, a test runner's worker) is named from what BPF copied when it stored the stack
 * (rt_names). The drain takes the names from here (record_rt_name).
 *
 * When a process is looked at: every time its mappings are read (its first sample, and each
 * change of its executable mappings: libpython is mapped after exec, or dlopen()ed later);
 * while its interpreter is not initialised, at each tick too. Objects found not to be a runtime
 * are not opened again (interp_plain, one set per runtime). An answer for an older generation
 * of a process than one already seen is dropped: the first sample of a child before its exec
 * asks for generation 0, and /proc shows the exec'd program by the time it is read; an attach
 * for generation 0 must not replace the one of generation 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "interp/interp_find.h"
#include "interp/runtime.h"
#include "interp/src_pos.h"
#include "session/interp_queue.h"
#include "session/record_int.h"
#include "session/record_rt.h"
#include "session/rt_named.h"
#include "util/clock.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/u64set.h"

/* Attempts of a process whose interpreter is not initialised yet, one a tick at most (20 s). */
#define RT_MAX_TRIES 1000
/* Time a tick spends on pending processes at most (a tenth of the tick). */
#define RT_TICK_NS (RT_TICK_MS * 100000ull)
/* The new stacks are named every this many ticks (walking the maps costs a syscall a key). */
#define RT_NAME_TICKS (250 / RT_TICK_MS)

struct rt_known {
	uint32_t pid, gen;
	const struct runtime *rt;
	void *state; /* the runtime's naming state */
	bool gone;   /* its memory cannot be read any more: names from BPF's copies only */
	struct cp_rt_proc proc;
};

/* interp_prune reads (pid, gen) at the start of each */
_Static_assert(offsetof(struct rt_known, pid) == 0 && offsetof(struct rt_known, gen) == 4,
	       "rt_known starts with pid, gen");

struct record_rt {
	bool on[CP_RT_MAX];
	bool loaded[CP_RT_MAX]; /* its walker program is loaded (at its first process) */
	/* processes whose runtime is not supported (-ENOTSUP: a version, a build), the first why */
	uint32_t refused[CP_RT_MAX], refused_pid[CP_RT_MAX];
	char refused_why[CP_RT_MAX][160];
	struct interp_plain *plain[CP_RT_MAX]; /* objects found not to be the runtime */
	struct rt_known *known;
	size_t n_known, cap_known;
	struct interp_queue pending;
	struct rt_named named;	    /* the frames' names */
	struct u64set seen;	    /* rtstacks keys already named */
	unsigned int ticks;	    /* of record_rt_timer */
	uint64_t copied[CP_RT_MAX]; /* frames named from BPF's copies (their process was gone) */
};

static struct rt_known *known_find(const struct record_rt *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen == gen)
			return &p->known[i];
	return NULL;
}

/* Whether a newer generation of pid than gen was seen (see the top of this file). */
static bool superseded(const struct record_rt *p, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < p->n_known; i++)
		if (p->known[i].pid == pid && p->known[i].gen > gen)
			return true;
	return interp_queue_has_newer(&p->pending, pid, gen);
}

/* The names of frame f of (pid, gen) from what BPF copied: 0, -ESRCH when nothing was. */
static int name_copied(struct record *r, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		       struct rt_frame_info *out)
{
	const struct runtime *rt;
	struct cp_rt_name n;
	struct src_pos_who who = {.euid = proc_snapshot__euid(r->snap, pid, gen)};
	char root[4096];

	/*
	 * its script files are read inside its root as its user may read them (src_pos.h); gone,
	 * in the host's when it was of the host's pid namespace (as its perf map: symbolize.c)
	 */
	snprintf(root, sizeof(root), "%s/%u/root", proc_snapshot__procfs(r->snap), pid);
	who.root = root;
	if (access(root, F_OK) && proc_snapshot__nspid(r->snap, pid, gen) == pid)
		who.root = "/";
	if (bpf_session__rt_name(r->bpf, pid, gen, f->ptr, &n) ||
	    runtime_name_copied(&n, &who, out))
		return -ESRCH;
	if (n.runtime < CP_RT_MAX)
		r->rt->copied[n.runtime]++;
	/* the line running (V8: a position in the script), from the file read as above */
	rt = runtime_of(n.runtime);
	if (rt && rt->pos_is_src)
		runtime_name_pos(&who, out, f->pos);
	return 0;
}

/* rt_named's read: the names of frame f of (pid, gen) from its process (rt_named.h). */
static int read_names(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		      struct rt_frame_info *out)
{
	struct record *r = ctx;
	struct rt_known *k = known_find(r->rt, pid, gen);
	int err;

	if (!k)
		return -ENOENT;
	if (k->gone)
		return -ESRCH;
	if (!k->rt->name_frame)
		return -ENODATA; /* named from what BPF copied only */
	err = k->rt->name_frame(k->state, (pid_t)pid, k->proc.data, f, out);
	if (err == -ESRCH) {
		/* gone: its names cannot be read any more, nor its caches be of use */
		k->rt->state_free(k->state);
		k->state = NULL;
		k->gone = true;
	}
	return err == -ENODATA || err == -ENOENT ? -EIO : err;
}

/* rt_named's copied: what BPF copied of frame f, when the process is gone or its code freed
   meanwhile (a code string exec'd), or its runtime is named from BPF's copies only. */
static int copied_names(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
			struct rt_frame_info *out)
{
	struct record *r = ctx;
	const struct rt_known *k = known_find(r->rt, pid, gen);

	if (name_copied(r, pid, gen, f, out))
		return -ESRCH;
	if (k && k->rt->pos_is_line && f->pos && f->pos <= 1u << 30)
		out->line = (int)f->pos;
	return 0;
}

static void drop_known(void *item)
{
	struct rt_known *k = item;

	if (!k->gone)
		k->rt->state_free(k->state);
}

void record_rt_forget(struct record *r, const uint64_t *keys, size_t n)
{
	struct record_rt *p = r->rt;

	if (!p || !n)
		return;
	p->n_known = interp_prune(p->known, p->n_known, sizeof(*p->known), keys, n, drop_known);
	rt_named_forget(&p->named, keys, n);
	(void)bpf_session__forget_rt_names(r->bpf, keys, n);
}

int record_rt_init(struct record *r)
{
	struct record_rt *p;
	bool any = false;

	if (!r->cfg.unwind_dwarf)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	rt_named_init(&p->named,
		      &(struct rt_named_ops){.ctx = r, .read = read_names, .copied = copied_names});
	r->rt = p;
	for (uint32_t id = 0; id < CP_RT_MAX; id++) {
		p->on[id] = runtime_of(id) && (r->cfg.runtimes >> id & 1);
		if (!p->on[id])
			continue;
		any = true;
		p->plain[id] = interp_plain__new();
		if (!p->plain[id]) {
			record_rt_free(r);
			return -ENOMEM;
		}
	}
	if (!any)
		record_rt_free(r);
	return 0;
}

void record_rt_free(struct record *r)
{
	struct record_rt *p = r->rt;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_known; i++)
		drop_known(&p->known[i]);
	free(p->known);
	interp_queue_free(&p->pending);
	rt_named_free(&p->named);
	u64set_clear(&p->seen);
	for (uint32_t id = 0; id < CP_RT_MAX; id++)
		interp_plain__free(p->plain[id]);
	free(p);
	r->rt = NULL;
}

/* Keep k (exec: it replaces the process's earlier program). 0 or -ENOMEM. */
static int keep(struct record_rt *p, const struct rt_known *k)
{
	for (size_t i = 0; i < p->n_known; i++) {
		if (p->known[i].pid == k->pid) {
			drop_known(&p->known[i]);
			p->known[i] = *k;
			return 0;
		}
	}
	if (array_grow((void **)&p->known, &p->cap_known, p->n_known + 1, sizeof(*p->known)))
		return -ENOMEM;
	p->known[p->n_known++] = *k;
	return 0;
}

/*
 * The first process of runtime id: its walker is loaded now (the verifier's time is spent only
 * when the runtime is there). If it does not load, the runtime is off for this recording: its
 * processes keep their native frames.
 */
static int load_walker(struct record *r, uint32_t id, uint32_t pid)
{
	struct record_rt *p = r->rt;
	uint64_t t0 = monotonic_ns();
	bool hook = bpf_session__jit_hook_loaded(r->bpf);
	int err;

	if (bpf_session__rt_walker_loaded(r->bpf, id)) {
		p->loaded[id] = true;
		return 0;
	}
	err = bpf_session__load_rt_walker(r->bpf, id);
	if (err) {
		p->on[id] = false;
		pr_warn("pid %u: the %s walker did not load (%s: %s); %s frames are left out", pid,
			runtime_of(id)->name, bpf_session__step(r->bpf), log_errname(-err),
			runtime_of(id)->name);
		return -ENOTSUP;
	}
	p->loaded[id] = true;
	/* the JIT hook of the walk comes with the first walker of HotSpot or V8 */
	pr_info("pid %u: %s found, its walker%s loaded in %" PRIu64 " ms", pid,
		runtime_of(id)->name,
		!hook && bpf_session__jit_hook_loaded(r->bpf) ? " and the JIT hook" : "",
		(monotonic_ns() - t0) / 1000000);
	return 0;
}

/*
 * One attempt, each runtime in turn: 0 attached, 1 try again at a tick (one is not
 * initialised yet), -ENOENT no runtime mapped (looked at again when the mappings change), < 0
 * not now, not later.
 */
static int attach(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_rt *p = r->rt;
	int ret = -ENOENT;

	for (uint32_t id = 0; id < CP_RT_MAX; id++) {
		const struct runtime *rt = runtime_of(id);
		struct rt_known k = {.pid = pid, .gen = gen, .rt = rt};
		char why[160] = "";
		int err;

		if (!p->on[id])
			continue;
		k.proc.runtime = id;
		k.proc.gen = gen;
		err = rt->attach(r->snap, pid, gen, p->plain[id], k.proc.data, &k.state, why,
				 sizeof(why));
		if (err == -EAGAIN) {
			ret = 1;
			continue;
		}
		if (!err && rt->jit) {
			size_t nj = rt->jit(k.proc.data, k.proc.jit, CP_RT_JIT_RANGES);

			k.proc.jit_n = (uint32_t)(nj < CP_RT_JIT_RANGES ? nj : CP_RT_JIT_RANGES);
		}
		if (err) {
			if (why[0])
				pr_debug("pid %u: %s: no %s frames", pid, why, rt->name);
			/* a process is tried again when its mappings change: counted once */
			if (err == -ENOTSUP && why[0] && p->refused_pid[id] != pid) {
				p->refused_pid[id] = pid;
				if (!p->refused[id]++)
					snprintf(p->refused_why[id], sizeof(p->refused_why[id]),
						 "%s", why);
			}
			if (err != -ENOENT && ret == -ENOENT)
				ret = err;
			continue;
		}
		if (!superseded(p, pid, gen) && !p->loaded[id]) {
			err = load_walker(r, id, pid);
			if (err) {
				rt->state_free(k.state);
				return err;
			}
		}
		if (superseded(p, pid, gen) ||
		    (err = bpf_session__set_rt_proc(r->bpf, pid, &k.proc)) || (err = keep(p, &k))) {
			rt->state_free(k.state);
			return err ? err : -ESTALE;
		}
		pr_debug("pid %u (generation %u): %s, its frames on", pid, gen, why);
		return 0;
	}
	return ret;
}

/* The mappings of a known process changed: its runtime's JIT ranges read again. */
static void jit_refresh(struct record *r, struct rt_known *k)
{
	size_t nj;

	if (k->gone || !k->rt->jit || !k->rt->jit_refresh ||
	    k->rt->jit_refresh(k->proc.data, k->pid) != 1)
		return;
	nj = k->rt->jit(k->proc.data, k->proc.jit, CP_RT_JIT_RANGES);
	k->proc.jit_n = (uint32_t)(nj < CP_RT_JIT_RANGES ? nj : CP_RT_JIT_RANGES);
	if (bpf_session__set_rt_proc(r->bpf, k->pid, &k->proc))
		pr_debug("pid %u: its new %s code ranges not given to BPF", k->pid, k->rt->name);
}

void record_rt_new(struct record *r, uint32_t pid, uint32_t gen)
{
	struct record_rt *p = r->rt;
	struct rt_known *k;

	if (!p || superseded(p, pid, gen))
		return;
	k = known_find(p, pid, gen);
	if (k) {
		jit_refresh(r, k);
		return;
	}
	if (attach(r, pid, gen) == 1)
		interp_queue_add(&p->pending, pid, gen);
}

void record_rt_later(struct record *r, uint32_t pid, uint32_t gen)
{
	if (r->rt)
		interp_queue_add(&r->rt->pending, pid, gen);
}

static bool want_stack(uint64_t key, void *ctx)
{
	struct record *r = ctx;

	return u64set_add(&r->rt->seen, key);
}

static int on_stack(uint64_t key, const struct cp_rt_stored *v, void *ctx)
{
	struct record *r = ctx;
	const struct rt_frame_info *info;

	(void)key;
	for (uint32_t i = 0; i < v->st.len && i < CP_RT_MAX_FRAMES; i++)
		(void)rt_named_get(&r->rt->named, v->pid, v->gen, &v->st.frames[i], &info);
	return 0;
}

/* A queued process: attach it unless that is done or out of date; true to try again. */
static bool retry(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;

	/* attached meanwhile (its mappings were read again), or exec'd since */
	if (known_find(r->rt, pid, gen) || superseded(r->rt, pid, gen))
		return false;
	return attach(r, pid, gen) == 1;
}

/* Name the stacks BPF stored since the last time. */
static void name_new_stacks(struct record *r)
{
	struct record_rt *p = r->rt;

	/*
	 * The maps hold at most this many stacks, and a drain empties them: past it, most keys
	 * are of emptied maps. Forgetting all costs one more look at the live ones; keeping all
	 * grew by 0.8 MiB a minute in bench/soak.sh.
	 */
	if (p->seen.n > CP_SLOTS * CP_RT_DEF_STACKS)
		u64set_clear(&p->seen);
	rt_named_round(&p->named);
	bpf_session__for_each_rt_stack(r->bpf, want_stack, on_stack, r);
}

void record_rt_tick(struct record *r)
{
	if (!r->rt)
		return;
	interp_queue_tick(&r->rt->pending, RT_TICK_NS, RT_MAX_TRIES, retry, r);
	name_new_stacks(r);
}

void record_rt_timer(struct record *r)
{
	struct record_rt *p = r->rt;

	if (!p)
		return;
	interp_queue_tick(&p->pending, RT_TICK_NS, RT_MAX_TRIES, retry, r);
	if (p->ticks++ % RT_NAME_TICKS == 0)
		name_new_stacks(r);
}

const void *record_rt_proc(void *ctx, uint32_t id, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;
	const struct rt_known *k;

	if (!r->rt || id >= CP_RT_MAX || !r->rt->on[id])
		return NULL;
	k = known_find(r->rt, pid, gen);
	return k && k->proc.runtime == id ? k->proc.data : NULL;
}

int record_rt_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		   const struct rt_frame_info **out)
{
	struct record *r = ctx;

	if (!r->rt)
		return -ENOENT;
	return rt_named_get(&r->rt->named, pid, gen, f, out);
}

int record_rt_read_stats(struct record *r)
{
	return r->rt ? bpf_session__read_rt_stats(r->bpf, r->rt_stats) : 0;
}

/* Append ", WHAT N" to buf (size, *n used) when n is not 0. */
static void say(char *buf, size_t size, size_t *used, const char *what, uint64_t v)
{
	if (v && *used < size)
		*used += (size_t)snprintf(buf + *used, size - *used, "%s %s %" PRIu64,
					  *used ? "," : "", what, v);
}

void record_rt_summary(const struct record *r)
{
	static const char *const stats[CP_RT_STAT_ROW - CP_RT_END_MAX] = {
		[CP_RT_STAT_FULL - CP_RT_END_MAX] = "lost (map full)",
		[CP_RT_STAT_COLLISION - CP_RT_END_MAX] = "lost (collision)",
		[CP_RT_STAT_TAILCALL - CP_RT_END_MAX] = "tail call failed",
	};
	static const char *const why[RT_UNNAMED_MAX] = {
		[RT_UNNAMED_GONE] = "process gone, nothing copied",
		[RT_UNNAMED_UNREADABLE] = "unreadable",
		[RT_UNNAMED_NO_PROC] = "no runtime known",
		[RT_UNNAMED_NOT_COPIED] = "not copied by BPF",
	};
	const struct record_rt *p = r->rt;

	for (uint32_t id = 0; p && id < CP_RT_MAX; id++) {
		const struct runtime *rt = runtime_of(id);
		const uint64_t *row = &r->rt_stats[id * CP_RT_STAT_ROW];
		const struct aggregate_stats *a = &r->agg;
		char buf[512], names[512];
		size_t n = 0, m = 0;
		uint64_t unnamed = 0;

		if (!p->on[id])
			continue;
		/* the user sees why frames are missing without -v */
		if (p->refused[id])
			pr_warn("%s frames missing in %u process%s: %s", rt->name, p->refused[id],
				p->refused[id] == 1 ? "" : "es", p->refused_why[id]);
		for (int i = 0; i < CP_RT_END_MAX; i++)
			say(buf, sizeof(buf), &n, rt->ends[i] ? rt->ends[i] : "other", row[i]);
		for (int i = CP_RT_END_MAX; i < CP_RT_STAT_ROW; i++)
			if (stats[i - CP_RT_END_MAX])
				say(buf, sizeof(buf), &n, stats[i - CP_RT_END_MAX], row[i]);
		/* none of its processes was sampled: nothing to say */
		if (!n)
			continue;
		pr_info("%s walks:%s; %" PRIu64 " samples with %s frames", rt->name, buf,
			a->rt_stacks[id], rt->prefix);
		for (int i = 0; i < RT_UNNAMED_MAX; i++) {
			say(names, sizeof(names), &m, why[i], a->rt_unnamed[id][i]);
			unnamed += a->rt_unnamed[id][i];
		}
		pr_info("%s naming: %" PRIu64 " of %" PRIu64
			" frames in samples unnamed (%.2f%%)%s%s; "
			"%" PRIu64 " names copied by BPF, %" PRIu64 " used after their process "
			"ended, %" PRIu64 " left for a later sample",
			rt->name, unnamed, a->rt_frames[id],
			a->rt_frames[id] ? 100.0 * (double)unnamed / (double)a->rt_frames[id] : 0.0,
			m ? ":" : "", m ? names : "", row[CP_RT_STAT_NAMES_COPIED], p->copied[id],
			row[CP_RT_STAT_NAMES_BUDGET]);
	}
}
