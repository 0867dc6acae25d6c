/* SPDX-License-Identifier: GPL-2.0 */
/* V8's runtime descriptor (v8_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_V8_RUNTIME_H
#define CPUPROF_V8_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime v8_runtime;

#endif
