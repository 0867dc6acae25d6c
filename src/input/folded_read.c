// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks reader: "comm;root;...;leaf COUNT" per line (formats.md 2.1), as cpuprof,
 * stackcollapse-perf.pl and inferno write them. The first frame is the process name; "_[k]"
 * marks kernel frames, "_[i]" inlined ones; "name (file.c:42)" (record --lines) gives the
 * file and line back. Folded files carry no pid or thread id: every line is pid 0. Empty lines
 * are skipped; anything else that is not "STACK COUNT" is refused with its line number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "input/folded_read.h"

/* "name (file:line)" -> name, file, line; else the name alone. */
static void split_position(char *name, size_t *len, char **file, uint32_t *line)
{
	char *open, *colon, *end;
	unsigned long v;

	*file = NULL;
	*line = 0;
	if (*len < 6 || name[*len - 1] != ')')
		return;
	name[*len - 1] = '\0';
	open = strstr(name, " (");
	while (open && strstr(open + 2, " ("))
		open = strstr(open + 2, " (");
	colon = open ? strrchr(open, ':') : NULL;
	if (!colon || colon[1] < '0' || colon[1] > '9') {
		name[*len - 1] = ')';
		return;
	}
	v = strtoul(colon + 1, &end, 10);
	if (*end || v == 0 || v > UINT32_MAX) {
		name[*len - 1] = ')';
		return;
	}
	*colon = '\0';
	*open = '\0';
	*file = open + 2;
	*line = (uint32_t)v;
	*len = (size_t)(open - name);
}

static int read_line(char *s, size_t len, size_t lineno, struct profile *p, uint32_t **stack,
		     size_t *cap, struct input_error *err)
{
	char *sp, *end, *frame, *next, *comm, where[48];
	unsigned long long count;
	size_t n = 0;
	int ret;

	if (len && s[len - 1] == '\r')
		s[--len] = '\0';
	if (!len)
		return 0;
	sp = strrchr(s, ' ');
	if (!sp || sp == s || sp[1] < '0' || sp[1] > '9')
		return input_fail(err, "folded: line %zu is not \"STACK COUNT\"", lineno);
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (*end || errno)
		return input_fail(err, "folded: line %zu: count '%.40s' is not a whole number",
				  lineno, sp + 1);
	*sp = '\0';
	comm = s;
	next = strchr(s, ';');
	if (next)
		*next++ = '\0';
	for (frame = next; frame; frame = next) {
		struct prof_frame f = {.kind = FRAME_USER, .named = true};
		size_t flen;
		bool kernel, inlined;

		next = strchr(frame, ';');
		if (next)
			*next++ = '\0';
		flen = strlen(frame);
		input_frame_mark(frame, &flen, &kernel, &inlined);
		frame[flen] = '\0';
		split_position(frame, &flen, (char **)&f.file, &f.line);
		f.name = frame;
		f.kind = kernel ? FRAME_KERNEL : frame[0] == '[' ? FRAME_PSEUDO : FRAME_USER;
		f.inlined = inlined;
		if (n == INPUT_MAX_DEPTH)
			return input_fail(err, "folded: line %zu: more than %d frames", lineno,
					  INPUT_MAX_DEPTH);
		if (n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			uint32_t *ns = realloc(*stack, ncap * sizeof(**stack));

			if (!ns)
				return -ENOMEM;
			*stack = ns;
			*cap = ncap;
		}
		ret = profile__intern_frame(p, &f, &(*stack)[n]);
		if (ret)
			return ret;
		n++;
	}
	if (!count)
		return 0;
	snprintf(where, sizeof(where), "folded: line %zu", lineno);
	return input_add(p, 0, 0, comm, "", *stack, (uint32_t)n, count, where, err);
}

int folded_read(const char *data, size_t len, struct profile *p, struct input_info *info,
		struct input_error *err)
{
	size_t lineno = 0, cap = 64, pos = 0;
	/* never NULL, also for a stack of no frames: profile__add compares it with memcmp */
	uint32_t *stack = malloc(cap * sizeof(*stack));
	char *copy = malloc(len + 1);
	int ret = 0;

	(void)info;
	if (!copy || !stack) {
		free(copy);
		free(stack);
		return -ENOMEM;
	}
	memcpy(copy, data, len);
	copy[len] = '\0';
	while (pos < len && !ret) {
		char *nl = memchr(copy + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (copy + pos)) : len - pos;

		copy[pos + l] = '\0';
		lineno++;
		ret = read_line(copy + pos, l, lineno, p, &stack, &cap, err);
		pos += l + 1;
	}
	free(stack);
	free(copy);
	return ret;
}
