// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the PHP and Perl walkers (phpperl_walk.bpf.h), apart from the profiler's
 * program: on each cpu-clock sample of process target_tgid, walk the sampled thread's PHP or
 * Perl frames (whichever map knows the process) and send them on a ring buffer; the names are
 * copied into pp_names. tests/unit/test_pp_walk.c loads it against a live php and perl.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "phpperl_shared.h"
#include "phpperl_walk.bpf.h"

/* set after load (.bss): the program is loaded before the interpreter starts */
volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} pp_events SEC(".maps");

/* per reason of enum cp_pp_end, then one for samples lost (ring buffer full) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_PP_END_MAX + 1);
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

SEC("perf_event")
int cp_pp_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct cp_php_proc *pp;
	struct cp_pl_proc *lp;
	struct cp_pp_event *ev;
	__u32 tgid = id >> 32, zero = 0, one = 1;
	__u64 t0, *cost;

	if (tgid != target_tgid)
		return 0;
	pp = bpf_map_lookup_elem(&php_procs, &tgid);
	lp = pp ? NULL : bpf_map_lookup_elem(&pl_procs, &tgid);
	if (!pp && !lp) {
		pp_stat(CP_PP_END_NO_PROC);
		return 0;
	}
	ev = bpf_ringbuf_reserve(&pp_events, sizeof(*ev), 0);
	if (!ev) {
		pp_stat(CP_PP_END_MAX);
		return 0;
	}
	ev->tid = (__u32)id;
	task = bpf_get_current_task_btf();
	t0 = bpf_ktime_get_ns();
	if (pp) {
		ev->runtime = 1;
		pp_stat(cp_php_walk(pp, tgid, &ev->st));
	} else {
		ev->runtime = 2;
		pp_stat(cp_pl_walk(lp, tgid, BPF_CORE_READ(task, thread.fsbase), &ev->st));
	}
	t0 = bpf_ktime_get_ns() - t0;
	bpf_ringbuf_submit(ev, 0);
	cost = bpf_map_lookup_elem(&pp_cost, &zero);
	if (cost)
		*cost += t0;
	cost = bpf_map_lookup_elem(&pp_cost, &one);
	if (cost)
		*cost += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
