/* SPDX-License-Identifier: GPL-2.0 */
/* Ruby's runtime descriptor (rb_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_RB_RUNTIME_H
#define CPUPROF_RB_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime rb_runtime;

#endif
