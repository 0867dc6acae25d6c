// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the CPython walker (python_walk.bpf.h), apart from the profiler's program
 * while the walker is developed: on each cpu-clock sample of process target_tgid, walk the
 * sampled thread's Python frames and send them on a ring buffer. tests/unit/test_py_walk.c
 * loads it against live interpreters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "python_shared.h"
#include "python_walk.bpf.h"

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} py_events SEC(".maps");

/* per reason of enum cp_py_end, then one for samples lost (ring buffer full) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_PY_END_MAX + 1);
} py_stats SEC(".maps");

/* the walk's own cost: [0] ns spent in cp_py_walk, [1] walks (bpf_ktime_get_ns around it) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} py_cost SEC(".maps");

static __always_inline void py_stat(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&py_stats, &idx);

	if (v)
		*v += 1;
}

SEC("perf_event")
int cp_py_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct cp_py_event *ev;
	struct cp_py_proc *pp;
	__u32 tgid = id >> 32, zero = 0, one = 1;
	__u64 t0, *cost;

	if (tgid != target_tgid)
		return 0;
	pp = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!pp) {
		py_stat(CP_PY_END_NO_PROC);
		return 0;
	}
	ev = bpf_ringbuf_reserve(&py_events, sizeof(*ev), 0);
	if (!ev) {
		py_stat(CP_PY_END_MAX);
		return 0;
	}
	ev->tid = (__u32)id;
	ev->pad = 0;
	task = bpf_get_current_task_btf();
	t0 = bpf_ktime_get_ns();
	py_stat(cp_py_walk(pp, BPF_CORE_READ(task, thread.fsbase), &ev->st));
	t0 = bpf_ktime_get_ns() - t0;
	bpf_ringbuf_submit(ev, 0);
	cost = bpf_map_lookup_elem(&py_cost, &zero);
	if (cost)
		*cost += t0;
	cost = bpf_map_lookup_elem(&py_cost, &one);
	if (cost)
		*cost += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
