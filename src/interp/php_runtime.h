/* SPDX-License-Identifier: GPL-2.0 */
/* PHP's runtime descriptor (php_runtime.c), for the table (runtime.c) alone. */
#ifndef CPUPROF_PHP_RUNTIME_H
#define CPUPROF_PHP_RUNTIME_H
#include "interp/runtime.h"

extern const struct runtime php_runtime;

#endif
