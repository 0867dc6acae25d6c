/* SPDX-License-Identifier: GPL-2.0 */
/* CPython's runtime descriptor (py_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_PY_RUNTIME_H
#define CPUPROF_PY_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime py_runtime;

#endif
