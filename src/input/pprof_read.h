/* SPDX-License-Identifier: GPL-2.0 */
/* Reader of pprof: a perftools.profiles.Profile message, not gzipped (input.c inflates). */
#ifndef CPUPROF_PPROF_READ_H
#define CPUPROF_PPROF_READ_H
#include <stddef.h>
#include "input/input.h"

/* Add the samples of data to p; the contract of input_read_mem (0, -ENOMEM, -EINVAL + err). */
int pprof_read(const void *data, size_t len, struct profile *p, struct input_info *info,
	       struct input_error *err);

/*
 * The same from a source read twice: once for all but the samples, then (after rewind) for
 * the samples one at a time, so that the file is never held whole. read: up to n bytes, 0 at
 * the end, or a negative errno (-EINVAL with err set); rewind: 0 or the same.
 */
struct pprof_src {
	long (*read)(void *ctx, void *buf, size_t n);
	int (*rewind)(void *ctx);
	void *ctx;
};

int pprof_read_src(const struct pprof_src *src, struct profile *p, struct input_info *info,
		   struct input_error *err);

#endif
