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

struct drain {
	void *ctx; /* passed to each function below */
	/* The number of counts, read by index with count() below. */
	size_t (*n_counts)(void *ctx);
	/*
	 * Count i (i < n_counts()): *key points at the key where the source keeps it, valid as
	 * long as the source. 0 or a negative errno (a failed read of the source).
	 */
	int (*count)(void *ctx, size_t i, const struct cp_count_key **key, uint64_t *count);
	/*
	 * Stack id's frames (innermost first), where the source keeps them: *ips points at *n
	 * frames (at most CP_MAX_STACK_DEPTH), valid as long as the source; nothing is copied.
	 * kernel selects the kernel or the user stacks. -ENOENT if id is unknown.
	 */
	int (*stack)(void *ctx, bool kernel, int32_t id, const uint64_t **ips, size_t *n);
	/*
	 * The DWARF-walked user stack stored under key (cp_count_key.dstack), in place as
	 * stack() gives its frames: *n at most CP_MAX_USTACK_DEPTH, *end how the walk ended
	 * (enum cp_dstack_end). -ENOENT if key is unknown.
	 */
	int (*dwarf_stack)(void *ctx, uint64_t key, const uint64_t **ips, size_t *n, uint32_t *end);
	/*
	 * The interpreter frames stored under key (cp_count_key.istack, its runtime in
	 * istack_kind); NULL when the source has none. -ENOENT if key is unknown.
	 */
	int (*rt_stack)(void *ctx, uint64_t key, struct cp_rt_stack *out);
	/*
	 * The goroutine labels stored under key (cp_count_key.labels), in place; NULL when the
	 * source has none. -ENOENT if key is unknown (the set was pushed out of golabels).
	 */
	int (*labels)(void *ctx, uint64_t key, const struct cp_go_labels **out);
};

#endif
