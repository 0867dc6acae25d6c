/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a recording: the requests BPF sends about them (the first sample of a
 * process, its executable mappings changed, a mapping the walker found), answered through
 * struct proc_track_ops (the snapshots, the unwind tables, the BPF maps, the interpreters:
 * fakes in the unit tests); and the processes that have ended, whose snapshots are released
 * once every set that may hold their samples is named, then their interpreter names
 * forgotten in batches, and (system-wide) their pids listed for merging. Nothing here prints.
 */
#ifndef CPUPROF_PROC_TRACK_H
#define CPUPROF_PROC_TRACK_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "proc/proc_snapshot.h"

/* Released processes whose interpreter names are forgotten at once (a pass over them all). */
#define PROC_TRACK_FORGET_AT 256

struct proc_track_ops {
	void *ctx; /* passed to each function */
	/* Read the mappings of (pid, gen) into its snapshot (merged): 0, -ESRCH (gone), -errno. */
	int (*refresh)(void *ctx, uint32_t pid, uint32_t gen);
	/* The mappings of (pid, gen) were just read: its unwind tables, its interpreters. */
	void (*loaded)(void *ctx, uint32_t pid, uint32_t gen);
	/* Before the mappings are read again: code mapped meanwhile asks again. */
	void (*refresh_taken)(void *ctx, uint32_t pid);
	/* A mapping the walker found: 0, -ENOENT (a file not known), -errno. */
	int (*add_vma)(void *ctx, uint32_t pid, uint32_t gen, const struct ps_vma *v);
	/* The process's name now (NUL-terminated in buf): 0 or -errno. */
	int (*comm)(void *ctx, uint32_t pid, char *buf, size_t size);
	/* Sample pid no more (--comm did not match); its next exec asks again. */
	void (*exclude)(void *ctx, uint32_t pid);
	/* Whether (pid, gen) has ended (exited, or exec or pid reuse ended its generation). */
	bool (*gone)(void *ctx, uint32_t pid, uint32_t gen);
	/* Release the snapshot of (pid, gen): 0 when there was one. */
	int (*release)(void *ctx, uint32_t pid, uint32_t gen);
	/* Forget the interpreter names of the processes keys (pid << 32 | gen, sorted). */
	void (*forget)(void *ctx, const uint64_t *keys, size_t n);
};

struct proc_track {
	struct proc_track_ops ops;
	const regex_t *comm_re;	  /* --comm, or NULL: a process not matching is excluded */
	bool system_wide;	  /* ended processes are listed in ended, for merging */
	uint64_t snapshot_failed; /* processes gone before their mappings were read */
	uint64_t refresh_failed;  /* mapping refreshes of processes already gone */
	uint64_t read_failed;	  /* mapping reads that failed otherwise */
	uint64_t vma_added;	  /* mappings the walker found and told (cp_map_event) */
	uint64_t vma_unknown;	  /* of those, files not known and no longer open-able */
	uint64_t n_released;	  /* snapshots released */
	struct proc_gone {
		uint64_t key;	     /* pid << 32 | gen */
		uint64_t release_at; /* once this many sets are named */
	} * gone;
	size_t n_gone, cap_gone;
	uint64_t *forget; /* released, their interpreter names still kept */
	size_t n_forget, cap_forget;
	uint32_t *ended; /* system-wide: pids released, for merging */
	size_t n_ended, cap_ended;
};

/* A request from BPF (struct cp_event and its kinds): 0, or -ENOMEM. */
int proc_track_event(struct proc_track *t, const void *data, size_t size);

/*
 * Whether to look for ended processes now: not while some found before wait for release, so
 * none is listed twice.
 */
bool proc_track_looking(const struct proc_track *t);
/* (pid, gen) has a snapshot: if it has ended, release it once release_at sets are named. */
int proc_track_check(struct proc_track *t, uint32_t pid, uint32_t gen, uint64_t release_at);
/* n_named sets are named: release what waited for them (oldest first). */
void proc_track_release(struct proc_track *t, uint64_t n_named);

void proc_track_free(struct proc_track *t);

#endif
