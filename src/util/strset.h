/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of interned strings: one shared copy of each distinct string, so that equal strings
 * have equal pointers and live as long as the set. Not thread-safe.
 *
 * The copies are packed in blocks and found through an open-addressing hash table: about
 * 16 bytes of overhead a string (a tsearch tree and one malloc per string cost about 80, which
 * made the symbolizer's labels of unnamed addresses a growing part of a long recording).
 */
#ifndef CPUPROF_STRSET_H
#define CPUPROF_STRSET_H
#include <stddef.h>

/* Zero-initialised is empty: struct strset s = {0}; */
struct strset {
	const char **slots; /* the strings, by hash; NULL: empty */
	size_t cap;	    /* slots, a power of two, or 0 */
	size_t n;	    /* strings held */
	size_t bytes;	    /* their bytes, NULs included */
	void *blocks;	    /* where they are kept, the newest first */
	size_t used, room;  /* bytes used and held in the newest block */
};

/* The one copy of s in the set (added if new), or NULL on ENOMEM. */
const char *strset_intern(struct strset *set, const char *s);

/* The same for a formatted string. */
const char *strset_internf(struct strset *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Free every string; the set is empty again. */
void strset_clear(struct strset *set);

#endif
