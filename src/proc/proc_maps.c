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
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include "proc/proc_maps.h"
#include "util/textline.h"

#define DELETED_SUFFIX " (deleted)"

/*
 * PROCMAP_QUERY, an ioctl of /proc/PID/maps since Linux 6.11. Facts from the kernel's
 * include/uapi/linux/fs.h (Debian 12's linux-libc-dev predates it): struct procmap_query, the
 * flags, and _IOWR(PROCFS_IOCTL_MAGIC 'f', 17, struct procmap_query).
 */
struct maps_query {
	uint64_t size;		/* in: sizeof(struct maps_query) */
	uint64_t query_flags;	/* in */
	uint64_t query_addr;	/* in */
	uint64_t vma_start;	/* out */
	uint64_t vma_end;	/* out */
	uint64_t vma_flags;	/* out: MQ_VMA_* */
	uint64_t vma_page_size; /* out */
	uint64_t vma_offset;	/* out: 0 without a file */
	uint64_t inode;		/* out */
	uint32_t dev_major;	/* out */
	uint32_t dev_minor;	/* out */
	uint32_t vma_name_size; /* in: buffer size; out: name length with its NUL, 0: no name */
	uint32_t build_id_size; /* in/out */
	uint64_t vma_name_addr; /* in */
	uint64_t build_id_addr; /* in */
};
_Static_assert(sizeof(struct maps_query) == 104, "struct procmap_query of linux/fs.h");

#define MQ_VMA_READABLE		0x01
#define MQ_VMA_WRITABLE		0x02
#define MQ_VMA_EXECUTABLE	0x04
#define MQ_VMA_SHARED		0x08
#define MQ_COVERING_OR_NEXT_VMA 0x10
#define MQ_IOCTL		_IOWR('f', 17, struct maps_query)

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
 * e->path from the rest of a line after the inode: NULL when blank, " (deleted)" taken off.
 * 0 or -ENOMEM.
 */
static int set_path(struct map_entry *e, const char *p)
{
	size_t len;

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

/*
 * Parses one line without its '\n'. On success e->path is malloc'ed (or NULL); with exec_only,
 * a mapping that is not executable is checked all the same but gets no path.
 */
static int parse_line(const char *line, struct map_entry *e, bool exec_only)
{
	uint64_t major, minor;
	const char *p = line;
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

	return set_path(e, p);
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

/*
 * The name the kernel gave (len bytes, its NUL included) as maps would write it: maps escapes
 * '\n' in a file's path as "\012" (seq_path with "\n"), the only byte it escapes. Then as a
 * parsed line's path. 0 or -ENOMEM.
 */
static int set_query_name(struct map_entry *e, const char *name, size_t len)
{
	char text[4 * PATH_MAX + 1], *q = text;
	size_t i;

	for (i = 0; i < len && name[i]; i++) {
		if (name[i] == '\n') {
			memcpy(q, "\\012", 4);
			q += 4;
		} else {
			*q++ = name[i];
		}
	}
	*q = '\0';
	return set_path(e, text);
}

/* One query: the first mapping at or above addr with all of flags. 0 or a negative errno. */
static int query(int fd, uint64_t addr, uint64_t flags, char *name, size_t name_size,
		 struct maps_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = MQ_COVERING_OR_NEXT_VMA | flags;
	q->query_addr = addr;
	if (name) {
		q->vma_name_addr = (uint64_t)(uintptr_t)name;
		q->vma_name_size = (uint32_t)name_size;
	}
	while (ioctl(fd, MQ_IOCTL, q) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * The gate mapping ([vsyscall] on x86-64) is no VMA of the process: maps writes it last for a
 * 64-bit process (the kernel's get_gate_vma; none for 32-bit and x32 ones, which map nothing
 * at or above 4 GiB), and the query never finds it. Appended to m, whose array holds cap.
 */
static int add_gate(int fd, const struct map_entry *gate, struct proc_maps *m, size_t cap)
{
	const uint64_t four_gib = (uint64_t)1 << 32;
	struct maps_query q;
	struct map_entry *e;
	int err;

	if (!gate || (m->n && m->v[m->n - 1].end > gate->start))
		return 0;
	if (!m->n || m->v[m->n - 1].end <= four_gib) {
		err = query(fd, four_gib, 0, NULL, 0, &q);
		if (err == -ENOENT)
			return 0;
		if (err)
			return err;
	}
	if (m->n == cap) {
		e = reallocarray(m->v, m->n + 1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->v = e;
	}
	e = &m->v[m->n];
	*e = *gate;
	if (gate->path && !(e->path = strdup(gate->path)))
		return -ENOMEM;
	m->n++;
	return 0;
}

int proc_maps_query_exec(int fd, const struct map_entry *gate, struct proc_maps *out)
{
	struct proc_maps m = {NULL, 0};
	char name[PATH_MAX];
	struct maps_query q;
	uint64_t addr = 0;
	size_t cap = 0;
	int err;

	out->v = NULL;
	out->n = 0;
	for (;;) {
		struct map_entry *e;

		err = query(fd, addr, MQ_VMA_EXECUTABLE, name, sizeof(name), &q);
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (err)
			goto fail;
		/* each answer lies above the last; addr only grows, so the loop ends */
		if (q.vma_start < addr || q.vma_end <= q.vma_start ||
		    !(q.vma_flags & MQ_VMA_EXECUTABLE) || q.vma_name_size > sizeof(name)) {
			err = -EINVAL;
			goto fail;
		}
		if (m.n == PROC_MAPS_QUERY_MAX) {
			err = -E2BIG;
			goto fail;
		}
		if (m.n == cap) {
			struct map_entry *v;

			cap = cap ? cap * 2 : 64;
			v = reallocarray(m.v, cap, sizeof(*v));
			if (!v) {
				err = -ENOMEM;
				goto fail;
			}
			m.v = v;
		}
		e = &m.v[m.n];
		memset(e, 0, sizeof(*e));
		e->start = q.vma_start;
		e->end = q.vma_end;
		e->offset = q.vma_offset;
		e->inode = q.inode;
		e->dev_major = q.dev_major;
		e->dev_minor = q.dev_minor;
		e->readable = q.vma_flags & MQ_VMA_READABLE;
		e->writable = q.vma_flags & MQ_VMA_WRITABLE;
		e->executable = true;
		e->shared = q.vma_flags & MQ_VMA_SHARED;
		err = set_query_name(e, name, q.vma_name_size);
		if (err)
			goto fail;
		m.n++;
		addr = q.vma_end;
	}
	/*
	 * No executable mapping: does the process have any memory? maps reads empty when it has
	 * none (it exited), which callers take for a process that is gone.
	 */
	if (!m.n) {
		err = query(fd, 0, 0, NULL, 0, &q);
		if (err == -ENOENT)
			err = -ESRCH;
		if (err)
			goto fail;
	}
	err = add_gate(fd, gate, &m, cap);
	if (err)
		goto fail;
	*out = m;
	return 0;
fail:
	proc_maps_free(&m);
	return err;
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

const struct map_entry *proc_maps_gate(const struct proc_maps *pm)
{
	const struct map_entry *e = pm && pm->n ? &pm->v[pm->n - 1] : NULL;

	return e && e->path && !strcmp(e->path, "[vsyscall]") ? e : NULL;
}
