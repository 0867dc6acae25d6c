// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the PHP and Perl walkers (php_walk.bpf.h, perl_walk.bpf.h), apart from the
 * profiler's program: on each cpu-clock sample of process target_tgid, walk the sampled thread's
 * PHP or Perl frames (whichever map knows the process) and send them on a ring buffer; the names of
 * frames new to pp_names are copied there (walk and names both timed). tests/unit/test_pp_walk.c
 * loads it against a live php and perl.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "php_shared.h"
#include "perl_shared.h"
#include "php_walk.bpf.h"
#include "perl_walk.bpf.h"

/* one ring-buffer record per sample (tests/unit/test_pp_walk.c has the same) */
struct pp_event {
	__u32 tid;
	__u32 runtime; /* CP_RT_PHP or CP_RT_PERL */
	struct cp_rt_stack st;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_php_proc);
	__uint(max_entries, 64);
} php_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_pl_proc);
	__uint(max_entries, 64);
} pl_procs SEC(".maps");

/* set after load (.bss): the program is loaded before the interpreter starts */
volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} pp_events SEC(".maps");

/* what BPF copied of each frame's code: (pid, gen, ptr) -> names */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct cp_rt_name_key);
	__type(value, struct cp_rt_name);
	__uint(max_entries, CP_RT_DEF_NAMES);
} pp_names SEC(".maps");

/* scratch for a name being copied (too large for the BPF stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_rt_name);
	__uint(max_entries, 1);
} pp_name_buf SEC(".maps");

/* per walk end (enum cp_php_end, cp_pl_end), then one for samples lost (ring buffer full) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_RT_END_MAX + 1);
} pp_stats SEC(".maps");

/* the walk's own cost: [0] ns spent walking, [1] walks */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} pp_cost SEC(".maps");

static __always_inline void pp_stat(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&pp_stats, &idx);

	if (v)
		*v += 1;
}

struct pp_names_ctx {
	__u32 tgid, gen, done;
	const struct cp_php_proc *pp;
	const struct cp_pl_proc *lp;
	const struct cp_rt_stack *st;
};

/* bpf_loop's body: name frame i of the stack if it has no name yet */
static long pp_name_one(__u64 i, void *arg)
{
	struct pp_names_ctx *c = arg;
	struct cp_rt_name_key k = {.pid = c->tgid, .gen = c->gen};
	const struct cp_rt_frame *f;
	struct cp_rt_name *n;
	__u32 zero = 0;

	if (i >= c->st->len || c->done >= 16)
		return 1;
	f = &c->st->frames[i & (CP_RT_MAX_FRAMES - 1)];
	k.ptr = f->ptr;
	if (!f->ptr || bpf_map_lookup_elem(&pp_names, &k))
		return 0;
	n = bpf_map_lookup_elem(&pp_name_buf, &zero);
	if (!n)
		return 1;
	__builtin_memset(n, 0, sizeof(*n));
	c->done++;
	if (c->pp) {
		n->runtime = CP_RT_PHP;
		cp_php_name(c->pp, f, n);
	} else {
		n->runtime = CP_RT_PERL;
		cp_pl_name(c->lp, f, n);
	}
	if (n->flags & (CP_RT_NAME_OK | CP_RT_FILE_OK))
		bpf_map_update_elem(&pp_names, &k, n, BPF_NOEXIST);
	return 0;
}

/* Copy the names of the frames of st not named yet (at most 16 a sample), with the runtime's
 * namer: what the profiler's runtime layer does after storing a new stack. */
static __always_inline void pp_copy_names(__u32 tgid, const struct cp_php_proc *pp,
					  const struct cp_pl_proc *lp, const struct cp_rt_stack *st)
{
	struct pp_names_ctx c = {
		.tgid = tgid, .gen = pp ? pp->gen : lp->gen, .pp = pp, .lp = lp, .st = st};

	bpf_loop(CP_RT_MAX_FRAMES, pp_name_one, &c, 0);
}

/* the event being made, per CPU (the walkers write map memory, then it goes out whole) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pp_event);
	__uint(max_entries, 1);
} pp_event_buf SEC(".maps");

SEC("perf_event")
int cp_pp_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct cp_php_proc *pp;
	struct cp_pl_proc *lp;
	struct pp_event *ev;
	__u32 tgid = id >> 32, zero = 0, one = 1;
	__u64 t0, *cost;

	if (tgid != target_tgid)
		return 0;
	pp = bpf_map_lookup_elem(&php_procs, &tgid);
	lp = pp ? NULL : bpf_map_lookup_elem(&pl_procs, &tgid);
	if (!pp && !lp) {
		pp_stat(CP_PHP_END_NO_PROC);
		return 0;
	}
	ev = bpf_map_lookup_elem(&pp_event_buf, &zero);
	if (!ev)
		return 0;
	ev->tid = (__u32)id;
	task = bpf_get_current_task_btf();
	t0 = bpf_ktime_get_ns();
	if (pp) {
		ev->runtime = CP_RT_PHP;
		pp_stat(cp_php_walk(pp, 0, &ev->st));
	} else {
		ev->runtime = CP_RT_PERL;
		pp_stat(cp_pl_walk(lp, BPF_CORE_READ(task, thread.fsbase), &ev->st));
	}
	pp_copy_names(tgid, pp, lp, &ev->st);
	t0 = bpf_ktime_get_ns() - t0;
	if (bpf_ringbuf_output(&pp_events, ev, sizeof(*ev), 0))
		pp_stat(CP_RT_END_MAX);
	cost = bpf_map_lookup_elem(&pp_cost, &zero);
	if (cost)
		*cost += t0;
	cost = bpf_map_lookup_elem(&pp_cost, &one);
	if (cost)
		*cost += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
