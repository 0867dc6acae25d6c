/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtimes' walkers in the profiler (included by profile.bpf.c after cp_unwind, whose
 * machinery they share: the per-CPU walk state ustate, rt_procs, rtstacks, rt_names, rt_stats,
 * dwarf_finish). The native walk of a process rt_procs knows ends with a tail call to
 * unwind_progs[CP_RT_WALKER(runtime)]: one of the programs below, each the same steps
 * (RT_WALKER_PROG: rt_begin, the runtime's walk, rt_store, its namer, rt_end). A new runtime
 * adds its line at the end and its slot in the loader (src/session/bpf_loader.c: rt_prog).
 */
#ifndef CPUPROF_RUNTIME_PROFILE_BPF_H
#define CPUPROF_RUNTIME_PROFILE_BPF_H

/* one cp_rt_name being filled, per CPU (too big for the BPF stack beside the walk's) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_rt_name);
	__uint(max_entries, 1);
} rt_name_buf SEC(".maps");

/*
 * Store the frames of s->rt.st in rtstacks under a hash of them and set s->key.istack; it stays
 * 0 when there are none or they are lost (counted). 1 when the stack is new in this slot.
 */
/*
 * The two hashes of s->rt.st's frames (pid and gen first in the first): the first returned,
 * the second (with the end reason) in s->rt.check. Global, verified once: inline, each step's
 * exit from the loop was a path of its own through the rest of the program.
 */
__noinline __u64 cp_rt_hash(struct cp_ustate *s)
{
	__u64 h1 = 0xcbf29ce484222325ull, h2 = 0x9e3779b97f4a7c15ull, v;
	__u32 len;

	if (!s)
		return 0;
	len = s->rt.st.len;
	h1 = (h1 ^ ((__u64)s->key.gen << 32 | s->key.pid)) * 0x100000001b3ull;
	for (int i = 0; i < CP_RT_MAX_FRAMES; i++) {
		const struct cp_rt_frame *f;

		if (i >= (int)len)
			break;
		f = &s->rt.st.frames[i & (CP_RT_MAX_FRAMES - 1)];
		v = f->ptr ^ ((__u64)f->pos << 32) ^ ((__u64)f->kind << 24) ^
		    ((__u64)f->flags << 16);
		h1 = (h1 ^ v) * 0x100000001b3ull;
		h2 = ((h2 + v) << 29 | (h2 + v) >> 35) * 0x9e3779b97f4a7c15ull;
	}
	s->rt.check = (h2 ^ s->rt.st.end) * 0x9e3779b97f4a7c15ull;
	return h1;
}

static __always_inline int rt_store(struct cp_ustate *s, __u32 runtime)
{
	void *rtstacks = s->slot ? (void *)&rtstacks1 : (void *)&rtstacks0;
	struct cp_rt_stored *old;
	__u32 len = s->rt.st.len;
	__u64 h1, key;
	long err;

	if (!len || len > CP_RT_MAX_FRAMES)
		return 0;
	/* code addresses mean something in one address space only */
	s->rt.pid = s->key.pid;
	s->rt.gen = s->key.gen;
	h1 = cp_rt_hash(s);
	/* the runtime, the end reason and the flags are part of the stack, as with dstacks */
	key = (h1 ^ ((__u64)s->rt.st.end << 56) ^ ((__u64)s->rt.st.flags << 48) ^
	       ((__u64)runtime << 40)) *
	      0x100000001b3ull;
	if (!key)
		key = 1;
	s->rt.st.ctx = 0; /* not part of the stack: one entry for every thread */
	old = bpf_map_lookup_elem(rtstacks, &key);
	if (!old) {
		err = bpf_map_update_elem(rtstacks, &key, &s->rt, BPF_NOEXIST);
		if (err == -CP_EEXIST) {
			old = bpf_map_lookup_elem(rtstacks, &key);
		} else if (err) {
			rt_stat(runtime, CP_RT_STAT_FULL);
			return 0;
		}
	}
	if (old && old->check != s->rt.check) {
		rt_stat(runtime, CP_RT_STAT_COLLISION);
		return 0;
	}
	s->key.istack = key;
	s->key.istack_kind = (__u8)runtime;
	return !old;
}

/*
 * The walk state of this sample, and *proc the runtime's record of its process (NULL when
 * rt_procs no longer holds it for this generation and runtime).
 */
static __always_inline struct cp_ustate *rt_begin_keep(__u32 runtime, const void **proc, int keep)
{
	struct cp_rt_proc *rp;
	struct cp_ustate *s;
	__u32 zero = 0;

	*proc = NULL;
	s = bpf_map_lookup_elem(&ustate, &zero);
	if (!s)
		return NULL;
	s->key.istack = 0;
	s->key.istack_kind = CP_RT_NONE;
	if (!keep)
		s->rt.st.len = 0;
	rp = bpf_map_lookup_elem(&rt_procs, &s->key.pid);
	if (rp && rp->gen == s->key.gen && rp->runtime == runtime)
		*proc = rp->data;
	return s;
}

static __always_inline struct cp_ustate *rt_begin(__u32 runtime, const void **proc)
{
	return rt_begin_keep(runtime, proc, 0);
}

/* Frame i of the stack's rt_names key in *k; 1 when it has nothing to name. */
static __always_inline int rt_name_key(const struct cp_ustate *s, __u32 i, struct cp_rt_name_key *k)
{
	const struct cp_rt_frame *f = &s->rt.st.frames[i & (CP_RT_MAX_FRAMES - 1)];

	k->pid = s->key.pid;
	k->gen = s->key.gen;
	k->ptr = f->ptr;
	return !f->ptr;
}

/* A zeroed name to fill for runtime; NULL when the scratch map is gone. */
static __always_inline struct cp_rt_name *rt_name_scratch(__u32 runtime)
{
	__u32 zero = 0;
	struct cp_rt_name *n = bpf_map_lookup_elem(&rt_name_buf, &zero);

	if (!n)
		return NULL;
	__builtin_memset(n, 0, sizeof(*n));
	n->runtime = (__u16)runtime;
	return n;
}

/* Keep name n of key k (filled by the runtime's namer); counted. */
static __always_inline void rt_name_put(__u32 runtime, const struct cp_rt_name_key *k,
					const struct cp_rt_name *n)
{
	if (!(n->flags & (CP_RT_NAME_OK | CP_RT_FILE_OK)))
		return;
	if (bpf_map_update_elem(&rt_names, k, n, BPF_ANY) == 0)
		rt_stat(runtime, CP_RT_STAT_NAMES_COPIED);
	else
		rt_stat(runtime, CP_RT_STAT_NAMES_FULL);
}

/* What a namer's bpf_loop step sees. */
struct rt_name_ctx {
	struct cp_ustate *s;
	const void *proc;
	__u32 runtime;
	__u32 done; /* names copied in this sample */
};

/*
 * RT_NAMER(NAMER, STAMP, TYPE): the bpf_loop step NAMER##_step over the frames of a stack new
 * in this slot: frame i's names copied by NAMER(const TYPE *proc, frame, name) unless they
 * are already, of the same code (STAMP(proc, frame): a few bytes of the code object, as they
 * are now), at most CP_RT_NAMES_PER_SAMPLE a sample (the rest: at a later sample of the stack,
 * counted). A loop callback is verified once, not once per frame.
 */
#define RT_NAMER(NAMER, STAMP, TYPE)                                                           \
	static long NAMER##_step(__u64 i, void *arg)                                           \
	{                                                                                      \
		struct rt_name_ctx *c = arg;                                                   \
		const struct cp_rt_frame *f = &c->s->rt.st.frames[i & (CP_RT_MAX_FRAMES - 1)]; \
		struct cp_rt_name_key k;                                                       \
		struct cp_rt_name *n;                                                          \
		__u64 stamp;                                                                   \
                                                                                               \
		if (rt_name_key(c->s, (__u32)i, &k))                                           \
			return 0;                                                              \
		stamp = STAMP((const TYPE *)c->proc, f);                                       \
		n = bpf_map_lookup_elem(&rt_names, &k);                                        \
		if (n && n->stamp == stamp)                                                    \
			return 0;                                                              \
		if (c->done++ >= CP_RT_NAMES_PER_SAMPLE) {                                     \
			rt_stat(c->runtime, CP_RT_STAT_NAMES_BUDGET);                          \
			return 1;                                                              \
		}                                                                              \
		n = rt_name_scratch(c->runtime);                                               \
		if (!n)                                                                        \
			return 1;                                                              \
		n->stamp = stamp;                                                              \
		NAMER((const TYPE *)c->proc, f, n);                                            \
		rt_name_put(c->runtime, &k, n);                                                \
		return 0;                                                                      \
	}

/* Run NAMER##_step (RT_NAMER) over the frames of s's stack. */
#define RT_COPY_NAMES(S, RUNTIME, PROC, NAMER)                                                     \
	do {                                                                                       \
		struct rt_name_ctx c_ = {.s = (S), .proc = (PROC), .runtime = (RUNTIME)};          \
		__u32 len_ = (S)->rt.st.len;                                                       \
                                                                                                   \
		bpf_loop(len_ < CP_RT_MAX_FRAMES ? len_ : CP_RT_MAX_FRAMES, NAMER##_step, &c_, 0); \
	} while (0)

/* Count how the walk ended (end: the runtime's enum) and finish the sample. */
static __always_inline int rt_end(struct cp_ustate *s, __u32 runtime, __u32 end)
{
	rt_stat(runtime, end < CP_RT_END_MAX ? end : CP_RT_END_MAX - 1);
	dwarf_finish(s);
	return 0;
}

/*
 * A runtime's walker program PROG (unwind_progs[CP_RT_WALKER(ID)]): its process's record (TYPE),
 * WALK(proc, fsbase, stack) (ends past END_MAX count as END_READ; no record: NO_PROC), the
 * store, NAMER and STAMP (RT_NAMER) on a new stack, the sample finished.
 */
#define RT_WALKER_PROG(PROG, ID, TYPE, WALK, NAMER, STAMP, NO_PROC, END_MAX, END_READ)   \
	RT_NAMER(NAMER, STAMP, TYPE)                                                     \
                                                                                         \
	SEC("perf_event")                                                                \
	int PROG(struct bpf_perf_event_data *ctx)                                        \
	{                                                                                \
		struct task_struct *task = bpf_get_current_task_btf();                   \
		const TYPE *proc;                                                        \
		struct cp_ustate *s;                                                     \
		__u32 end = (NO_PROC);                                                   \
                                                                                         \
		s = rt_begin((ID), (const void **)&proc);                                \
		if (!s)                                                                  \
			return 0;                                                        \
		if (proc) {                                                              \
			end = WALK(proc, BPF_CORE_READ(task, thread.fsbase), &s->rt.st); \
			if (end >= (END_MAX))                                            \
				end = (END_READ);                                        \
			if (rt_store(s, (ID)))                                           \
				RT_COPY_NAMES(s, (ID), proc, NAMER);                     \
		}                                                                        \
		return rt_end(s, (ID), end);                                             \
	}

/*
 * A runtime's program PROG whose frames the JIT hook recorded during the native walk
 * (jit_hook.bpf.h): the store, NAMER and STAMP (RT_NAMER) on a new stack, the walk's end (the
 * last step's reason, s->rt.st.end; no frame: NO_FRAMES), the sample finished.
 */
#define RT_JIT_PROG(PROG, ID, TYPE, NAMER, STAMP, NO_FRAMES, END_MAX, END_READ) \
	RT_NAMER(NAMER, STAMP, TYPE)                                            \
                                                                                \
	SEC("perf_event")                                                       \
	int PROG(struct bpf_perf_event_data *ctx)                               \
	{                                                                       \
		const TYPE *proc;                                               \
		struct cp_ustate *s;                                            \
		__u32 end;                                                      \
                                                                                \
		(void)ctx;                                                      \
		s = rt_begin_keep((ID), (const void **)&proc, 1);               \
		if (!s)                                                         \
			return 0;                                               \
		end = s->rt.st.len ? s->rt.st.end : (NO_FRAMES);                \
		if (end >= (END_MAX))                                           \
			end = (END_READ);                                       \
		if (proc && rt_store(s, (ID)))                                  \
			RT_COPY_NAMES(s, (ID), proc, NAMER);                    \
		return rt_end(s, (ID), end);                                    \
	}

/* The runtimes' programs, one line each. */
RT_WALKER_PROG(cp_py, CP_RT_PYTHON, struct cp_py_proc, cp_py_walk, cp_py_name, cp_py_stamp,
	       CP_PY_END_NO_PROC, CP_PY_END_MAX, CP_PY_END_READ)
RT_WALKER_PROG(cp_rb, CP_RT_RUBY, struct cp_rb_proc, cp_rb_walk, cp_rb_name, cp_rb_stamp,
	       CP_RB_END_NO_PROC, CP_RB_END_MAX, CP_RB_END_READ)

RT_WALKER_PROG(cp_php, CP_RT_PHP, struct cp_php_proc, cp_php_walk, cp_php_name, cp_php_stamp,
	       CP_PHP_END_NO_PROC, CP_PHP_END_MAX, CP_PHP_END_READ)
RT_WALKER_PROG(cp_pl, CP_RT_PERL, struct cp_pl_proc, cp_pl_walk, cp_pl_name, cp_pl_stamp,
	       CP_PL_END_NO_PROC, CP_PL_END_MAX, CP_PL_END_READ)
RT_JIT_PROG(cp_v8, CP_RT_V8, struct cp_v8_proc, cp_v8_name, cp_v8_stamp, CP_V8_END_NO_FRAMES,
	    CP_V8_END_MAX, CP_V8_END_READ)

/* runtimes of the JIT hook (jit_hook.bpf.h) */
RT_JIT_PROG(cp_java, CP_RT_JAVA, struct cp_hs_proc, cp_hs_name, cp_hs_stamp, CP_HS_END_NO_FRAMES,
	    CP_HS_END_MAX, CP_HS_END_READ)

#endif
