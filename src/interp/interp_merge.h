/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interleaving a sample's interpreter frames with its native frames (interpreters.md 3, 5.6),
 * the same for every runtime: walking the native stack leaf to root, each frame whose pc lies
 * in the interpreter loop (CPython's _PyEval_EvalFrameDefault and its .cold part, 2.7's
 * PyEval_EvalFrameEx; Ruby's rb_vm_exec...) is replaced by the interpreter frames that
 * activation ran: from the cursor up to and including the next frame flagged CP_RT_FF_ENTRY.
 * So C code called from the script (list.sort, Integer#times, a C extension) stays under the
 * function that called it, and script code called from C under that C function. Presentation
 * (naming) is left to the caller.
 */
#ifndef CPUPROF_INTERP_MERGE_H
#define CPUPROF_INTERP_MERGE_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/runtime.h"

enum rt_mframe_kind {
	RT_MF_NATIVE,	 /* pcs[index] */
	RT_MF_INTERP,	 /* frames[index] */
	RT_MF_TRUNCATED, /* the interpreter's walk was cut here (more frames than it records) */
};

struct rt_mframe {
	enum rt_mframe_kind kind;
	uint32_t index;
};

/* What did not fit together; a sample with either is still merged as well as it can be. */
struct rt_merge_stats {
	unsigned int eval_without_frames; /* loop frames left with no interpreter frame: kept */
	unsigned int frames_leftover;	  /* interpreter frames no loop frame took: put at the
					     root side (the native walk stopped early) */
	unsigned int frames_stale;	  /* interpreter frames of a whole native stack with no
					     loop frame at all: left out */
};

/*
 * Merge pcs (npcs native frames, innermost first: the leaf's pc as is, the others return
 * addresses; whole: the native walk reached the outermost frame) with frames (n, innermost
 * first; truncated: the walk was cut) into out (max entries), innermost first. Returns the
 * entries written. stats (may be NULL) is added to.
 *
 * A whole native stack with no loop frame at all runs no script code: the interpreter state
 * the walker read belongs to another moment (a thread whose interpreter is being set up or torn
 * down, e.g. a Perl ithread between its clone and its first sub), so its frames are left out
 * (frames_stale) rather than put at the root above the thread's start.
 */
size_t interp_merge(const uint64_t *pcs, size_t npcs, bool whole, const struct cp_rt_frame *frames,
		    size_t n, bool truncated, const struct rt_eval_range *eval,
		    struct rt_mframe *out, size_t max, struct rt_merge_stats *stats);

#endif
