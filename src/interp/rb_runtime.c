// SPDX-License-Identifier: GPL-2.0
/* Ruby's descriptor (runtime.h): detection, offsets, rb_proc_build, rb_names, rb_vm_exec. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/rb_detect.h"
#include "interp/rb_offsets.h"
#include "interp/rb_proc.h"
#include "interp/rb_runtime.h"
#include "interp/runtime.h"

_Static_assert(sizeof(struct cp_rb_proc) <= CP_RT_PROC_DATA, "cp_rt_proc.data holds it");

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_rb_proc *out = proc;
	struct cp_rb_offsets off;
	struct rb_process rp;
	uint32_t v;
	int err;

	*state = NULL;
	err = rb_detect_process(ps, pid, gen, plain, &rp);
	v = err == -ENOENT ? 0 : rp.info.version;
	if (err == -ENOTSUP)
		snprintf(why, why_size, "Ruby %u.%u is not supported", v >> 16, (v >> 8) & 0xff);
	if (err)
		return err;
	err = rb_offsets_table(v, &off);
	if (err)
		return err;
	err = rb_proc_build((pid_t)pid, &rp, &off, out);
	if (err && err != -EAGAIN)
		snprintf(why, why_size,
			 "Ruby %u.%u, but its execution contexts cannot be found (%s)", v >> 16,
			 (v >> 8) & 0xff, strerror(-err));
	if (err)
		return err;
	out->gen = gen;
	*state = rb_names_new((pid_t)pid, &rp, &off);
	if (!*state)
		return -ENOMEM;
	snprintf(why, why_size, "Ruby %u.%u.%u (EC mode %u)", v >> 16, (v >> 8) & 0xff, v & 0xff,
		 out->ec_mode);
	return 0;
}

static void state_free(void *state)
{
	rb_names_free(state);
}

static int name_frame(void *state, pid_t pid, const void *proc, const struct cp_rt_frame *f,
		      struct rt_frame_info *out)
{
	(void)pid;
	(void)proc;
	return rb_names_frame(state, f, out);
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_rb_proc *rp = proc;

	*out = (struct rt_eval_range){rp->vm_exec_start, rp->vm_exec_end, 0, 0, NULL, 0};
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_RB_END_OK] = "whole",
	[CP_RB_END_NO_PROC] = "no Ruby",
	[CP_RB_END_NO_EC] = "no Ruby thread",
	[CP_RB_END_TRUNCATED] = "truncated",
	[CP_RB_END_READ] = "unreadable",
	[CP_RB_END_BAD_STACK] = "frame outside its VM stack",
};

/* ruby3.1, libruby-3.1.so */
static const char *const hints[] = {"ruby", "libruby", NULL};

const struct runtime rb_runtime = {
	.id = CP_RT_RUBY,
	.name = "Ruby",
	.prefix = "rb",
	.truncated = "[ruby truncated]",
	.ends = ends,
	.end_truncated = CP_RB_END_TRUNCATED,
	.attach = attach,
	.state_free = state_free,
	.name_frame = name_frame,
	.eval = eval,
	.hints = hints,
};
