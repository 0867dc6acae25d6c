/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of interned strings: one shared copy of each distinct string, so that equal strings
 * have equal pointers and live as long as the set. Not thread-safe.
 */
#ifndef CPUPROF_STRSET_H
#define CPUPROF_STRSET_H

/* Zero-initialised is empty: struct strset s = {0}; */
struct strset {
	void *root;   /* tsearch tree of char * */
	size_t n;     /* strings held */
	size_t bytes; /* their bytes, NULs included */
};

/* The one copy of s in the set (added if new), or NULL on ENOMEM. */
const char *strset_intern(struct strset *set, const char *s);

/* The same for a formatted string. */
const char *strset_internf(struct strset *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Free every string; the set is empty again. */
void strset_clear(struct strset *set);

#endif
