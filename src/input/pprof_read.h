/* SPDX-License-Identifier: GPL-2.0 */
/* Reader of pprof: a perftools.profiles.Profile message, not gzipped (input.c inflates). */
#ifndef CPUPROF_PPROF_READ_H
#define CPUPROF_PPROF_READ_H
#include <stddef.h>
#include "input/input.h"

/* Add the samples of data to p; the contract of input_read_mem (0, -ENOMEM, -EINVAL + err). */
int pprof_read(const void *data, size_t len, struct profile *p, struct input_info *info,
	       struct input_error *err);

#endif
