// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness of the runtimes' walkers (python_walk.bpf.h, ruby_walk.bpf.h, php_walk.bpf.h,
 * perl_walk.bpf.h, v8_walk.bpf.h), apart from the profiler's program: on each cpu-clock sample of
 * process target_tgid (0: any process rt_procs holds), walk the sampled thread's frames with the
 * walker of the process's runtime (rt_procs, as in the profiler) and send them on a ring buffer;
 * the names of PHP and Perl frames new to rt_names are copied there by their namers, as the
 * profiler does. V8 frames are found here by their frame pointers alone, from the sampled rbp
 * (the profiler finds them in its native walk: the frames whose pc is V8's code), which
 * tests the frame reader and the namer. tests/unit/test_py_walk.c, test_rb_walk.c,
 * test_pp_walk.c and test_v8_walk.c load it against live interpreters. Also the goroutine label
 * reader (go_labels.bpf.h, cp_go_test): the labels of process target_tgid's running goroutine at
 * each sample, as its entry in go_procs says where they are (generation 0);
 * tests/unit/test_go_labels.c runs it on hand-made Go memory.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "runtime_shared.h"
#include "python_shared.h"
#include "python_walk.bpf.h"
#include "ruby_shared.h"
#include "ruby_walk.bpf.h"
#include "php_shared.h"
#include "php_walk.bpf.h"
#include "perl_shared.h"
#include "perl_walk.bpf.h"
#include "v8_shared.h"
#include "v8_walk.bpf.h"
#include "shared.h"
#include "go_labels.bpf.h"

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

/* what the namers copied: (pid, gen, ptr) -> names (rt_names of the profiler) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct cp_rt_name_key);
	__type(value, struct cp_rt_name);
	__uint(max_entries, CP_RT_DEF_NAMES);
} rt_names SEC(".maps");

/* per CPU: the event being made (the namers read its frames), a name being copied */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_rt_event);
	__uint(max_entries, 1);
} rt_event_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_rt_name);
	__uint(max_entries, 1);
} rt_name_buf SEC(".maps");

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

struct names_ctx {
	const struct cp_rt_proc *rp;
	const struct cp_rt_stack *st;
	__u32 pid;
};

/* bpf_loop's step: copy the names of frame i unless rt_names has them (PHP, Perl) */
static long name_one(__u64 i, void *arg)
{
	struct names_ctx *c = arg;
	const struct cp_rt_frame *f = &c->st->frames[i & (CP_RT_MAX_FRAMES - 1)];
	struct cp_rt_name_key k = {.pid = c->pid, .gen = c->rp->gen, .ptr = f->ptr};
	struct cp_rt_name *n;
	__u32 zero = 0;

	if (i >= c->st->len || !f->ptr || bpf_map_lookup_elem(&rt_names, &k))
		return 0;
	n = bpf_map_lookup_elem(&rt_name_buf, &zero);
	if (!n)
		return 1;
	__builtin_memset(n, 0, sizeof(*n));
	n->runtime = (__u16)c->rp->runtime;
	if (c->rp->runtime == CP_RT_PHP)
		cp_php_name((const struct cp_php_proc *)c->rp->data, f, n);
	else if (c->rp->runtime == CP_RT_V8)
		cp_v8_name((const struct cp_v8_proc *)c->rp->data, f, n);
	else
		cp_pl_name((const struct cp_pl_proc *)c->rp->data, f, n);
	if (n->flags & (CP_RT_NAME_OK | CP_RT_FILE_OK))
		bpf_map_update_elem(&rt_names, &k, n, BPF_NOEXIST);
	return 0;
}

struct v8_fp_ctx {
	const struct cp_v8_proc *p;
	struct cp_rt_stack *st;
	__u64 fp;
	__u32 end;
};

/* bpf_loop's step: the frame at fp, then its caller's by the saved rbp */
static long v8_fp_step(__u64 i, void *arg)
{
	struct v8_fp_ctx *c = arg;
	__u64 next;

	(void)i;
	if (cp_v8_frame(c->p, c->fp, 0, c->st, 0) < 0) {
		c->end = CP_V8_END_READ;
		return 1;
	}
	next = rt_ptr(c->fp);
	if (!next || next <= c->fp || next - c->fp > (1u << 20)) {
		c->end = CP_V8_END_OK;
		return 1;
	}
	c->fp = next;
	return c->st->len >= CP_RT_MAX_FRAMES;
}

/* The V8 frames on the frame-pointer chain from the sampled rbp. */
static __always_inline __u32 v8_fp_walk(const struct cp_v8_proc *p, __u64 fp,
					struct cp_rt_stack *st)
{
	struct v8_fp_ctx c = {.p = p, .st = st, .fp = fp, .end = CP_V8_END_TRUNCATED};

	bpf_loop(256, v8_fp_step, &c, 0);
	return c.end;
}

SEC("perf_event")
int cp_rt_test(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), t0, fsbase;
	struct task_struct *task;
	struct cp_rt_event *ev;
	struct cp_rt_proc *rp;
	__u32 tgid = id >> 32, end = CP_RT_END_MAX - 1, zero = 0;

	if (target_tgid && tgid != target_tgid)
		return 0;
	rp = bpf_map_lookup_elem(&rt_procs, &tgid);
	if (!rp)
		return 0;
	ev = bpf_map_lookup_elem(&rt_event_buf, &zero);
	if (!ev)
		return 0;
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
	else if (rp->runtime == CP_RT_PHP)
		end = cp_php_walk((const struct cp_php_proc *)rp->data, fsbase, &ev->st);
	else if (rp->runtime == CP_RT_PERL)
		end = cp_pl_walk((const struct cp_pl_proc *)rp->data, fsbase, &ev->st);
	else if (rp->runtime == CP_RT_V8)
		end = v8_fp_walk((const struct cp_v8_proc *)rp->data, ctx->regs.bp, &ev->st);
	t0 = bpf_ktime_get_ns() - t0;
	if (rp->runtime == CP_RT_PHP || rp->runtime == CP_RT_PERL || rp->runtime == CP_RT_V8) {
		struct names_ctx c = {.rp = rp, .st = &ev->st, .pid = tgid};

		bpf_loop(CP_RT_MAX_FRAMES, name_one, &c, 0);
	}
	if (bpf_ringbuf_output(&rt_events, ev, sizeof(*ev), 0))
		add(&rt_stats, CP_RT_END_MAX, 1);
	add(&rt_stats, end < CP_RT_END_MAX ? end : CP_RT_END_MAX - 1, 1);
	add(&rt_cost, 0, t0);
	add(&rt_cost, 1, 1);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} go_events SEC(".maps");

/* [0] samples of target_tgid, [1] of them with labels, [2] ns spent reading them */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 3);
} go_stats SEC(".maps");

SEC("perf_event")
int cp_go_test(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct cp_go_labels *v;
	__u64 h, t0;

	if (tgid != target_tgid)
		return 0;
	add(&go_stats, 0, 1);
	t0 = bpf_ktime_get_ns();
	h = cp_go_labels(tgid, 0);
	add(&go_stats, 2, bpf_ktime_get_ns() - t0);
	v = h ? bpf_map_lookup_elem(&golabels, &h) : NULL;
	if (!v)
		return 0;
	add(&go_stats, 1, 1);
	bpf_ringbuf_output(&go_events, v, sizeof(*v), 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
