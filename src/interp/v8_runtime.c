// SPDX-License-Identifier: GPL-2.0
/*
 * V8's descriptor (runtime.h): v8_detect_process, and its code (the embedded builtins, the
 * code range) as the JIT code range hook's ranges (bpf/v8_step.bpf.h records the JS frames met
 * there during the native walk). Its frames are named from what BPF copied
 * (bpf/v8_walk.bpf.h cp_v8_name); pos is 1 + the script position an interpreted frame runs,
 * made a line from the script's file (runtime_name_pos).
 */
#include <errno.h>
#include <stdio.h>
#include "interp/v8_detect.h"
#include "interp/v8_runtime.h"

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_v8_proc *out = proc;
	int err = v8_detect_process(ps, pid, gen, plain, out);
	uint32_t v = out->off.version;

	*state = NULL;
	if (err == -ENOTSUP)
		snprintf(why, why_size,
			 "V8 %u.%u.%u, whose version or metadata the walker does not know (64-bit "
			 "SMIs, 9.6.138 and later: node 20's V8 11.3 is tested)",
			 v >> 24, (v >> 16) & 0xff, v & 0xffff);
	else if (!err)
		snprintf(why, why_size, "V8 %u.%u.%u, %u code range%s", v >> 24, (v >> 16) & 0xff,
			 v & 0xffff, out->n_code, out->n_code == 1 ? "" : "s");
	return err;
}

static void state_free(void *state)
{
	(void)state;
}

/* its JIT ranges: the builtins, then the code ranges */
static size_t jit(const void *proc, struct cp_rt_jit_range *out, size_t max)
{
	const struct cp_v8_proc *vp = proc;
	size_t n = 0;

	if (n < max && vp->builtins.end > vp->builtins.start)
		out[n++] = vp->builtins;
	for (uint32_t i = 0; i < vp->n_code && i < CP_V8_CODE_RANGES && n < max; i++)
		out[n++] = vp->code[i];
	return n;
}

/* the frames its frames replace: the hook's pseudo pcs of its ranges */
static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_v8_proc *vp = proc;

	*out = (struct rt_eval_range){0, 0, 0, 0, NULL, 0};
	/* builtins and code ranges in a row in the record */
	out->jit = &vp->builtins;
	out->n_jit = 1 + (vp->n_code < CP_V8_CODE_RANGES ? vp->n_code : CP_V8_CODE_RANGES);
}

/* A new isolate (a worker) maps a code range of its own: the ranges read again. */
static int jit_refresh(void *proc, uint32_t pid)
{
	struct cp_v8_proc *vp = proc;

	return v8_code_ranges("/proc", pid, vp->obj_ino, vp);
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_V8_END_OK] = "whole",
	[CP_V8_END_NO_FRAMES] = "no JS frame",
	[CP_V8_END_TRUNCATED] = "truncated",
	[CP_V8_END_READ] = "unreadable",
};

/* node, nodejs, libnode.so */
static const char *const hints[] = {"node", "libnode", NULL};

const struct runtime v8_runtime = {
	.id = CP_RT_V8,
	.name = "V8",
	.prefix = "js",
	.truncated = "[js truncated]",
	.ends = ends,
	.end_truncated = CP_V8_END_TRUNCATED,
	.attach = attach,
	.state_free = state_free,
	.name_frame = NULL,
	.eval = eval,
	.pos_is_line = false,
	.pos_is_src = true,
	.jit = jit,
	.jit_refresh = jit_refresh,
	.hints = hints,
};
