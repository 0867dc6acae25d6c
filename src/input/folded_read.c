// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks reader: "comm;root;...;leaf COUNT" per line (formats.md 2.1), as cpuprof,
 * stackcollapse-perf.pl and inferno write them. The first frame is the process name; "_[k]"
 * marks kernel frames, "_[i]" inlined ones; "name (file.c:42)" (record --lines) gives the
 * file and line back. Folded files carry no pid or thread id: every line is pid 0. Empty lines
 * are skipped; anything else that is not "STACK COUNT" is refused with its line number.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "input/folded_read.h"
#include "input/input.h"
#include "util/labelset.h"

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
	char *sp, *end, *frame, *next, *comm, where[48], set[LABELSET_MAX_LEN] = "";
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
		/* cpuprof's --labels: the labels' frame under the process (and thread) name */
		if (n <= 1 && !*set && flen > 9 && !strncmp(frame, "[labels ", 8) &&
		    frame[flen - 1] == ']') {
			frame[flen - 1] = '\0';
			if (labelset_canon(frame + 8, set, sizeof(set)))
				return input_fail(err, "folded: line %zu: bad labels '%.60s'",
						  lineno, frame + 8);
			continue;
		}
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
	return input_add_labeled(p, 0, 0, comm, "", set, *stack, (uint32_t)n, count, where, err);
}

bool folded_is_text(const unsigned char *d, size_t len, bool newlines)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = d[i];
		size_t more = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;

		if ((c < 0x20 && c != '\r' && c != '\t' && (c != '\n' || !newlines)) || c == 0x7f)
			return false;
		if (c < 0x80)
			continue;
		if (!more || c > 0xf4 || len - i - 1 < more)
			return false;
		for (; more; more--)
			if ((d[++i] & 0xc0) != 0x80)
				return false;
	}
	return true;
}

int folded_begin(struct folded_state *st, struct profile *p, struct input_error *err)
{
	memset(st, 0, sizeof(*st));
	st->p = p;
	st->err = err;
	/* never NULL, also for a stack of no frames: profile__add compares it with memcmp */
	st->cap = 64;
	st->stack = malloc(st->cap * sizeof(*st->stack));
	return st->stack ? 0 : -ENOMEM;
}

/* The line gathered in st->line (without its newline). */
static int end_line(struct folded_state *st)
{
	st->lineno++;
	if (!folded_is_text((const unsigned char *)st->line, st->len, false))
		return input_fail(st->err, "folded: line %zu holds a control byte or is not UTF-8",
				  st->lineno);
	st->line[st->len] = '\0';
	return read_line(st->line, st->len, st->lineno, st->p, &st->stack, &st->cap, st->err);
}

/* Append n bytes to the line being gathered; -ENOMEM. */
static int gather(struct folded_state *st, const char *d, size_t n)
{
	if (st->len + n + 1 > st->line_cap) {
		size_t cap = st->line_cap ? st->line_cap : 4096;
		char *nl;

		while (cap < st->len + n + 1)
			cap *= 2;
		nl = realloc(st->line, cap);
		if (!nl)
			return -ENOMEM;
		st->line = nl;
		st->line_cap = cap;
	}
	memcpy(st->line + st->len, d, n);
	st->len += n;
	return 0;
}

int folded_feed(struct folded_state *st, const char *data, size_t len)
{
	size_t pos = 0;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (data + pos)) : len - pos;

		ret = gather(st, data + pos, l);
		if (!ret && nl) {
			ret = end_line(st);
			st->len = 0;
		}
		pos += l + (nl != NULL);
	}
	return ret;
}

int folded_end(struct folded_state *st)
{
	int ret = 0;

	/* the last line, without its newline */
	if (st->len)
		ret = end_line(st);
	free(st->line);
	free(st->stack);
	memset(st, 0, sizeof(*st));
	return ret;
}

int folded_read(const char *data, size_t len, struct profile *p, struct input_info *info,
		struct input_error *err)
{
	struct folded_state st;
	int ret, end;

	(void)info;
	ret = folded_begin(&st, p, err);
	if (ret)
		return ret;
	ret = folded_feed(&st, data, len);
	if (ret) {
		st.len = 0;
		folded_end(&st);
		return ret;
	}
	end = folded_end(&st);
	return end;
}
