// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps lines look like
 *
 *   55d0c0a00000-55d0c0a02000 r-xp 00002000 fe:01 1234567                    /usr/bin/foo
 *
 * start-end perms offset major:minor inode, then blank padding and the path, which runs to the
 * end of the line and may itself contain spaces (the kernel escapes only '\n' in it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "proc/proc_maps.h"
#include "util/textline.h"

#define DELETED_SUFFIX " (deleted)"

static const char hex_chars[] = "0123456789abcdefABCDEF";
static const char dec_chars[] = "0123456789";

/*
 * A run of digits from the set `digits` that must be followed by `delim`; *p is moved past the
 * delimiter. Checking the span first keeps strtoull from taking blanks, a sign or "0x".
 */
static int take_num(const char **p, const char *digits, int base, char delim, uint64_t *out)
{
	const char *s = *p;
	size_t len = strspn(s, digits);
	unsigned long long v;
	char *end;

	if (!len || s[len] != delim)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end != s + len)
		return -EINVAL;
	*out = v;
	*p = s + len + 1;
	return 0;
}

/* The last field, inode, ends the line or is followed by blanks and the path. */
static int take_inode(const char **p, uint64_t *out)
{
	const char *s = *p;
	size_t len = strspn(s, dec_chars);
	unsigned long long v;
	char *end;

	if (!len || (s[len] != ' ' && s[len] != '\0'))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end != s + len)
		return -EINVAL;
	*out = v;
	*p = s + len;
	return 0;
}

static int take_perms(const char **p, struct map_entry *e)
{
	const char *s = *p;

	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 's' && s[3] != 'p') || s[4] != ' ')
		return -EINVAL;
	e->readable = s[0] == 'r';
	e->writable = s[1] == 'w';
	e->executable = s[2] == 'x';
	e->shared = s[3] == 's';
	*p = s + 5;
	return 0;
}

/*
 * Parses one line without its '\n'. On success e->path is malloc'ed (or NULL); with exec_only,
 * a mapping that is not executable is checked all the same but gets no path.
 */
static int parse_line(const char *line, struct map_entry *e, bool exec_only)
{
	uint64_t major, minor;
	const char *p = line;
	size_t len;
	int err;

	memset(e, 0, sizeof(*e));
	err = take_num(&p, hex_chars, 16, '-', &e->start);
	if (!err)
		err = take_num(&p, hex_chars, 16, ' ', &e->end);
	if (!err)
		err = take_perms(&p, e);
	if (!err)
		err = take_num(&p, hex_chars, 16, ' ', &e->offset);
	if (!err)
		err = take_num(&p, hex_chars, 16, ':', &major);
	if (!err)
		err = take_num(&p, hex_chars, 16, ' ', &minor);
	if (!err)
		err = take_inode(&p, &e->inode);
	if (err)
		return err;
	if (e->end <= e->start || major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	e->dev_major = (uint32_t)major;
	e->dev_minor = (uint32_t)minor;
	if (exec_only && !e->executable)
		return 0;

	/* the kernel pads to the path column; an anonymous mapping may end in blanks */
	p += strspn(p, " ");
	len = strlen(p);
	if (!len)
		return 0;
	if (len > strlen(DELETED_SUFFIX) &&
	    !strcmp(p + len - strlen(DELETED_SUFFIX), DELETED_SUFFIX)) {
		e->deleted = true;
		len -= strlen(DELETED_SUFFIX);
	}
	e->path = strndup(p, len);
	if (!e->path)
		return -ENOMEM;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

void proc_maps_free(struct proc_maps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int parse(FILE *f, bool exec_only, struct proc_maps *out, size_t *lines)
{
	struct proc_maps m = {NULL, 0};
	struct map_entry *v;
	size_t cap = 0, linecap = 0;
	bool sorted = true;
	char *line = NULL;
	size_t len;
	int err = 0;

	out->v = NULL;
	out->n = 0;
	while ((err = textline_read(f, &line, &linecap, &len)) > 0) {
		if (m.n == cap) {
			cap = cap ? cap * 2 : 64;
			v = reallocarray(m.v, cap, sizeof(*v));
			if (!v) {
				err = -ENOMEM;
				break;
			}
			m.v = v;
		}
		err = parse_line(line, &m.v[m.n], exec_only);
		if (err)
			break;
		(*lines)++;
		if (exec_only && !m.v[m.n].executable)
			continue;
		if (m.n && m.v[m.n].start < m.v[m.n - 1].start)
			sorted = false;
		m.n++;
	}
	free(line);
	if (err) {
		proc_maps_free(&m);
		return err;
	}
	/*
	 * The kernel writes maps in address order; sorting is only a safeguard so that the
	 * bisection in proc_maps_find stays correct on any input.
	 */
	if (!sorted)
		qsort(m.v, m.n, sizeof(*m.v), cmp_start);
	*out = m;
	return 0;
}

int proc_maps_parse(FILE *f, struct proc_maps *out)
{
	size_t lines = 0;

	return parse(f, false, out, &lines);
}

int proc_maps_parse_exec(FILE *f, struct proc_maps *out, size_t *lines)
{
	*lines = 0;
	return parse(f, true, out, lines);
}

const struct map_entry *proc_maps_find(const struct proc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!m || !m->n)
		return NULL;
	/* find the first entry with start > addr; the candidate is the one before it */
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->v[lo - 1].end)
		return NULL;
	return &m->v[lo - 1];
}
