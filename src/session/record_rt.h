/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interpreters during a recording (record_rt.c), every runtime of the table
 * (interp/runtime.h) alike: found in the processes, handed to their BPF walker, and the names of
 * the frames their stacks hold, read while the processes live (else from what BPF copied).
 */
#ifndef CPUPROF_RECORD_RT_H
#define CPUPROF_RECORD_RT_H
#include <stddef.h>
#include <stdint.h>
#include "interp/runtime.h"

struct record;

/* record_rt_tick's period: the retries of interpreters not initialised yet */
#define RT_TICK_MS 20

/* Set up (nothing without the DWARF unwinder or a runtime's option). 0 or -ENOMEM. */
int record_rt_init(struct record *r);
void record_rt_free(struct record *r);
/* The mappings of (pid, gen) were read: look for a runtime there (again later if too early). */
void record_rt_new(struct record *r, uint32_t pid, uint32_t gen);
/* The same at a later tick (the processes that exist at the start: many). */
void record_rt_later(struct record *r, uint32_t pid, uint32_t gen);
/* Retry the processes not ready, name new stacks (before a drain). */
void record_rt_tick(struct record *r);
/* Every RT_TICK_MS while recording: the same, the naming every 250 ms only. */
void record_rt_timer(struct record *r);
/*
 * Processes ended whose every set is named (keys: pid << 32 | gen, sorted): what was kept of
 * them goes, so memory follows the live processes.
 */
void record_rt_forget(struct record *r, const uint64_t *keys, size_t n);
/* For the drain (aggregate_opts): runtime id's record of (pid, gen), NULL when none. */
const void *record_rt_proc(void *ctx, uint32_t id, uint32_t pid, uint32_t gen);
/*
 * For the drain: the names of frame f of (pid, gen). 0; -ESRCH the process ended before it
 * was named and BPF copied nothing; -ENOENT no runtime known there; -ENODATA
 * BPF copied nothing of a runtime named from its copies only; other -errno unreadable.
 */
int record_rt_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		   const struct rt_frame_info **out);
/* After the recording: the BPF side's counters (r->rt_stats). 0 or -errno. */
int record_rt_read_stats(struct record *r);
/* -v: how the walks and the naming went, one line per runtime sampled. */
void record_rt_summary(const struct record *r);

#endif
