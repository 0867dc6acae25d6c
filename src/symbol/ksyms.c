// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms lines look like
 *
 *   ffffffff81a3c2d0 T vfs_read
 *   ffffffffc0a81000 t ext4_iget\t[ext4]
 *
 * Only text symbols are kept; they are sorted by address and searched by bisection.
 *
 * Several names can share one address (memcpy and __memcpy, _text and _stext...). All of them
 * are kept, and a lookup returns the first in this order, so the answer does not depend on the
 * order of the input:
 *   1. binding: T, then W, then t, then w (a global name is the one callers know);
 *   2. fewer leading underscores (memcpy before __memcpy);
 *   3. strcmp of the names, then kernel image before modules, then strcmp of the modules.
 *
 * The whole file is read because nothing else gives every alias: the kernel's own name for an
 * address (bpf_snprintf's %pS from a BPF program) is the first alias in its table's order, which
 * differs from the one above at some 75 of 121,000 addresses of a 6.18 kernel, hot ones among
 * them (__do_sys_getpid for __x64_sys_getpid); its BPF ksym iterator walks all of them as well
 * and took 32 ms of the 38 the kernel spends writing this file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "symbol/ksyms.h"

/*
 * Kept compact (a kernel has some 120 000 text symbols): one array of 16-byte entries, sorted,
 * and every name and module in one blob that entries refer to by 4-byte offsets.
 */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;	      /* offset in the blob */
	uint32_t module : 30; /* offset in the blob of "ext4"; 0: the kernel image */
	uint32_t rank : 2;    /* binding order of the type letter, see the top of the file */
};

/* offsets must fit ksym_ent.module */
#define BLOB_MAX ((1u << 30) - 1)

struct ksyms {
	struct ksym_ent *v;
	size_t n, cap;
	char *blob; /* starts with a NUL, so that module offset 0 means none */
	size_t used, blob_cap;
	uint32_t prev_name; /* while loading: the last symbol's name and its length */
	size_t prev_len;
	bool restricted;
};

/* Appends s[0..len) and a NUL to the blob; its offset (never 0), or 0 on ENOMEM. */
static uint32_t str_store(struct ksyms *ks, const char *s, size_t len)
{
	uint32_t off;

	if (len + 1 > BLOB_MAX - ks->used)
		return 0;
	if (ks->blob_cap - ks->used < len + 1) {
		size_t cap = ks->blob_cap ? ks->blob_cap * 2 : 64 * 1024;
		char *p;

		while (cap - ks->used < len + 1)
			cap *= 2;
		p = realloc(ks->blob, cap);
		if (!p)
			return 0;
		ks->blob = p;
		ks->blob_cap = cap;
	}
	off = (uint32_t)ks->used;
	memcpy(ks->blob + off, s, len);
	ks->blob[off + len] = '\0';
	ks->used += len + 1;
	return off;
}

/* Rank of a text symbol type; -1 for the types that are not code (d, b, r, a, ...). */
static int text_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
		return 1;
	case 't':
		return 2;
	case 'w':
		return 3;
	default:
		return -1;
	}
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The value of a hex digit, or -1. */
static int hex_digit(char c)
{
	unsigned char u = (unsigned char)c;

	if ((unsigned)(u - '0') < 10u)
		return u - '0';
	u |= 0x20; /* 'A'..'F' to 'a'..'f' */
	if ((unsigned)(u - 'a') < 6u)
		return u - 'a' + 10;
	return -1;
}

struct kline {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;
};

/*
 * Splits the line s[0..len) (without its '\n') into its fields; module is NULL for the kernel
 * image. Bytes are compared one by one (no string functions), so a NUL inside fails the line
 * like any other unexpected byte.
 */
static int parse_line(const char *s, size_t len, struct kline *kl)
{
	const char *p = s, *e = s + len;
	uint64_t addr = 0;
	int d;

	/* hex digits only (no blanks, sign or "0x"); leading zeros, but not more than 64 bits */
	while (p < e && (d = hex_digit(*p)) >= 0) {
		if (addr >> 60)
			return -EINVAL;
		addr = addr << 4 | (uint64_t)d;
		p++;
	}
	if (p == s || e - p < 4 || p[0] != ' ' || !is_alpha(p[1]) || p[2] != ' ')
		return -EINVAL;
	kl->addr = addr;
	kl->type = p[1];

	p += 3;
	kl->name = p;
	while (p < e && *p != ' ' && *p != '\t' && *p != '\0')
		p++;
	kl->name_len = (size_t)(p - kl->name);
	if (!kl->name_len)
		return -EINVAL;
	kl->module = NULL;
	kl->module_len = 0;
	if (p == e)
		return 0;
	/* the kernel separates "[module]" with a tab */
	if (e - p < 2 || p[0] != '\t' || p[1] != '[')
		return -EINVAL;
	p += 2;
	kl->module = p;
	while (p < e && *p != '[' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\0')
		p++;
	kl->module_len = (size_t)(p - kl->module);
	if (!kl->module_len || p == e || *p != ']' || p + 1 != e)
		return -EINVAL;
	return 0;
}

static int add_symbol(struct ksyms *ks, const struct kline *kl, int rank)
{
	struct ksym_ent *e;
	uint32_t prev_mod = ks->n ? ks->v[ks->n - 1].module : 0;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 1024;

		e = reallocarray(ks->v, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		ks->v = e;
		ks->cap = cap;
	}
	e = &ks->v[ks->n];
	e->addr = kl->addr;
	e->rank = (uint32_t)rank;
	/*
	 * A name that ends the previous one shares its bytes: "__pfx_vfs_read" (the padding
	 * before a function; with function padding, close to half of a kernel's text symbols)
	 * comes right before "vfs_read"
	 */
	if (ks->prev_len >= kl->name_len &&
	    !memcmp(ks->blob + ks->prev_name + ks->prev_len - kl->name_len, kl->name, kl->name_len))
		e->name = ks->prev_name + (uint32_t)(ks->prev_len - kl->name_len);
	else
		e->name = str_store(ks, kl->name, kl->name_len);
	if (!e->name)
		return -ENOMEM;
	ks->prev_name = e->name;
	ks->prev_len = kl->name_len;
	e->module = 0;
	if (kl->module) {
		/* a module's symbols come in one run: share the previous symbol's copy */
		if (prev_mod && strlen(ks->blob + prev_mod) == kl->module_len &&
		    !memcmp(ks->blob + prev_mod, kl->module, kl->module_len))
			e->module = prev_mod;
		else
			e->module = str_store(ks, kl->module, kl->module_len);
		if (!e->module)
			return -ENOMEM;
	}
	ks->n++;
	return 0;
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/* qsort_r's comparison; blob: the names. */
static int cmp_ent(const void *a, const void *b, void *blob)
{
	const struct ksym_ent *x = a, *y = b;
	const char *sort_blob = blob;
	const char *xn = sort_blob + x->name, *yn = sort_blob + y->name;
	size_t ux, uy;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	ux = leading_underscores(xn);
	uy = leading_underscores(yn);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	c = strcmp(xn, yn);
	if (c)
		return c;
	if (!x->module || !y->module)
		return !!x->module - !!y->module;
	return strcmp(sort_blob + x->module, sort_blob + y->module);
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->blob);
	free(ks->v);
	free(ks);
}

/*
 * The input is read in chunks of this buffer and split at its newlines there (getline, one
 * line at a time, was a fifth of the parse); a line must fit in half of it.
 */
#define KSYMS_BUF      (1u << 20)
#define KSYMS_LINE_MAX (KSYMS_BUF / 2)

/* One line's symbol into the table (or only its address into the restriction test). */
static int load_line(struct ksyms *ks, const char *line, size_t len, bool *any_line,
		     bool *any_nonzero)
{
	struct kline kl;
	int err, rank;

	if (len > KSYMS_LINE_MAX)
		return -EINVAL;
	err = parse_line(line, len, &kl);
	if (err)
		return err;
	/* every line counts for the restriction test, data symbols included */
	*any_line = true;
	*any_nonzero |= kl.addr != 0;
	rank = text_rank(kl.type);
	return rank < 0 ? 0 : add_symbol(ks, &kl, rank);
}

/* Every line of f into ks. */
static int load_lines(struct ksyms *ks, FILE *f, bool *any_line, bool *any_nonzero)
{
	char *buf = malloc(KSYMS_BUF), *p, *end, *nl;
	size_t have = 0, n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		errno = 0;
		n = fread(buf + have, 1, KSYMS_BUF - have, f);
		if (!n) {
			if (ferror(f))
				err = errno ? -errno : -EIO;
			else if (have) /* the last line, without a newline */
				err = load_line(ks, buf, have, any_line, any_nonzero);
			break;
		}
		have += n;
		p = buf;
		end = buf + have;
		while (!err && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			err = load_line(ks, p, (size_t)(nl - p), any_line, any_nonzero);
			p = nl + 1;
		}
		if (err)
			break;
		/* the start of the next line to the front; the rest of it comes with the next read
		 */
		have = (size_t)(end - p);
		if (have > KSYMS_LINE_MAX) {
			err = -EINVAL;
			break;
		}
		memmove(buf, p, have);
	}
	free(buf);
	return err;
}

/* v[0..n) in cmp_ent's order: by insertion when short (runs of aliases are), else qsort_r. */
static void sort_run(struct ksym_ent *v, size_t n, char *blob)
{
	if (n > 8) {
		qsort_r(v, n, sizeof(*v), cmp_ent, blob);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct ksym_ent e = v[i];
		size_t j;

		for (j = i; j > 0 && cmp_ent(&v[j - 1], &e, blob) > 0; j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

/*
 * The entries in cmp_ent's order. Kernels list the symbols of their image and of their modules
 * by address; after them come the few of BPF programs, trampolines and the like, in no order.
 * So the part in address order needs only its runs of aliases sorted, the rest (or everything,
 * for input in no order) is sorted whole, and the two are merged: the order of a sort of the
 * whole table (entries that compare equal are alike in all a lookup returns).
 */
static void sort_entries(struct ksyms *ks)
{
	struct ksym_ent *v = ks->v, *tail;
	size_t n = ks->n, k, i, j, out;

	for (k = 1; k < n && v[k - 1].addr <= v[k].addr;)
		k++;
	for (i = 0; i < k; i = j) {
		for (j = i + 1; j < k && v[j].addr == v[i].addr;)
			j++;
		sort_run(v + i, j - i, ks->blob);
	}
	if (k == n)
		return;
	tail = malloc((n - k) * sizeof(*tail));
	if (!tail) {
		qsort_r(v, n, sizeof(*v), cmp_ent, ks->blob);
		return;
	}
	qsort_r(v + k, n - k, sizeof(*v), cmp_ent, ks->blob);
	memcpy(tail, v + k, (n - k) * sizeof(*tail));
	/* from the back: the largest of both first, into the room the tail left */
	for (i = k, j = n - k, out = n; j > 0;) {
		if (i > 0 && cmp_ent(&v[i - 1], &tail[j - 1], ks->blob) > 0)
			v[--out] = v[--i];
		else
			v[--out] = tail[--j];
	}
	free(tail);
}

struct ksyms *ksyms__load(FILE *f)
{
	struct ksyms *ks;
	bool any_line = false, any_nonzero = false;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	/* offset 0 is an empty string, so that no name or module stored has it */
	ks->blob = malloc(64 * 1024);
	if (!ks->blob) {
		err = -ENOMEM;
		goto err_out;
	}
	ks->blob[0] = '\0';
	ks->used = 1;
	ks->blob_cap = 64 * 1024;
	err = load_lines(ks, f, &any_line, &any_nonzero);
	if (err)
		goto err_out;

	ks->restricted = any_line && !any_nonzero;
	if (ks->n) { /* qsort must not see the NULL array of an empty table */
		struct ksym_ent *v = reallocarray(ks->v, ks->n, sizeof(*v));
		char *blob = realloc(ks->blob, ks->used);

		/* give the doubling's spare room back; keeping it on failure is harmless */
		if (v) {
			ks->v = v;
			ks->cap = ks->n;
		}
		if (blob) {
			ks->blob = blob;
			ks->blob_cap = ks->used;
		}
		sort_entries(ks);
	}
	return ks;

err_out:
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

bool ksyms__lookup(const struct ksyms *ks, uint64_t addr, struct ksym *out, uint64_t *offset)
{
	const struct ksym_ent *e;
	size_t lo = 0, hi;
	uint64_t found;

	if (!ks || !ks->n || ks->restricted)
		return false;
	/* first entry above addr; the answer's address is the one just before it */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	found = ks->v[lo - 1].addr;

	/* then the first of the aliases at that address, which the sort made the preferred one */
	hi = lo - 1;
	lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr < found)
			lo = mid + 1;
		else
			hi = mid;
	}
	e = &ks->v[lo];
	if (offset)
		*offset = addr - found;
	if (out)
		*out = (struct ksym){
			.addr = e->addr,
			.name = ks->blob + e->name,
			.module = e->module ? ks->blob + e->module : NULL,
		};
	return true;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

bool ksyms__restricted(const struct ksyms *ks)
{
	return ks && ks->restricted;
}
