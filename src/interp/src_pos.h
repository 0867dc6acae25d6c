/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line and column of a character position in a source file: what a runtime that keeps
 * source positions, not lines (V8: a function's start is a position in its script's source),
 * gives BPF to copy, made a line from the file itself. Positions count UTF-16 code units from
 * the file's first byte (V8's strings), the file read as UTF-8. The files are hostile: opened
 * with util/safe_file (regular files, at most SRC_POS_MAX_FILE bytes); the line starts of the
 * last few files asked are kept (a profile asks the same few scripts for each function).
 */
#ifndef CPUPROF_SRC_POS_H
#define CPUPROF_SRC_POS_H
#include <stddef.h>
#include <stdint.h>

#define SRC_POS_MAX_FILE (64u << 20)

/*
 * *line (from 1) and *col (from 1) of position pos of the file at path (absolute). 0, or
 * -ENOENT (not a file: "node:internal/..."), -ERANGE (pos past its end), -errno of the open.
 */
int src_pos_line(const char *path, uint32_t pos, int *line, int *col);

/* The line starts (UTF-16 positions) of text (len bytes, UTF-8) into starts (max): their
 * number (the first is 0), at most max. Tests use it on strings. */
size_t src_pos_starts(const unsigned char *text, size_t len, uint32_t *starts, size_t max);

/* Forget the files kept. */
void src_pos_reset(void);

#endif
