// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"

/* Frames of one sample: two stacks plus pseudo-frames. */
#define MAX_FRAMES (2 * CP_MAX_STACK_DEPTH + 4)

struct agg {
	struct bpf_session *s;
	struct symbolizer *sy;
	const struct aggregate_opts *o;
	struct profile *prof;
	struct aggregate_stats st;
	uint64_t ips[CP_MAX_STACK_DEPTH];
	uint32_t frames[MAX_FRAMES];
};

static const char *stack_error(int32_t id)
{
	switch (-id) {
	case EEXIST:
		return "hash collision";
	case ENOMEM:
		return "stack map full";
	case EFAULT:
		return "unreadable";
	case ENOENT:
		return "missing";
	default:
		return "error";
	}
}

static int add_pseudo(struct agg *a, const char *name, uint32_t *n)
{
	struct prof_frame f = {.name = name, .kind = FRAME_PSEUDO};

	return profile__intern_frame(a->prof, &f, &a->frames[(*n)++]);
}

static const enum prof_map_kind map_kinds[] = {
	[SYM_MAP_NONE] = PMAP_UNKNOWN,	  [SYM_MAP_FILE] = PMAP_FILE,
	[SYM_MAP_ANON] = PMAP_ANON,	  [SYM_MAP_VDSO] = PMAP_VDSO,
	[SYM_MAP_SPECIAL] = PMAP_SPECIAL, [SYM_MAP_KERNEL] = PMAP_KERNEL,
};

/* The profile's mapping for a frame (id + 1), 0 when no mapping holds its address. */
static int frame_mapping(struct agg *a, uint32_t pid, const struct sym_frame *sf, uint32_t *out)
{
	struct prof_mapping m = {
		/* one kernel mapping for every process */
		.pid = sf->map_kind == SYM_MAP_KERNEL ? 0 : pid,
		.kind = map_kinds[sf->map_kind],
		.start = sf->map_start,
		.limit = sf->map_end,
		.offset = sf->map_offset,
		.path = sf->map_path,
		.build_id = sf->build_id,
	};
	uint32_t id;
	int err;

	*out = 0;
	if (sf->map_kind == SYM_MAP_NONE)
		return 0;
	err = profile__intern_mapping(a->prof, &m, &id);
	if (!err)
		*out = id + 1;
	return err;
}

static int add_stack(struct agg *a, const struct cp_count_key *k, uint64_t count, bool kernel,
		     uint32_t *n)
{
	int32_t id = kernel ? k->kstack_id : k->ustack_id;
	struct prof_frame f;
	struct sym_frame sf;
	uint32_t mapping;
	char pseudo[64];
	size_t depth;
	int err;

	if (id == CP_STACK_NONE)
		return 0;
	if (id >= 0 && (bpf_session__stack(a->s, kernel, id, a->ips, &depth) || !depth)) {
		a->st.stacks_missing += count;
		id = -ENOENT;
	}
	if (id < 0) {
		snprintf(pseudo, sizeof(pseudo), "[%s stack lost: %s]", kernel ? "kernel" : "user",
			 stack_error(id));
		return add_pseudo(a, pseudo, n);
	}
	/* the outermost callers are the ones lost: mark the root end */
	if (depth >= a->o->max_depth) {
		err = add_pseudo(a, kernel ? "[kernel stack truncated]" : "[user stack truncated]",
				 n);
		if (err)
			return err;
	}
	/* the maps hold the leaf first; profiles are written root first */
	for (size_t i = depth; i-- > 0;) {
		bool leaf = i == 0;

		err = kernel ? symbolizer__kernel(a->sy, a->ips[i], leaf, &sf)
			     : symbolizer__user(a->sy, k->pid, k->gen, a->ips[i], leaf, &sf);
		if (!err)
			err = frame_mapping(a, k->pid, &sf, &mapping);
		if (err)
			return err;
		f = (struct prof_frame){
			.name = sf.name,
			.module = sf.module,
			.addr = a->ips[i],
			.rel = sf.rel,
			.kind = kernel ? FRAME_KERNEL : FRAME_USER,
			.mapping = mapping,
			.named = sf.named,
		};
		err = profile__intern_frame(a->prof, &f, &a->frames[(*n)++]);
		if (err)
			return err;
	}
	return 0;
}

static int on_count(const struct cp_count_key *k, uint64_t count, void *ctx)
{
	struct agg *a = ctx;
	char comm[CP_COMM_LEN + 1] = {}, tcomm[CP_COMM_LEN + 1] = {};
	uint32_t n = 0;
	int err;

	memcpy(comm, k->comm, CP_COMM_LEN);
	memcpy(tcomm, k->tcomm, CP_COMM_LEN);
	/* the final word on --comm: the name the process had when it was sampled */
	if (a->o->comm_re && regexec(a->o->comm_re, comm, 0, NULL, 0) != 0) {
		a->st.comm_filtered += count;
		return 0;
	}
	/* root first: the user stack, then the kernel stack the sample was taken in */
	err = add_stack(a, k, count, false, &n);
	if (!err)
		err = add_stack(a, k, count, true, &n);
	if (!err && n == 0) {
		const char *what = a->o->kernel_only ? "[user space]"
				   : a->o->no_kernel ? "[kernel]"
						     : "[no stack]";

		err = add_pseudo(a, what, &n);
	}
	if (!err)
		err = profile__add(a->prof, k->pid, k->tid, comm, tcomm, a->frames, n, count);
	return err;
}

int aggregate_counts(struct bpf_session *s, struct symbolizer *sy, const struct aggregate_opts *o,
		     struct profile *p, struct aggregate_stats *st)
{
	struct agg *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a->s = s;
	a->sy = sy;
	a->o = o;
	a->prof = p;
	err = bpf_session__for_each_count(s, on_count, a);
	*st = a->st;
	free(a);
	return err;
}
