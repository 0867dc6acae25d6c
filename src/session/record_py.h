/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --python during a recording (record_py.c): CPython found in the processes, handed to the
 * BPF walker, and the names of the code objects its stacks hold, read while they live.
 */
#ifndef CPUPROF_RECORD_PY_H
#define CPUPROF_RECORD_PY_H
#include <stddef.h>
#include <stdint.h>
#include "interp/py_proc.h"

struct record;

/* Set up (nothing without --python or the DWARF unwinder). 0 or -ENOMEM. */
int record_py_init(struct record *r);
void record_py_free(struct record *r);
/* The mappings of (pid, gen) were read: look for CPython there (again later if too early). */
void record_py_new(struct record *r, uint32_t pid, uint32_t gen);
/* The same at a later tick (the processes that exist at the start: many). */
void record_py_later(struct record *r, uint32_t pid, uint32_t gen);
/* Now and then while recording: retry the processes not ready, name new Python stacks. */
void record_py_tick(struct record *r);
/*
 * Processes ended whose every set is named (keys: pid << 32 | gen, sorted): what was kept of
 * them goes, so memory follows the live processes, not every Python process ever seen.
 */
void record_py_forget(struct record *r, const uint64_t *keys, size_t n);
/* For the drain (aggregate_opts): the CPython of (pid, gen), NULL when none. */
const struct cp_py_proc *record_py_proc(void *ctx, uint32_t pid, uint32_t gen);
/* For the drain: the names of code object code at instr of (pid, gen). 0 or -errno. */
int record_py_name(void *ctx, uint32_t pid, uint32_t gen, uint64_t code, uint32_t instr,
		   const struct py_code_info **out);

#endif
