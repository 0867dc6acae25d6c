/* SPDX-License-Identifier: GPL-2.0 */
/* HotSpot's (Java's) runtime descriptor (hs_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_HS_RUNTIME_H
#define CPUPROF_HS_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime hs_runtime;

#endif
