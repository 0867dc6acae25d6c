// SPDX-License-Identifier: GPL-2.0
/*
 * PHP's descriptor (runtime.h): php_detect_process, execute_ex's range. Its frames are named
 * from what BPF copied (bpf/php_walk.bpf.h cp_php_name), their line is the frame's pos.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/php_detect.h"
#include "interp/php_runtime.h"
#include "interp/runtime.h"

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_php_proc *out = proc;
	int err = php_detect_process(ps, pid, gen, plain, out);
	uint32_t v = out->off.version;

	*state = NULL;
	if (err == -ENOTSUP)
		snprintf(why, why_size, "PHP, but a ZTS build or a version without offsets");
	else if (!err)
		snprintf(why, why_size, "PHP %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
	return err;
}

static void state_free(void *state)
{
	(void)state;
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_php_proc *pp = proc;

	*out = (struct rt_eval_range){pp->exec_start, pp->exec_end, 0, 0, NULL, 0};
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_PHP_END_OK] = "whole",
	[CP_PHP_END_NO_PROC] = "no PHP",
	[CP_PHP_END_NO_STATE] = "no script running",
	[CP_PHP_END_TRUNCATED] = "truncated",
	[CP_PHP_END_READ] = "unreadable",
};

/* php8.2, php-fpm8.2, libphp8.2.so */
static const char *const hints[] = {"php", "libphp", NULL};

const struct runtime php_runtime = {
	.id = CP_RT_PHP,
	.name = "PHP",
	.prefix = "php",
	.truncated = "[php truncated]",
	.ends = ends,
	.end_truncated = CP_PHP_END_TRUNCATED,
	.attach = attach,
	.state_free = state_free,
	.name_frame = NULL,
	.eval = eval,
	.pos_is_line = true,
	.hints = hints,
};
