/* SPDX-License-Identifier: GPL-2.0 */
/* Version numbers in interpreters' strings and file names ("3.12.1 (main...", "libruby-3.1"). */
#ifndef CPUPROF_INTERP_VERSION_H
#define CPUPROF_INTERP_VERSION_H
#include <stdbool.h>

/*
 * Up to n dot-separated decimal numbers of 1-3 digits at *p (before end) into v (the others 0);
 * *p moves past the last one read (not past a dot that no number follows). Returns how many
 * were read.
 */
int interp_version_parse(const char **p, const char *end, unsigned int *v, int n);

#endif
