/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interleaving a sample's Python frames with its native frames (interpreters.md 3, 5.6): walking
 * the native stack leaf to root, each frame whose pc lies in the eval loop
 * (_PyEval_EvalFrameDefault and its .cold part; 2.7's PyEval_EvalFrameEx) is replaced by the
 * Python frames that activation ran: from the Python cursor up to and including the next frame
 * flagged CP_PY_FF_ENTRY (every frame up to 3.10; the is_entry frame in 3.11; the frame below a
 * shim from 3.12). So C code called from Python (list.sort, zlib, a C extension) stays under
 * the Python function that called it, and Python called from C under that C function.
 * Presentation (hiding libpython's call glue, naming) is left to the caller.
 */
#ifndef CPUPROF_PY_MERGE_H
#define CPUPROF_PY_MERGE_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "python_shared.h"

/* The eval loop's code in one process (runtime addresses; cold 0 when there is none). */
struct py_eval_range {
	uint64_t start, end;
	uint64_t cold_start, cold_end;
};

enum py_mframe_kind {
	PY_MF_NATIVE,	 /* pcs[index] */
	PY_MF_PYTHON,	 /* py[index] */
	PY_MF_TRUNCATED, /* the Python walk was cut here (more frames than it records) */
};

struct py_mframe {
	enum py_mframe_kind kind;
	uint32_t index;
};

/* What did not fit together; a sample with either is still merged as well as it can be. */
struct py_merge_stats {
	unsigned int eval_without_python; /* eval-loop frames left with no Python frame: kept */
	unsigned int python_leftover;	  /* Python frames no eval-loop frame took: put at the
					     root side (the native walk stopped early) */
};

/*
 * Merge native pcs (leaf first; pcs[0] is the exact pc sampled, the others return addresses)
 * with Python frames py (innermost first, as the walker records them; py_truncated: its walk
 * was cut) into out (max entries), leaf first. Returns the number of entries written; *stats
 * (may be NULL) is added to.
 */
size_t py_merge(const uint64_t *pcs, size_t npcs, const struct cp_py_frame *py, size_t npy,
		bool py_truncated, const struct py_eval_range *eval, struct py_mframe *out,
		size_t max, struct py_merge_stats *stats);

/*
 * The same for any interpreter (rb_merge.h too): nframes frames, innermost first, frame i the
 * last of its activation when is_entry(frames, i); the entries index them as PY_MF_PYTHON.
 */
size_t interp_merge(const uint64_t *pcs, size_t npcs, size_t nframes,
		    bool (*is_entry)(const void *frames, size_t i), const void *frames,
		    bool truncated, const struct py_eval_range *eval, struct py_mframe *out,
		    size_t max, struct py_merge_stats *stats);

#endif
