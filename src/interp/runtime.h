/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtime layer: an interpreter (CPython, Ruby...) is a descriptor, struct runtime, in one
 * table (runtime.c: runtime_of). The session attaches processes through it (one queue), names
 * frames through it (one cache), merges its frames with native ones through it (one merge:
 * interp_merge.h); BPF dispatches to its walker by its id (bpf/runtime_shared.h). No code
 * outside src/interp/ reaches a runtime's own modules (py_*, rb_*...): scripts/check-layers.sh.
 * The descriptor API is summed up in src/interp/README.md.
 */
#ifndef CPUPROF_RUNTIME_H
#define CPUPROF_RUNTIME_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "runtime_shared.h"

/* One frame, named. */
struct rt_frame_info {
	char name[256]; /* the function ("Outer.run", "block in spin", a C method's name) */
	char file[512]; /* its file; "" when it has none (a C method) */
	int firstline;	/* its first line; 0 when unknown */
	int line;	/* the line of the instruction recorded; -1 when unknown */
	int column;	/* the column of line (from 1); 0 when unknown */
};

/*
 * The interpreter loop's code in one process (runtime addresses; cold 0 when none). A runtime of
 * the JIT code range hook gives its ranges instead (jit, n_jit): the frames its frames replace
 * are the hook's pseudo pcs (a range's start + 1), not every pc in them.
 */
struct rt_eval_range {
	uint64_t start, end;
	uint64_t cold_start, cold_end;
	const struct cp_rt_jit_range *jit;
	size_t n_jit;
};

/* Why a frame has no name (counted per runtime in the summary). */
enum rt_unnamed_why {
	RT_UNNAMED_GONE,       /* its process ended before it was named, and BPF copied nothing */
	RT_UNNAMED_UNREADABLE, /* its code could not be read, or is not what the offsets say */
	RT_UNNAMED_NO_PROC,    /* no runtime known in its process (any more) */
	RT_UNNAMED_NOT_COPIED, /* named by BPF's copy only (V8), and BPF copied nothing */
	RT_UNNAMED_MAX,
};

struct proc_snapshot;
struct src_pos_who;
struct interp_plain;

struct runtime {
	uint32_t id;		 /* CP_RT_*: its BPF walker's slot, cp_count_key.istack_kind */
	const char *name;	 /* "CPython": messages */
	const char *prefix;	 /* "py": its frames are "py::NAME" */
	const char *truncated;	 /* the pseudo-frame where its walk was cut: "[python truncated]" */
	const char *const *ends; /* -v: its walk ends (cp_rt_stack.end), CP_RT_END_MAX, NULL
				    past its own */
	uint16_t end_truncated;	 /* the end of a walk cut at CP_RT_MAX_FRAMES */
	/*
	 * Native functions that only forward into its loop (NULL-terminated; may be NULL):
	 * dropped from stacks its walker saw, as are its perf map's "PREFIX::" entries.
	 */
	const char *const *glue;
	/*
	 * Look for the runtime in process pid (generation gen) of ps: fill proc (its
	 * cp_rt_proc.data, CP_RT_PROC_DATA bytes, zeroed) and *state (what naming needs; may be
	 * NULL). 0 attached; -EAGAIN not ready, try again later; -ENOENT not in this process (look
	 * again when its mappings change); other < 0 not now, not later. plain: objects known not
	 * to be this runtime (its own set). why (why_size bytes): a line for -v, may stay empty.
	 */
	int (*attach)(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, void *proc, void **state, char *why,
		      size_t why_size);
	/* Free *state of attach (NULL-safe). */
	void (*state_free)(void *state);
	/*
	 * Name frame f of process pid (proc, state of attach). 0, or -errno (-ESRCH: gone).
	 * NULL: its frames are named from what BPF copied only (rt_names; PHP, Perl).
	 */
	int (*name_frame)(void *state, pid_t pid, const void *proc, const struct cp_rt_frame *f,
			  struct rt_frame_info *out);
	/* The interpreter loop's code in process proc (the native frames its frames replace). */
	void (*eval)(const void *proc, struct rt_eval_range *out);
	/* cp_rt_frame.pos is the line running in the frame (0: unknown), kept with a copied name */
	bool pos_is_line;
	/* cp_rt_frame.pos is 1 + the character position running in the frame's script (~0 or 0:
	   unknown; V8), made the line and column from the script's file (interp/src_pos.h) */
	bool pos_is_src;
	/*
	 * The JIT code range hook (bpf/jit_hook.bpf.h; NULL: none): the ranges of generated code
	 * in process proc that its BPF step walks, at most max into out. Their number.
	 */
	size_t (*jit)(const void *proc, struct cp_rt_jit_range *out, size_t max);
	/*
	 * The JIT ranges of process pid read again into proc (its record) when its mappings
	 * changed (NULL: they never change): 1 changed (the session gives BPF the new ranges),
	 * 0 the same, or -errno.
	 */
	int (*jit_refresh)(void *proc, uint32_t pid);
	/*
	 * Beginnings of the file names of its programs and libraries ("python", "libpython";
	 * NULL-terminated): a command or a needed library so named likely runs it (rt_hint.h).
	 */
	const char *const *hints;
};

/* The runtime of id (CP_RT_*), NULL when there is none. */
const struct runtime *runtime_of(uint32_t id);

/*
 * Name frame f from what BPF copied while its process lived (bpf/runtime_shared.h: rt_names):
 * the name, file and first line (no current line: -1). A position BPF did not make a line is
 * made one from the file, as its process who may read it (src_pos.h; NULL: not read). 0, or
 * -ENOENT when n names nothing.
 */
int runtime_name_copied(const struct cp_rt_name *n, const struct src_pos_who *who,
			struct rt_frame_info *out);

/*
 * The line and column running in a frame named out (its file) from pos, 1 + a character
 * position in the file (descriptor's pos_is_src), into out->line and out->column; out stays as
 * it is when pos is unknown or the file cannot tell (no such file: node:internal/..., a script
 * made in memory; the line and column where the function starts stay). The file is read as
 * its process who may read it (src_pos.h; NULL: not read).
 */
void runtime_name_pos(const struct src_pos_who *who, struct rt_frame_info *out, uint32_t pos);

#endif
