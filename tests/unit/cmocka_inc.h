/* SPDX-License-Identifier: GPL-2.0 */
/* cmocka, and fixture files from $CPUPROF_TESTDATA (default tests/data). */
#ifndef CPUPROF_CMOCKA_INC_H
#define CPUPROF_CMOCKA_INC_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open tests/data/NAME for reading; fails the test when it is missing. */
static inline FILE *open_data(const char *name)
{
	const char *dir = getenv("CPUPROF_TESTDATA");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		dir = "tests/data";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	return f;
}
#endif
