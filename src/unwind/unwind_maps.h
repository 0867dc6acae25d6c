/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind dwarf/auto, user-space side: the unwind tables of the objects processes map, built
 * once per object (a file by device and inode, or any copy with the same build-id), and each
 * process's mapping table (start, end, bias, row range) for the BPF walker. The mappings and
 * the open files come from a proc_snapshot (proc/proc_snapshot.h), the one the symbolizer
 * names from.
 *
 * Two phases. Before the BPF maps exist, tables may be built into memory, within the budget of
 * --max-unwind-memory (a table that does not fit pushes out a larger one built before, so one
 * huge table does not starve many small ones). attach() then moves them, smallest first, into
 * the row store (unwind/row_store.h), which grows by chunks up to that same budget, and
 * publishes the mapping tables. After attach, each new table is streamed into the row store as
 * it is built, a batch of rows at a time (no copy of a whole table is held: a recording
 * attaches first and builds the tables of the processes that exist after it); rows are never
 * freed during a recording; a table over the budget is left out (counted with its rows: the
 * summary says how much more memory it wanted) and its code is walked with frame pointers.
 * Nothing here prints.
 */
#ifndef CPUPROF_UNWIND_MAPS_H
#define CPUPROF_UNWIND_MAPS_H
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "elf/go_tables.h"
#include "proc/proc_snapshot.h"
#include "unwind/row_store.h"

struct unwind_maps;

/*
 * Where attach() puts the tables: the chunks of the row store and the uprocs map in BPF, or a
 * test's buffers. Rows are written and never read back: user space need not keep them mapped.
 */
struct unwind_sink {
	struct row_store_ops rows; /* the row store's chunks */
	/* store the mapping table of pid; 0 or a negative errno */
	int (*publish)(void *ctx, uint32_t pid, const struct cp_unwind_proc *up);
	/* store the table of a file for the walker's own lookups (objtab); NULL: none */
	int (*put_object)(void *ctx, const struct cp_obj_key *key, const struct cp_obj_table *t);
	void *ctx;
};

struct unwind_maps_stats {
	size_t objects;		/* files with a table in the row store (or built, before attach) */
	size_t objects_failed;	/* files without one: no CFI, not x86-64 ELF, unreadable */
	size_t objects_full;	/* left out: over --max-unwind-memory */
	size_t rows_full;	/* their rows */
	size_t largest_full;	/* rows of the largest of them */
	size_t objects_dropped; /* left out: their rows could not be written (no memory for a
				   chunk of the row store) */
	size_t rows;		/* rows in use (built, before attach) */
	size_t rows_cap;	/* --max-unwind-memory in rows */
	size_t chunks;		/* chunks of the row store (CP_ROW_CHUNK_ROWS rows each) */
	size_t rows_dropped;	/* rows of the objects dropped */
	size_t procs;		/* process mapping tables published */
	size_t maps_dropped;	/* mappings beyond CP_MAX_UNWIND_MAPS of a process */
	size_t objtab_failed;	/* files the walker cannot find by their VMA (objtab full) */
	uint64_t build_ns;	/* time spent building tables */
	size_t largest_rows;	/* rows of the largest table built */
	uint64_t largest_ns;	/* and the time it took */
};

/* Tables of at most max_rows rows in all. NULL with errno on failure. */
struct unwind_maps *unwind_maps__new(uint32_t max_rows);

/* NULL-safe. */
void unwind_maps__free(struct unwind_maps *um);

/*
 * Build the tables of the mappings of (pid, gen) that ps has a snapshot of, and publish the
 * process's mapping table (kept until attach() before it). 0, -ENOENT without a snapshot,
 * -ENOMEM, or the publisher's error.
 */
int unwind_maps__add_proc(struct unwind_maps *um, struct proc_snapshot *ps, uint32_t pid,
			  uint32_t gen);

/* Take Go's function tables from t (not owned; it outlives um), not read for each table. */
void unwind_maps__set_go_tables(struct unwind_maps *um, struct go_tables *t);

/* Build the table of the file open on fd ahead of its first mapping. 0 or a negative errno. */
int unwind_maps__add_file(struct unwind_maps *um, int fd);

/* Rows built so far. */
uint32_t unwind_maps__rows(const struct unwind_maps *um);

/*
 * Move the tables built so far into a row store of at most max_rows rows whose chunks sink
 * creates (smallest tables first: the largest are the ones left out when the chunks cannot
 * be allocated), and publish the mapping tables of the processes added before. From then on
 * everything goes to sink. 0, -ENOMEM (no store), or the first publisher error.
 */
int unwind_maps__attach(struct unwind_maps *um, const struct unwind_sink *sink);

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *st);

#endif
