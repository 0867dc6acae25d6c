/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parse the text of /proc/PID/maps into an array of mappings. Works on any stream, so tests
 * drive it with fixture files.
 */
#ifndef CPUPROF_PROC_MAPS_H
#define CPUPROF_PROC_MAPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct map_entry {
	uint64_t start;	 /* first address */
	uint64_t end;	 /* one past the last address */
	uint64_t offset; /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool readable, writable, executable, shared;
	bool deleted; /* the path ended in " (deleted)"; the suffix is removed from path */
	char *path;   /* NULL for an anonymous mapping; "[vdso]", "[stack]"... kept as they are */
};

struct proc_maps {
	struct map_entry *v; /* sorted by start, as the kernel writes them */
	size_t n;
};

/*
 * Read every line of f. Paths may contain spaces. Returns 0, -ENOMEM, or -EINVAL on a line
 * that is not in maps format (then *out is left empty). The caller frees with proc_maps_free.
 */
int proc_maps_parse(FILE *f, struct proc_maps *out);

/*
 * The same, keeping the executable mappings only (every line is still checked): what frame
 * addresses can point into, without a path copied for each of the others. *lines: how many
 * lines were read in all (0: an empty file, as that of a process that exited).
 */
int proc_maps_parse_exec(FILE *f, struct proc_maps *out, size_t *lines);

/* Frees the entries and paths; leaves *m empty. NULL-safe. */
void proc_maps_free(struct proc_maps *m);

/* The mapping containing addr (start <= addr < end), by binary search; NULL if none. */
const struct map_entry *proc_maps_find(const struct proc_maps *m, uint64_t addr);

#endif
