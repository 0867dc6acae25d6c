/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of interpreter frames during a recording: one entry per (pid, gen, frame), read
 * once from its process (or from what BPF copied of it), then kept until the process is
 * forgotten. A name that only BPF's copy can give, and that BPF has not copied yet, is looked
 * at again at later rounds (RT_NAMED_TRIES in all): BPF stores a stack before it copies its
 * names (bpf/runtime_profile.bpf.h), and a round on another CPU can fall between the two.
 */
#ifndef CPUPROF_RT_NAMED_H
#define CPUPROF_RT_NAMED_H
#include <stddef.h>
#include <stdint.h>
#include "interp/runtime.h"
#include "util/idtable.h"

/*
 * Rounds come every 250 ms and at each drain (5 s by default); a name over BPF's per-sample
 * budget is copied when its stack is new in the other set, after the next drain: 48 looks
 * cover two drains. A name BPF can never copy costs 48 map lookups.
 */
#define RT_NAMED_TRIES 48 /* < 256: a uint8_t counts them */

struct cp_rt_frame;

struct rt_named_ops {
	void *ctx;
	/*
	 * The names of frame f of (pid, gen) read from its process: 0; -ENOENT no runtime known
	 * there (nothing kept: asked again next time); -ENODATA its runtime is named from BPF's
	 * copies only; -ESRCH the process is gone; other -errno unreadable.
	 */
	int (*read)(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		    struct rt_frame_info *out);
	/* The names of f from what BPF copied: 0 or -errno (nothing copied). */
	int (*copied)(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		      struct rt_frame_info *out);
};

struct rt_named_entry;

struct rt_named {
	struct rt_named_ops ops;
	struct rt_named_entry *v;
	size_t n, cap;
	struct idtable index; /* of v */
	uint32_t round;	      /* rt_named_round: one more look at a missing copy each */
};

/* An empty set of names read through ops. */
void rt_named_init(struct rt_named *c, const struct rt_named_ops *ops);
void rt_named_free(struct rt_named *c);

/*
 * The names of frame f of (pid, gen): 0 (*out set); -ENOENT no runtime known; -ENOMEM; else
 * why it has none (the errors of ops.read, after BPF's copy was tried too).
 */
int rt_named_get(struct rt_named *c, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		 const struct rt_frame_info **out);

/* A new round of naming: a copy missing before is looked at again, once a round. */
void rt_named_round(struct rt_named *c);

/* Drop the names of the processes keys (pid << 32 | gen, sorted). Out of memory, names not
   indexed again are read again when asked for. */
void rt_named_forget(struct rt_named *c, const uint64_t *keys, size_t n);

/* Names kept. */
size_t rt_named_count(const struct rt_named *c);

#endif
