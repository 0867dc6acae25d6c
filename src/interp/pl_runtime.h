/* SPDX-License-Identifier: GPL-2.0 */
/* Perl's runtime descriptor (pl_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_PL_RUNTIME_H
#define CPUPROF_PL_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime pl_runtime;

#endif
