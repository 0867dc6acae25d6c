// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "util/safe_regex.h"

#define MAX_DEPTH 64

/* What a group holds so far: its size and the size of its last atom (what a bound repeats). */
struct group {
	uint64_t total, last;
};

/* Saturating at CP_REGEX_MAX_NODES + 1: only "over the limit" matters past it. */
static uint64_t cap(uint64_t v)
{
	return v > CP_REGEX_MAX_NODES ? CP_REGEX_MAX_NODES + 1 : v;
}

static void add_atom(struct group *g, uint64_t size)
{
	g->total = cap(g->total + size);
	g->last = size;
}

/* Past a bracket expression starting at p ('['): the character after its ']', or its end. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']') /* a leading ']' is a member */
		p++;
	while (*p && *p != ']') {
		/* [:class:], [=e=], [.c.] hold a ']' of their own */
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *end = strchr(p + 2, p[1]);

			while (end && end[1] != ']')
				end = strchr(end + 1, p[1]);
			p = end ? end + 2 : p + 1;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/* The largest count of "{n}", "{n,}" or "{n,m}" at p, or 0 when p starts no bound. */
static uint64_t parse_bound(const char *p, const char **end)
{
	uint64_t n = 0, m = 0;
	bool comma = false, digits = false;

	for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
		n = cap(n * 10 + (uint64_t)(*p - '0'));
	if (*p == ',') {
		comma = true;
		for (p++; *p >= '0' && *p <= '9'; p++)
			m = cap(m * 10 + (uint64_t)(*p - '0'));
	}
	if (!digits || *p != '}')
		return 0;
	*end = p;
	/* {n,} is n copies and a star; {n,m}: m copies, the last m-n optional */
	if (!comma)
		return n ? n : 1;
	if (!m)
		return cap(n + 1);
	return m > n ? m : n;
}

int regex_check(const char *pattern)
{
	struct group st[MAX_DEPTH + 1] = {{0, 0}};
	size_t depth = 0;
	const char *p, *end;
	uint64_t b;

	if (strlen(pattern) > CP_REGEX_MAX_LEN)
		return -E2BIG;
	for (p = pattern; *p; p++) {
		struct group *g = &st[depth];

		switch (*p) {
		case '(':
			if (depth == MAX_DEPTH)
				return -E2BIG;
			st[++depth] = (struct group){0, 0};
			break;
		case ')':
			if (!depth) {
				add_atom(g, 1);
				break;
			}
			depth--;
			add_atom(&st[depth], cap(g->total + 1));
			break;
		case '|':
			g->total = cap(g->total + 1);
			g->last = 0;
			break;
		case '[':
			add_atom(g, 1);
			p = skip_bracket(p) - 1;
			break;
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				return -ENOTSUP;
			if (p[1])
				p++;
			add_atom(g, 1);
			break;
		case '{':
			b = parse_bound(p, &end);
			if (!b) {
				add_atom(g, 1);
				break;
			}
			p = end;
			/* the last atom now stands b times */
			g->total = cap(g->total + cap(g->last * (b - 1)) + 1);
			g->last = cap(g->last * b);
			break;
		case '*':
		case '+':
		case '?':
			g->total = cap(g->total + 1);
			break;
		default:
			add_atom(g, 1);
			break;
		}
		if (st[depth].total > CP_REGEX_MAX_NODES)
			return -E2BIG;
	}
	/* groups left open: regcomp refuses them, and what they hold counts all the same */
	while (depth) {
		depth--;
		st[depth].total = cap(st[depth].total + st[depth + 1].total);
	}
	return st[0].total > CP_REGEX_MAX_NODES ? -E2BIG : 0;
}

int safe_regcomp(regex_t *re, const char *pattern, int cflags, char *msg, size_t msgsize)
{
	int err = regex_check(pattern), rc;

	if (err == -E2BIG) {
		snprintf(msg, msgsize,
			 "too complex (longer than %d characters, or its repetition counts "
			 "multiply to more than %d elements)",
			 CP_REGEX_MAX_LEN, CP_REGEX_MAX_NODES);
		return err;
	}
	if (err == -ENOTSUP) {
		snprintf(msg, msgsize, "back-references (\\1 to \\9) are not supported");
		return err;
	}
	rc = regcomp(re, pattern, REG_EXTENDED | cflags);
	if (rc) {
		regerror(rc, re, msg, msgsize);
		return -EINVAL;
	}
	return 0;
}
