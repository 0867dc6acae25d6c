/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drain the in-kernel aggregation (read through struct drain) into a struct profile: for each
 * (process, stacks) count, name every frame (root first: user frames, then kernel frames) and
 * mark what was lost with pseudo-frames, so the totals stay honest. Run on each set of maps
 * drained while recording (and the last ones after it): the counts of one stack from several
 * drains add up in the profile, as do the stats with aggregate_stats_add.
 */
#ifndef CPUPROF_AGGREGATE_H
#define CPUPROF_AGGREGATE_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include "interp/runtime.h"
#include "profile/drain.h"
#include "profile/profile.h"
#include "symbol/symbolize.h"

/*
 * Names of object addresses kept across the drains of one profile: (object, virtual address)
 * -> the profile's frame ids, so that an address of a program is named once, whichever of its
 * processes (each with its own load addresses) and drains it comes in. Kernel addresses too.
 * At most max_entries addresses: past that it starts again empty (names are not lost, only
 * named again). Used with one profile only: its frame ids are that profile's.
 */
struct name_cache;

/* NULL on ENOMEM. */
struct name_cache *name_cache__new(size_t max_entries);
void name_cache__free(struct name_cache *nc); /* NULL-safe */

/* Addresses held now, and times it was emptied because it was full. */
size_t name_cache__n(const struct name_cache *nc);
/* Its bytes of memory, tables counted at their capacity (for -vv). */
size_t name_cache__bytes(const struct name_cache *nc);
unsigned int name_cache__resets(const struct name_cache *nc);

struct aggregate_opts {
	bool kernel_only;	/* a sample without frames was in user mode: "[user space]" */
	bool no_kernel;		/* a sample without frames was a kernel thread: "[kernel]" */
	const regex_t *comm_re; /* --comm: keep only processes whose name matched when sampled */
	unsigned int max_depth; /* frames the kernel keeps per stack: more were possibly cut */
	/*
	 * The interpreters (interp/runtime.h; NULL: their frames are left out): runtime id's
	 * record of process (pid, gen), NULL when none, and the names of one of its frames (0, or
	 * -ESRCH gone unnamed, -ENOENT no runtime known, -ENODATA BPF copied nothing
	 * of a runtime named from its copies only, other: unreadable). Called with rt_ctx.
	 */
	const void *(*rt_proc)(void *ctx, uint32_t id, uint32_t pid, uint32_t gen);
	int (*rt_name)(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		       const struct rt_frame_info **out);
	void *rt_ctx;
	/* names kept across drains of the same profile; NULL: kept for this drain only */
	struct name_cache *cache;
	/*
	 * Threads naming objects at once (0 or 1: this one alone, at most 64); the profile is
	 * the same whatever the number.
	 */
	unsigned int jobs;
};

#define AGG_ANON_PROCS 4

struct aggregate_stats {
	uint64_t comm_filtered;	 /* samples --comm left out */
	uint64_t stacks_missing; /* samples whose stack id could not be read back */
	uint64_t ustacks;	 /* samples with a user stack */
	uint64_t ustacks_entry;	 /* of which the outermost frame is an entry point (_start,
				    __libc_start_main, start_thread, clone3...): complete */
	uint64_t hurried;	 /* addresses named without DWARF after aggregate_hurry */
	uint64_t bad_ra;	 /* user stacks cut at an address outside the process's
				    executable mappings (a frame-pointer walk of something else,
				    the leaf of a sample taken in execve) */
	/*
	 * Of the samples kept, those whose key shows damage, indexed like the BPF counters
	 * (enum cp_stat): user and kernel stack errors (a DWARF stack's collision or full map
	 * shows as the user stack's), and how DWARF walks ended. The BPF counters count every
	 * sample taken; with --comm these count the profile's alone.
	 */
	uint64_t kept[CP_STAT_MAX];
	uint64_t rt_stacks[CP_RT_MAX]; /* samples with a runtime's frames merged into their stack */
	uint64_t rt_frames[CP_RT_MAX]; /* its frames in them (times their samples) */
	uint64_t rt_unnamed[CP_RT_MAX][RT_UNNAMED_MAX]; /* of those, unnamed, per reason */
	uint64_t rt_glue[CP_RT_MAX]; /* native frames dropped: the runtime's own frame seen */
	uint64_t rt_unnamed_samples[CP_RT_MAX]; /* samples with one of its frames unnamed */
	uint64_t comm_checks;			/* --comm matches tried: one per count */
	uint64_t labeled;			/* samples with goroutine labels */
	uint64_t labels_lost;			/* samples whose label set was gone from golabels */
	/*
	 * Samples whose user stack holds a frame in anonymous executable memory that no perf map
	 * names (JIT code of a runtime cpuprof does not walk), and the processes with the most
	 * (the first AGG_ANON_PROCS met; their comm as the kernel keeps it).
	 */
	uint64_t anon_samples;
	struct agg_anon_proc {
		uint32_t pid;
		char comm[16];
		uint64_t samples;
		uint64_t walked; /* its samples with a runtime's frames after the first of those */
	} anon[AGG_ANON_PROCS];
};

/*
 * A drain added to a profile step by step, so that its caller runs its own loop between the
 * steps (answers requests, looks at signals, hurries) and nothing here calls back into it.
 * Each count's --comm is asked once, and its stacks are read where the drain keeps them.
 */
struct aggregate;

/* Start adding every count of d to p (d, sy, o and p must outlive it). 0 or -ENOMEM. */
int aggregate_begin(const struct drain *d, struct symbolizer *sy, const struct aggregate_opts *o,
		    struct profile *p, struct aggregate **out);

/*
 * One step: the next counts (a few hundred addresses to name), named ahead with o->jobs
 * threads, then added. 1 while counts remain, 0 once all are added, or a negative errno.
 */
int aggregate_step(struct aggregate *g);

/*
 * From now on the addresses still to name are named from the ELF symbol tables only (no
 * DWARF: no inlined frames, files or lines), which is much faster. For a second Ctrl-C.
 */
void aggregate_hurry(struct aggregate *g);
bool aggregate_hurried(const struct aggregate *g);

/* End (whether every step ran or not): this drain's stats into *st (NULL: none); frees g. */
void aggregate_end(struct aggregate *g, struct aggregate_stats *st);

/* Every step at once: add every count of d to p; fill *st (this drain's alone). */
int aggregate_counts(const struct drain *d, struct symbolizer *sy, const struct aggregate_opts *o,
		     struct profile *p, struct aggregate_stats *st);

/* Add the stats of one drain to those of the drains before it. */
void aggregate_stats_add(struct aggregate_stats *to, const struct aggregate_stats *from);

#endif
