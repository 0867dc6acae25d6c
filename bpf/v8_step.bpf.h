/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V8's step of the JIT code range hook (jit_hook.bpf.h; included there, after v8_walk.bpf.h):
 * a frame whose pc lies in V8's code (its JIT memory, node's embedded builtins). A JS frame
 * (interpreted, baseline, optimized: its JSFunction in its slots) is recorded and left by its
 * frame pointer, as V8 lays every frame out: the saved rbp at fp, the return address at fp + 8.
 * Other frames of V8's code (entry, exit, stub frames: a marker in the slots) are native ones.
 */
#ifndef CPUPROF_V8_STEP_BPF_H
#define CPUPROF_V8_STEP_BPF_H

static __always_inline int cp_v8_step(struct cp_ustate *s, const struct cp_v8_proc *p, __u64 look)
{
	__u64 fp = s->bp, frame[2];
	int r;

	(void)look;
	/* V8's frame: its fp above the stack pointer, within a frame's reach */
	if (fp < s->sp || fp - s->sp > CP_FP_MAX_FRAME || (fp & 7))
		return STEP_NATIVE;
	if (bpf_probe_read_user(frame, sizeof(frame), (void *)fp))
		return STEP_NATIVE;
	/* no room: the frame stays a native one (a pseudo pc needs its frame) */
	if (s->rt.st.len >= CP_RT_MAX_FRAMES) {
		s->rt.st.end = CP_V8_END_TRUNCATED;
		return STEP_NATIVE;
	}
	/* the pc looked up again (as cp_unwind_step made it): look kept across the read above
	   would take a stack slot this deep in the walk's calls (512 bytes for all) */
	r = cp_v8_frame(p, fp, s->exact ? s->pc : s->pc - 1, &s->rt.st, 0);
	if (r != 1)
		return STEP_NATIVE;
	jit_done(s);
	return jit_caller(s, frame[1], fp + 16, frame[0]);
}

#endif
