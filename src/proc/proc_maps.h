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

/*
 * The executable mappings of the process whose /proc/PID/maps is open on fd, through the
 * PROCMAP_QUERY ioctl (Linux 6.11): the kernel describes only those, in binary, without writing
 * the text of every mapping. The entries are those proc_maps_parse_exec gives for the file's
 * text (paths as maps writes them: '\n' as "\012", " (deleted)" taken off). gate: the gate
 * mapping that maps writes last for 64-bit processes but no query finds ([vsyscall] of x86-64,
 * as proc_maps_gate found it), NULL when none. Returns 0 (an empty *out: no executable
 * mapping), -ENOTTY when the kernel has no such ioctl, -ESRCH when the process has no memory
 * left (maps would read empty), -ENOMEM; any other error (a path longer than PATH_MAX, more
 * than PROC_MAPS_QUERY_MAX mappings): read the text instead. fd is neither moved nor closed.
 */
#define PROC_MAPS_QUERY_MAX (1u << 20)
int proc_maps_query_exec(int fd, const struct map_entry *gate, struct proc_maps *out);

/*
 * The gate mapping in the executable mappings pm of a 64-bit process (this one's): the entry
 * named "[vsyscall]" above all others, NULL when there is none.
 */
const struct map_entry *proc_maps_gate(const struct proc_maps *pm);

/* Frees the entries and paths; leaves *m empty. NULL-safe. */
void proc_maps_free(struct proc_maps *m);

/* The mapping containing addr (start <= addr < end), by binary search; NULL if none. */
const struct map_entry *proc_maps_find(const struct proc_maps *m, uint64_t addr);

#endif
