// SPDX-License-Identifier: GPL-2.0
/*
 * HotSpot's descriptor (runtime.h): hs_detect_process, the CodeCache as its one JIT range (the
 * JIT hook's, bpf/hotspot_step.bpf.h) and as the range whose pseudo pcs its frames replace.
 * Its frames are named from the live JVM (hs_names: with the line of their bci), else from
 * what BPF copied ("pkg.Class.method", the source file).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp/hs_detect.h"
#include "interp/hs_names.h"
#include "interp/hs_runtime.h"
#include "interp/runtime.h"

/* What naming needs besides the process's record. */
struct hs_state {
	struct hs_line_offsets lines;
};

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_hs_proc *out = proc;
	struct hs_state *st = calloc(1, sizeof(*st));
	int err;
	uint32_t v;

	*state = NULL;
	if (!st)
		return -ENOMEM;
	err = hs_detect_process(ps, pid, gen, plain, out, &st->lines, why, why_size);
	v = out->version;
	if (err) {
		free(st);
		return err;
	}
	snprintf(why, why_size, "HotSpot %u.%u.%u (%u code heaps)", v >> 16, (v >> 8) & 0xff,
		 v & 0xff, out->n_heaps);
	*state = st;
	return 0;
}

static void state_free(void *state)
{
	free(state);
}

static int name_frame(void *state, pid_t pid, const void *proc, const struct cp_rt_frame *f,
		      struct rt_frame_info *out)
{
	const struct hs_state *st = state;

	return hs_name_frame(pid, proc, st ? &st->lines : NULL, f, out);
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_hs_proc *p = proc;

	*out = (struct rt_eval_range){p->cc_low, p->cc_high, 0, 0, NULL, 0};
}

static size_t jit(const void *proc, struct cp_rt_jit_range *out, size_t max)
{
	const struct cp_hs_proc *p = proc;

	if (!max || p->cc_high <= p->cc_low)
		return 0;
	out[0] = (struct cp_rt_jit_range){p->cc_low, p->cc_high};
	return 1;
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_HS_END_OK] = "whole",
	[CP_HS_END_NO_PROC] = "no JVM",
	[CP_HS_END_NO_FRAMES] = "no Java frames",
	[CP_HS_END_NO_BLOB] = "pc in no code blob",
	[CP_HS_END_BAD_FP] = "interpreter frame without its frame pointer",
	[CP_HS_END_READ] = "unreadable",
};

/* java; javac, jshell... need libjli.so */
static const char *const hints[] = {"java", "libjli", "libjvm", NULL};

const struct runtime hs_runtime = {
	.id = CP_RT_JAVA,
	.name = "Java",
	.prefix = "java",
	.truncated = "[java truncated]",
	.ends = ends,
	.end_truncated = CP_HS_END_READ,
	.attach = attach,
	.state_free = state_free,
	.name_frame = name_frame,
	.eval = eval,
	.pos_is_line = false,
	.jit = jit,
	.hints = hints,
};
