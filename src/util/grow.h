/* SPDX-License-Identifier: GPL-2.0 */
/* Growing an array by doubling: the one helper the modules that build arrays share. */
#ifndef CPUPROF_GROW_H
#define CPUPROF_GROW_H
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room for need elements of size bytes in *v (capacity *cap, doubled from 64 as needed).
 * 0, or -ENOMEM (then *v and *cap are unchanged).
 */
static inline int array_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	nv = reallocarray(*v, ncap, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

#endif
