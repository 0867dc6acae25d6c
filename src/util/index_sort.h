/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPUPROF_UTIL_INDEX_SORT_H
#define CPUPROF_UTIL_INDEX_SORT_H

#include <stddef.h>

/*
 * Sort n elements of size bytes at base in place, as qsort_r would with cmp (called with two
 * elements and ctx), but through an array of their 32-bit indices, the permutation then
 * followed cycle by cycle: qsort of big elements takes a copy of them all. 0, or -ENOMEM
 * (also for more than UINT32_MAX elements) with base unchanged.
 */
int index_sort(void *base, size_t n, size_t size,
	       int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);

#endif
