/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind dwarf/auto, user-space side: the unwind tables of the objects processes map, built
 * once per object (a file by device and inode, or any copy with the same build-id), and each
 * process's mapping table (start, end, bias, row range) for the BPF walker. The mappings and
 * the open files come from a proc_snapshot (proc/proc_snapshot.h), the one the symbolizer
 * names from.
 *
 * Two phases. Before the BPF maps exist, tables are built into memory (the processes that
 * exist when recording starts, the command's executable, the libraries every program maps), so
 * the row array can be sized from what was built. attach() then lays the tables out in the
 * row array, largest left out first when it is smaller than what was built, and publishes the
 * mapping tables. After attach, new tables are appended (a bump allocator: rows are never
 * freed during a recording); an object that does not fit is walked with frame pointers.
 * Nothing here prints.
 */
#ifndef CPUPROF_UNWIND_MAPS_H
#define CPUPROF_UNWIND_MAPS_H
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "proc/proc_snapshot.h"

struct unwind_maps;

/*
 * Where attach() puts the tables: the BPF row array and uprocs map, or a test's buffers. The
 * row array is written through put_rows and never read back: user space need not keep it
 * mapped.
 */
struct unwind_sink {
	uint32_t cap; /* rows in the row array */
	/* copy rows to [first, first + n) of the row array (in bounds); 0 or a negative errno */
	int (*put_rows)(void *ctx, uint32_t first, const struct cp_unwind_row *rows, uint32_t n);
	/* store the mapping table of pid; 0 or a negative errno */
	int (*publish)(void *ctx, uint32_t pid, const struct cp_unwind_proc *up);
	/* store the table of a file for the walker's own lookups (objtab); NULL: none */
	int (*put_object)(void *ctx, const struct cp_obj_key *key, const struct cp_obj_table *t);
	void *ctx;
};

struct unwind_maps_stats {
	size_t objects;		/* files with a table in the row array (or built, before attach) */
	size_t objects_failed;	/* files without one: no CFI, not x86-64 ELF, unreadable */
	size_t objects_full;	/* left out: over --max-unwind-memory, or the row array was full */
	size_t objects_dropped; /* left out at attach: the row array could not be allocated that
				   large (largest first); or their rows could not be written */
	size_t rows;		/* rows in use (built, before attach) */
	size_t rows_cap;	/* capacity of the row array (0 before attach) */
	size_t rows_dropped;	/* rows of the objects dropped (at attach, or not written) */
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

/* Build the table of the file open on fd ahead of its first mapping. 0 or a negative errno. */
int unwind_maps__add_file(struct unwind_maps *um, int fd);

/* Rows built so far. */
uint32_t unwind_maps__rows(const struct unwind_maps *um);

/*
 * Lay the tables built so far out in sink's row array (the largest tables left out when they
 * do not all fit) and publish the mapping tables of the processes added before. From then on
 * everything goes to sink. 0 or the first publisher error.
 */
int unwind_maps__attach(struct unwind_maps *um, const struct unwind_sink *sink);

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *st);

#endif
