/* SPDX-License-Identifier: GPL-2.0 */
/* Line reading shared by the parsers of kernel text files (maps, kallsyms). */
#ifndef CPUPROF_TEXTLINE_H
#define CPUPROF_TEXTLINE_H
#include <stddef.h>
#include <stdio.h>

/*
 * Read the next line of f into *line (grown with getline; the caller frees it), without its
 * newline; its length in *len. Returns 1 for a line, 0 at the end of the stream, -ENOMEM,
 * -EIO (or the read's -errno), or -EINVAL for a line with a NUL byte inside, which would hide
 * the rest of the line from a string parser.
 */
int textline_read(FILE *f, char **line, size_t *cap, size_t *len);

#endif
