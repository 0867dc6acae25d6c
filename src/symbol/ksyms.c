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
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "symbol/ksyms.h"
#include "util/textline.h"

/* Names live in a few large blocks that never move, so pointers to them stay valid. */
#define STR_BLOCK_SIZE (64 * 1024)

struct str_block {
	struct str_block *next;
	size_t used, cap;
	char data[];
};

struct ksym_ent {
	struct ksym sym; /* first, so a pointer to it is what lookup hands out */
	int rank;	 /* binding order of the type letter, see the top of the file */
};

struct ksyms {
	struct ksym_ent *v;
	size_t n, cap;
	struct str_block *blocks;
	bool restricted;
};

static const char *str_store(struct ksyms *ks, const char *s, size_t len)
{
	struct str_block *b = ks->blocks;
	char *dst;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > STR_BLOCK_SIZE ? len + 1 : STR_BLOCK_SIZE;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = ks->blocks;
		ks->blocks = b;
	}
	dst = b->data + b->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	b->used += len + 1;
	return dst;
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

struct kline {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;
};

/* Splits one line (without its '\n') into its fields; module is NULL for the kernel image. */
static int parse_line(const char *line, struct kline *kl)
{
	static const char hex_chars[] = "0123456789abcdefABCDEF";
	size_t len = strspn(line, hex_chars);
	unsigned long long addr;
	const char *p;
	char *end;

	/* the span is checked first so strtoull cannot take blanks, a sign or "0x" */
	if (!len || line[len] != ' ')
		return -EINVAL;
	errno = 0;
	addr = strtoull(line, &end, 16);
	if (errno || end != line + len)
		return -EINVAL;
	kl->addr = addr;

	p = line + len + 1;
	if (!is_alpha(p[0]) || p[1] != ' ')
		return -EINVAL;
	kl->type = p[0];

	p += 2;
	kl->name = p;
	kl->name_len = strcspn(p, " \t");
	if (!kl->name_len)
		return -EINVAL;
	p += kl->name_len;
	kl->module = NULL;
	kl->module_len = 0;
	if (!*p)
		return 0;
	/* the kernel separates "[module]" with a tab */
	if (p[0] != '\t' || p[1] != '[')
		return -EINVAL;
	p += 2;
	len = strcspn(p, "[] \t");
	if (!len || p[len] != ']' || p[len + 1])
		return -EINVAL;
	kl->module = p;
	kl->module_len = len;
	return 0;
}

static int add_symbol(struct ksyms *ks, const struct kline *kl, int rank)
{
	struct ksym_ent *e;
	const char *prev_mod = ks->n ? ks->v[ks->n - 1].sym.module : NULL;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 1024;

		e = reallocarray(ks->v, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		ks->v = e;
		ks->cap = cap;
	}
	e = &ks->v[ks->n];
	e->sym.addr = kl->addr;
	e->rank = rank;
	e->sym.name = str_store(ks, kl->name, kl->name_len);
	if (!e->sym.name)
		return -ENOMEM;
	e->sym.module = NULL;
	if (kl->module) {
		/* a module's symbols come in one run: share the previous symbol's copy */
		if (prev_mod && strlen(prev_mod) == kl->module_len &&
		    !memcmp(prev_mod, kl->module, kl->module_len))
			e->sym.module = prev_mod;
		else
			e->sym.module = str_store(ks, kl->module, kl->module_len);
		if (!e->sym.module)
			return -ENOMEM;
	}
	ks->n++;
	return 0;
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;
	size_t ux, uy;
	int c;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	ux = leading_underscores(x->sym.name);
	uy = leading_underscores(y->sym.name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	c = strcmp(x->sym.name, y->sym.name);
	if (c)
		return c;
	if (!x->sym.module || !y->sym.module)
		return !!x->sym.module - !!y->sym.module;
	return strcmp(x->sym.module, y->sym.module);
}

void ksyms__free(struct ksyms *ks)
{
	struct str_block *b, *next;

	if (!ks)
		return;
	for (b = ks->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(ks->v);
	free(ks);
}

struct ksyms *ksyms__load(FILE *f)
{
	struct ksyms *ks;
	bool any_line = false, any_nonzero = false;
	size_t linecap = 0;
	char *line = NULL;
	struct kline kl;
	size_t len;
	int err = 0, rank;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	while ((err = textline_read(f, &line, &linecap, &len)) > 0) {
		err = parse_line(line, &kl);
		if (err)
			break;
		/* every line counts for the restriction test, data symbols included */
		any_line = true;
		any_nonzero |= kl.addr != 0;
		rank = text_rank(kl.type);
		if (rank < 0)
			continue;
		err = add_symbol(ks, &kl, rank);
		if (err)
			break;
	}
	free(line);
	if (err)
		goto err_out;

	ks->restricted = any_line && !any_nonzero;
	if (ks->n) /* qsort must not see the NULL array of an empty table */
		qsort(ks->v, ks->n, sizeof(*ks->v), cmp_ent);
	return ks;

err_out:
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

const struct ksym *ksyms__lookup(const struct ksyms *ks, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi;
	uint64_t found;

	if (!ks || !ks->n || ks->restricted)
		return NULL;
	/* first entry above addr; the answer's address is the one just before it */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].sym.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	found = ks->v[lo - 1].sym.addr;

	/* then the first of the aliases at that address, which the sort made the preferred one */
	hi = lo - 1;
	lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].sym.addr < found)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (offset)
		*offset = addr - found;
	return &ks->v[lo].sym;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

bool ksyms__restricted(const struct ksyms *ks)
{
	return ks && ks->restricted;
}
