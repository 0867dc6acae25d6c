/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JIT code range hook of the native walk (included by profile.bpf.c before cp_unwind_step,
 * whose step results and walk state it uses). A process whose runtime generates code at run
 * time has its code ranges in its rt_procs record (cp_rt_proc.jit, runtime_shared.h). When the
 * pc of the frame being walked lies in one of them, the native walk pushes one pseudo pc for
 * the frame (the range's start + 1: the same for every frame of the range, so that native
 * stacks do not multiply with the pcs of generated code) and calls the runtime's step here:
 * it records the frame as runtime frames (jit_push, innermost first; inlined ones first, the
 * frame's own last, flagged CP_RT_FF_ENTRY by jit_done) and moves to the caller (jit_caller).
 * The runtime's program (RT_JIT_PROG, runtime_profile.bpf.h) then stores these frames; user
 * space puts them in place of the pseudo pcs (interp_merge: the ranges are the runtime's
 * eval ranges). A new runtime adds its step's header below and its case in cp_jit_step.
 */
#ifndef CPUPROF_JIT_HOOK_BPF_H
#define CPUPROF_JIT_HOOK_BPF_H

/* cp_jit_step: the runtime has no step for this frame; the native walk goes on with it */
#define STEP_NATIVE 2

/* The range of rp's JIT ranges holding look, or -1. */
static __always_inline int jit_range(const struct cp_rt_proc *rp, __u64 look)
{
	__u32 n = rp->jit_n;

#pragma unroll
	for (int i = 0; i < CP_RT_JIT_RANGES; i++)
		if (i < (int)n && look >= rp->jit[i].start && look < rp->jit[i].end)
			return i;
	return -1;
}

/* Record a runtime frame of the frame being walked (innermost first). */
static __always_inline void jit_push(struct cp_ustate *s, __u64 ptr, __u32 pos, __u8 kind)
{
	rt_push(&s->rt.st, ptr, pos, kind, 0);
}

/* Record a frame inlined into the next one pushed (its caller's code). */
static __always_inline void jit_push_inlined(struct cp_ustate *s, __u64 ptr, __u32 pos, __u8 kind)
{
	rt_push(&s->rt.st, ptr, pos, kind, CP_RT_FF_INLINED);
}

/*
 * The frames of this native frame are recorded: the last one is the frame's own (never
 * inlined) and ends its activation.
 */
static __always_inline void jit_done(struct cp_ustate *s)
{
	__u32 n = s->rt.st.len;

	if (n && n <= CP_RT_MAX_FRAMES)
		s->rt.st.frames[(n - 1) & (CP_RT_MAX_FRAMES - 1)].flags &= ~CP_RT_FF_INLINED;
	rt_mark_entry(&s->rt.st);
}

/*
 * Go on with the caller: pc (a return address), sp and fp after the return. The stack ends
 * at a 0 return address; a stack pointer that does not grow would loop.
 */
static __always_inline int jit_caller(struct cp_ustate *s, __u64 pc, __u64 sp, __u64 fp)
{
	if (!pc)
		return step_end(s, CP_DEND_OK);
	if (sp <= s->sp)
		return step_end(s, CP_DEND_LOOP);
	s->pc = pc;
	s->sp = sp;
	s->bp = fp;
	s->exact = 0;
	return STEP_MORE;
}

/* the runtimes' steps: int cp_X_step(struct cp_ustate *, const struct cp_X_proc *, __u64 look) */
#include "v8_step.bpf.h"
#include "hotspot_step.bpf.h"

/*
 * The frame at s->pc (look: the pc looked up, pc - 1 for a return address) lies in a JIT range
 * of rp: the runtime's step. STEP_MORE, STEP_END, or STEP_NATIVE when it has none. Global: the
 * verifier checks it once, not in each of the walk's steps.
 */
__noinline int cp_jit_step(struct cp_ustate *s, const struct cp_rt_proc *rp, __u64 look)
{
	if (!s || !rp || !look)
		return STEP_END;
	switch (rp->runtime) {
	case CP_RT_V8:
		return cp_v8_step(s, (const struct cp_v8_proc *)rp->data, look);
	case CP_RT_JAVA:
		return cp_hs_step(s, (const struct cp_hs_proc *)rp->data, look);
	default:
		break;
	}
	return STEP_NATIVE;
}

#endif
