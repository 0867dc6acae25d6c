// SPDX-License-Identifier: GPL-2.0
/*
 * Perl's descriptor (runtime.h): pl_detect_process, Perl_runops_standard's range. Its frames
 * are named from what BPF copied (bpf/perl_walk.bpf.h cp_pl_name), their line is the frame's
 * pos.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/pl_detect.h"
#include "interp/pl_runtime.h"
#include "interp/runtime.h"

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_pl_proc *out = proc;
	int err = pl_detect_process(ps, pid, gen, plain, out);
	uint32_t v = out->off.version;

	*state = NULL;
	if (err == -ENOTSUP)
		snprintf(why, why_size,
			 "Perl, but built without threads or a version without offsets");
	else if (!err)
		snprintf(why, why_size, "Perl %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
	return err;
}

static void state_free(void *state)
{
	(void)state;
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_pl_proc *lp = proc;

	/* Perl_runops_debug in the place of a cold part: a second range of the loop */
	*out = (struct rt_eval_range){lp->runops_start, lp->runops_end, lp->debug_start,
				      lp->debug_end,	NULL,		0};
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_PL_END_OK] = "whole",
	[CP_PL_END_NO_PROC] = "no Perl",
	[CP_PL_END_NO_STATE] = "no Perl thread",
	[CP_PL_END_TRUNCATED] = "truncated",
	[CP_PL_END_READ] = "unreadable",
};

/* perl, perl5.36.0, libperl.so.5.36 */
static const char *const hints[] = {"perl", "libperl", NULL};

const struct runtime pl_runtime = {
	.id = CP_RT_PERL,
	.name = "Perl",
	.prefix = "pl",
	.truncated = "[perl truncated]",
	.ends = ends,
	.end_truncated = CP_PL_END_TRUNCATED,
	.attach = attach,
	.state_free = state_free,
	.name_frame = NULL,
	.eval = eval,
	.pos_is_line = true,
	.hints = hints,
};
