/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the drain (aggregate.c) reads: the in-kernel aggregation (bpf/shared.h's counts map,
 * stack maps and DWARF-walked stacks) once sampling has stopped. A source of counts fills in
 * the functions and its own ctx: the BPF maps of a recording (bpf_session__drain), or
 * hand-made counts in the unit tests. An interface only: no module behind it.
 */
#ifndef CPUPROF_DRAIN_H
#define CPUPROF_DRAIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "runtime_shared.h"

/* Called once per count; a nonzero result stops the walk. */
typedef int (*drain_count_fn)(const struct cp_count_key *key, uint64_t count, void *ctx);

struct drain {
	void *ctx; /* passed to each function below */
	/* Call fn for every count; stops at and returns fn's first nonzero result. */
	int (*for_each_count)(void *ctx, drain_count_fn fn, void *fn_ctx);
	/*
	 * Copy stack id's frames (innermost first) into ips (CP_MAX_STACK_DEPTH entries) and
	 * their number into *n. kernel selects the kernel or the user stacks. -ENOENT if id is
	 * unknown.
	 */
	int (*stack)(void *ctx, bool kernel, int32_t id, uint64_t *ips, size_t *n);
	/*
	 * The DWARF-walked user stack stored under key (cp_count_key.dstack), out->len at most
	 * CP_MAX_USTACK_DEPTH. -ENOENT if key is unknown.
	 */
	int (*dwarf_stack)(void *ctx, uint64_t key, struct cp_dstack *out);
	/*
	 * The interpreter frames stored under key (cp_count_key.istack, its runtime in
	 * istack_kind); NULL when the source has none. -ENOENT if key is unknown.
	 */
	int (*rt_stack)(void *ctx, uint64_t key, struct cp_rt_stack *out);
};

#endif
