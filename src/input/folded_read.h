/* SPDX-License-Identifier: GPL-2.0 */
/* Reader of folded stacks, "comm;root;...;leaf COUNT" per line. */
#ifndef CPUPROF_FOLDED_READ_H
#define CPUPROF_FOLDED_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input/input.h"

/*
 * The same line by line, as the data comes (a file read in chunks: memory follows the profile,
 * not the file): folded_begin, folded_feed with each chunk as long as it returns 0, then
 * folded_end (always: it frees what was gathered, and reads a last line without a newline).
 * A line with a control byte or not UTF-8 is refused.
 */
struct folded_state {
	struct profile *p;
	struct input_error *err;
	char *line; /* the line gathered so far */
	size_t len, line_cap;
	uint32_t *stack;
	size_t cap, lineno;
};
int folded_begin(struct folded_state *st, struct profile *p, struct input_error *err);
int folded_feed(struct folded_state *st, const char *data, size_t len);
int folded_end(struct folded_state *st);

/* Add the samples of data to p; the contract of input_read_mem (0, -ENOMEM, -EINVAL + err). */
int folded_read(const char *data, size_t len, struct profile *p, struct input_info *info,
		struct input_error *err);

/*
 * UTF-8 text without NUL or control bytes but tab, CR and, with newlines, LF: what a folded
 * line (or, with newlines, a folded file) may hold.
 */
bool folded_is_text(const unsigned char *d, size_t len, bool newlines);

#endif
