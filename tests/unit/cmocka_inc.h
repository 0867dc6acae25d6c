/* SPDX-License-Identifier: GPL-2.0 */
/* cmocka needs these before its header. */
#ifndef CPUPROF_CMOCKA_INC_H
#define CPUPROF_CMOCKA_INC_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#endif
