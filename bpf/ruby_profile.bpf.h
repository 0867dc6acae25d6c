/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --ruby in the profiler (included by profile.bpf.c after cp_py, whose machinery it shares:
 * the per-CPU walk state ustate, the program array, dwarf_finish): walk the sampled thread's
 * Ruby control frames (ruby_walk.bpf.h), store them in rbstacks under a hash, and go on with
 * the native walk. The count key names them (istack, istack_kind CP_ISTACK_RUBY).
 */
#ifndef CPUPROF_RUBY_PROFILE_BPF_H
#define CPUPROF_RUBY_PROFILE_BPF_H

/* --ruby: the Ruby frames of samples, under a hash (cp_count_key.istack) */
#define CP_RBSTACK_MAP(name)                           \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_HASH);       \
		__type(key, __u64);                    \
		__type(value, struct cp_rb_stored);    \
		__uint(max_entries, CP_RB_DEF_STACKS); \
	} name SEC(".maps")

/* one map per slot, like dstacks */
CP_RBSTACK_MAP(rbstacks0);
CP_RBSTACK_MAP(rbstacks1);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_RB_STAT_MAX);
} rb_stats SEC(".maps");

static __always_inline void rb_stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&rb_stats, &idx);

	if (v)
		*v += 1;
}

/*
 * Store the Ruby frames of s->rb.st in rbstacks under a hash of them and set s->key.istack; it
 * stays 0 when there are none or they are lost (counted). The twin of py_store.
 */
static __always_inline void rb_store(struct cp_ustate *s)
{
	__u64 h1 = 0xcbf29ce484222325ull, h2 = 0x9e3779b97f4a7c15ull, key, v;
	void *rbstacks = s->slot ? (void *)&rbstacks1 : (void *)&rbstacks0;
	struct cp_rb_stored *old;
	__u32 len = s->rb.st.len;
	long err;

	if (!len || len > CP_RB_MAX_FRAMES)
		return;
	/* iseq and method entry addresses mean something in one address space only */
	s->rb.pid = s->key.pid;
	s->rb.gen = s->key.gen;
	h1 = (h1 ^ ((__u64)s->key.gen << 32 | s->key.pid)) * 0x100000001b3ull;
	for (int i = 0; i < CP_RB_MAX_FRAMES; i++) {
		const struct cp_rb_frame *f;

		if (i >= (int)len)
			break;
		f = &s->rb.st.frames[i & (CP_RB_MAX_FRAMES - 1)];
		v = f->ptr ^ ((__u64)f->pos << 32) ^ ((__u64)f->kind << 24) ^
		    ((__u64)f->flags << 16);
		h1 = (h1 ^ v) * 0x100000001b3ull;
		h2 = ((h2 + v) << 29 | (h2 + v) >> 35) * 0x9e3779b97f4a7c15ull;
	}
	/* the end reason and the GVL flag are part of the stack, as with dstacks */
	key = (h1 ^ ((__u64)s->rb.st.end << 56) ^ ((__u64)s->rb.st.flags << 48)) * 0x100000001b3ull;
	if (!key)
		key = 1;
	s->rb.check = (h2 ^ s->rb.st.end) * 0x9e3779b97f4a7c15ull;
	s->rb.st.ec = 0; /* not part of the stack: one entry for every thread */
	old = bpf_map_lookup_elem(rbstacks, &key);
	if (!old) {
		err = bpf_map_update_elem(rbstacks, &key, &s->rb, BPF_NOEXIST);
		if (err == -CP_EEXIST)
			old = bpf_map_lookup_elem(rbstacks, &key);
		else if (err) {
			rb_stat_inc(CP_RB_STAT_FULL);
			return;
		}
	}
	if (old && old->check != s->rb.check) {
		rb_stat_inc(CP_RB_STAT_COLLISION);
		return;
	}
	s->key.istack = key;
	s->key.istack_kind = CP_ISTACK_RUBY;
}

/*
 * --ruby: walk the Ruby frames of the sampled thread (dwarf_start set up the state and found
 * the process in rb_procs), store them, then go on with the native walk.
 */
SEC("perf_event")
int cp_rb(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cp_rb_proc *rp;
	struct cp_ustate *s;
	__u32 zero = 0, end;

	s = bpf_map_lookup_elem(&ustate, &zero);
	if (!s)
		return 0;
	s->key.istack = 0;
	s->key.istack_kind = CP_ISTACK_NONE;
	rp = bpf_map_lookup_elem(&rb_procs, &s->key.pid);
	if (rp && rp->gen == s->key.gen) {
		end = cp_rb_walk(rp, BPF_CORE_READ(task, thread.fsbase), &s->rb.st);
		rb_stat_inc(end < CP_RB_END_MAX ? end : CP_RB_END_READ);
		rb_store(s);
	}
	bpf_tail_call(ctx, &unwind_progs, CP_PROG_UNWIND);
	rb_stat_inc(CP_RB_STAT_TAILCALL);
	s->st.end = CP_DEND_TRUNCATED;
	dwarf_finish(s);
	return 0;
}

#endif
