// SPDX-License-Identifier: GPL-2.0
/* CPython's descriptor (runtime.h): py_attach, py_code_read, the eval loop's range. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/py_detect.h"
#include "interp/py_proc.h"
#include "interp/py_runtime.h"
#include "interp/runtime.h"

_Static_assert(sizeof(struct cp_py_proc) <= CP_RT_PROC_DATA, "cp_rt_proc.data holds it");

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct py_attach_why w;
	int err = py_attach(ps, pid, gen, plain, proc, &w);

	*state = NULL;
	if (err == -ENOTSUP)
		snprintf(why, why_size, "CPython %u.%u is not supported",
			 PY_HEX_MAJOR(w.hexversion), PY_HEX_MINOR(w.hexversion));
	else if (err == -EPROTO)
		snprintf(why, why_size, "CPython's %s is not where the offsets say", w.mismatch);
	else if (!err)
		snprintf(why, why_size, "CPython %u.%u", PY_HEX_MAJOR(w.hexversion),
			 PY_HEX_MINOR(w.hexversion));
	return err;
}

static void state_free(void *state)
{
	(void)state;
}

static int name_frame(void *state, pid_t pid, const void *proc, const struct cp_rt_frame *f,
		      struct rt_frame_info *out)
{
	const struct cp_py_proc *pp = proc;

	(void)state;
	return py_code_read(pid, &pp->off, f->ptr, f->pos, out);
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_py_proc *pp = proc;

	*out = (struct rt_eval_range){pp->eval_start,	 pp->eval_end, pp->eval_cold_start,
				      pp->eval_cold_end, NULL,	       0};
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_PY_END_OK] = "whole",
	[CP_PY_END_NO_PROC] = "no CPython",
	[CP_PY_END_NO_TSTATE] = "no Python thread",
	[CP_PY_END_TRUNCATED] = "truncated",
	[CP_PY_END_READ] = "unreadable",
	[CP_PY_END_BAD_CODE] = "bad code object",
};

/* python3.12+ -X perf: the trampoline each Python call runs through (Python/perf_trampoline.c) */
static const char *const py_glue[] = {"py_trampoline_evaluator", NULL};

/* CPython: python3.11, libpython3.11.so */
static const char *const hints[] = {"python", "libpython", NULL};

const struct runtime py_runtime = {
	.id = CP_RT_PYTHON,
	.name = "CPython",
	.prefix = "py",
	.truncated = "[python truncated]",
	.ends = ends,
	.end_truncated = CP_PY_END_TRUNCATED,
	.glue = py_glue,
	.attach = attach,
	.state_free = state_free,
	.name_frame = name_frame,
	.eval = eval,
	.hints = hints,
};
