/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping files cpuprof did not write, so that their owner cannot kill it. A user may truncate
 * a library cpuprof has mapped while a thread reads it: the pages past the new end are gone and
 * the next read raises SIGBUS, which would end the whole process (the recording and its
 * profile). Copying such files into memory instead would cost gigabytes for large debug
 * information, so they stay mapped, and every such mapping is registered here: a process-wide
 * SIGBUS handler (put back in place at each fmap_open if something replaced it) that finds the
 * faulting address in a registered mapping replaces the rest of that mapping with zero pages, marks
 * it faulted and lets the reader go on. Readers treat the data as hostile anyway (a run of zeros is
 * one more malformed input); the owner asks fmap_faulted() after reading and throws away what it
 * read. No jump out of libelf or libdw: their state stays whole, and the object is freed as usual.
 * A fault at any other address goes to the handler installed before (or kills as before).
 *
 * Every thread is covered: the signal is taken by the thread that faulted.
 */
#ifndef CPUPROF_FMAP_H
#define CPUPROF_FMAP_H
#include <stdbool.h>
#include <stddef.h>

struct fmap {
	void *p;     /* NULL when nothing is mapped */
	size_t size; /* the file's size when mapped */
	int slot;    /* registration, -1: none */
};

/*
 * Map the whole of the regular file open on fd, private and writable (libelf may convert data
 * in place; nothing is written back), and register the mapping. 0, -ENODATA (an empty file),
 * -ENOMEM, or the -errno of fstat or mmap. m is left empty (p NULL) on failure.
 */
int fmap_open(int fd, struct fmap *m);

/* Unregister and unmap; m empty afterwards. NULL-safe, and safe on an empty m. */
void fmap_close(struct fmap *m);

/* Whether a read of m faulted (the file shrank under it) since it was mapped. */
bool fmap_faulted(const struct fmap *m);

/* The mappings that faulted in this process so far. */
unsigned long fmap_fault_count(void);

#endif
