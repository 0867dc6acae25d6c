/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --ruby during a recording (record_rb.c): MRI Ruby found in the processes, handed to the BPF
 * walker, and the names of the frames its stacks hold, read while they live. The twin of
 * record_py.h.
 */
#ifndef CPUPROF_RECORD_RB_H
#define CPUPROF_RECORD_RB_H
#include <stddef.h>
#include <stdint.h>
#include "interp/rb_proc.h"

struct record;

/* Set up (nothing without --ruby or the DWARF unwinder). 0 or -ENOMEM. */
int record_rb_init(struct record *r);
void record_rb_free(struct record *r);
/* As record_py_forget, for the Ruby processes. */
void record_rb_forget(struct record *r, const uint64_t *keys, size_t n);
/* The mappings of (pid, gen) were read: look for Ruby there (again later if too early). */
void record_rb_new(struct record *r, uint32_t pid, uint32_t gen);
/* The same at a later tick (the processes that exist at the start: many). */
void record_rb_later(struct record *r, uint32_t pid, uint32_t gen);
/* Now and then while recording: retry the processes not ready, name new Ruby stacks. */
void record_rb_tick(struct record *r);
/* For the drain (aggregate_opts): the Ruby of (pid, gen), NULL when none. */
const struct cp_rb_proc *record_rb_proc(void *ctx, uint32_t pid, uint32_t gen);
/* For the drain: the names of recorded frame f of (pid, gen). 0 or -errno. */
int record_rb_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rb_frame *f,
		   const struct rb_frame_info **out);
/* After the recording: the BPF side's Ruby counters (r->rb_stats). 0 or -errno. */
int record_rb_read_stats(struct record *r);
/* -v: how the Ruby walks went, when any Ruby was sampled. */
void record_rb_summary(const struct record *r);

#endif
