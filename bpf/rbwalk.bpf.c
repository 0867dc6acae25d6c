// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the Ruby walker (ruby_walk.bpf.h), apart from the profiler's program
 * while the walker is developed: on each cpu-clock sample of process target_tgid, walk the
 * sampled thread's Ruby frames and send them on a ring buffer. tests/unit/test_rb_walk.c
 * loads it against a live ruby.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "ruby_shared.h"
#include "ruby_walk.bpf.h"

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} rb_events SEC(".maps");

/* per reason of enum cp_rb_end, then one for samples lost (ring buffer full) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_RB_END_MAX + 1);
} rb_stats SEC(".maps");

/* the walk's own cost: [0] ns spent in cp_rb_walk, [1] walks (bpf_ktime_get_ns around it) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} rb_cost SEC(".maps");

static __always_inline void rb_stat(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&rb_stats, &idx);

	if (v)
		*v += 1;
}

SEC("perf_event")
int cp_rb_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct cp_rb_event *ev;
	struct cp_rb_proc *rp;
	__u32 tgid = id >> 32, zero = 0, one = 1;
	__u64 t0, *cost;

	if (tgid != target_tgid)
		return 0;
	rp = bpf_map_lookup_elem(&rb_procs, &tgid);
	if (!rp) {
		rb_stat(CP_RB_END_NO_PROC);
		return 0;
	}
	ev = bpf_ringbuf_reserve(&rb_events, sizeof(*ev), 0);
	if (!ev) {
		rb_stat(CP_RB_END_MAX);
		return 0;
	}
	ev->tid = (__u32)id;
	ev->pad = 0;
	task = bpf_get_current_task_btf();
	t0 = bpf_ktime_get_ns();
	rb_stat(cp_rb_walk(rp, BPF_CORE_READ(task, thread.fsbase), &ev->st));
	t0 = bpf_ktime_get_ns() - t0;
	bpf_ringbuf_submit(ev, 0);
	cost = bpf_map_lookup_elem(&rb_cost, &zero);
	if (cost)
		*cost += t0;
	cost = bpf_map_lookup_elem(&rb_cost, &one);
	if (cost)
		*cost += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
