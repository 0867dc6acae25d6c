/* SPDX-License-Identifier: GPL-2.0 */
/* Reader of cpuprof JSON, or any speedscope file with sampled profiles. */
#ifndef CPUPROF_JSON_READ_H
#define CPUPROF_JSON_READ_H
#include <stddef.h>
#include "input/input.h"

/* Add the samples of data to p; the contract of input_read_mem (0, -ENOMEM, -EINVAL + err). */
int json_read(const char *data, size_t len, struct profile *p, struct input_info *info,
	      struct input_error *err);

#endif
