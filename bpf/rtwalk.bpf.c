// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the runtimes' walkers (python_walk.bpf.h, ruby_walk.bpf.h), apart from the
 * profiler's program: on each cpu-clock sample of process target_tgid, walk the sampled
 * thread's frames with the walker of the process's runtime (rt_procs, as in the profiler) and
 * send them on a ring buffer. tests/unit/test_py_walk.c and test_rb_walk.c load it against live
 * interpreters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "runtime_shared.h"
#include "python_shared.h"
#include "python_walk.bpf.h"
#include "ruby_shared.h"
#include "ruby_walk.bpf.h"

const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_rt_proc);
	__uint(max_entries, 16);
} rt_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} rt_events SEC(".maps");

/* per walk end (the runtime's enum), then one for samples lost (ring buffer full) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_RT_END_MAX + 1);
} rt_stats SEC(".maps");

/* the walk's own cost: [0] ns spent in the walker, [1] walks (bpf_ktime_get_ns around it) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} rt_cost SEC(".maps");

static __always_inline void add(void *map, __u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	if (v)
		*v += n;
}

SEC("perf_event")
int cp_rt_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), t0, fsbase;
	struct task_struct *task;
	struct cp_rt_event *ev;
	struct cp_rt_proc *rp;
	__u32 tgid = id >> 32, end = CP_RT_END_MAX - 1;

	if (tgid != target_tgid)
		return 0;
	rp = bpf_map_lookup_elem(&rt_procs, &tgid);
	if (!rp)
		return 0;
	ev = bpf_ringbuf_reserve(&rt_events, sizeof(*ev), 0);
	if (!ev) {
		add(&rt_stats, CP_RT_END_MAX, 1);
		return 0;
	}
	ev->tid = (__u32)id;
	ev->runtime = rp->runtime;
	ev->st.len = 0;
	task = bpf_get_current_task_btf();
	fsbase = BPF_CORE_READ(task, thread.fsbase);
	t0 = bpf_ktime_get_ns();
	if (rp->runtime == CP_RT_PYTHON)
		end = cp_py_walk((const struct cp_py_proc *)rp->data, fsbase, &ev->st);
	else if (rp->runtime == CP_RT_RUBY)
		end = cp_rb_walk((const struct cp_rb_proc *)rp->data, fsbase, &ev->st);
	t0 = bpf_ktime_get_ns() - t0;
	bpf_ringbuf_submit(ev, 0);
	add(&rt_stats, end < CP_RT_END_MAX ? end : CP_RT_END_MAX - 1, 1);
	add(&rt_cost, 0, t0);
	add(&rt_cost, 1, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
