/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind dwarf, user-space side: unwind tables of the objects a process maps, built once per
 * file (device, inode) and appended to the BPF row array, and the process's mapping table
 * (start, end, bias, row range) published for the BPF walker. A bump allocator: rows are never
 * freed during a recording; an object that does not fit any more is walked with frame
 * pointers. Nothing here prints.
 */
#ifndef CPUPROF_UNWIND_MAPS_H
#define CPUPROF_UNWIND_MAPS_H
#include <stddef.h>
#include <stdint.h>
#include "bpf_loader.h"
#include "symbolize.h"

struct unwind_maps;

struct unwind_maps_stats {
	size_t objects;	       /* files with a table in the row array */
	size_t objects_failed; /* files without one: no CFI, not x86-64 ELF, unreadable */
	size_t objects_full;   /* files left out because the row array was full */
	size_t rows;	       /* rows in use */
	size_t rows_cap;       /* capacity of the row array */
	size_t procs;	       /* process mapping tables published */
	size_t maps_dropped;   /* mappings beyond CP_MAX_UNWIND_MAPS of a process */
	uint64_t build_ns;     /* time spent building tables */
};

/* For session s loaded with --unwind dwarf. NULL with errno on failure. */
struct unwind_maps *unwind_maps__new(struct bpf_session *s);

/* NULL-safe. */
void unwind_maps__free(struct unwind_maps *um);

/*
 * Build the tables of the mappings of (pid, gen) that sy has a snapshot of, and publish the
 * process's mapping table. 0, -ENOENT without a snapshot, -ENOMEM, or the map update's error.
 */
int unwind_maps__load_proc(struct unwind_maps *um, struct symbolizer *sy, uint32_t pid,
			   uint32_t gen);

void unwind_maps__stats(const struct unwind_maps *um, struct unwind_maps_stats *st);

#endif
