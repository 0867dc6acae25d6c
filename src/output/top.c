// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "output/json_out.h"
#include "output/top.h"
#include "util/idtable.h"

static const char *const by_names[] = {"function", "file", "line", "process", "thread"};

const char *top_by_name(enum top_by by)
{
	return by_names[by];
}

int top_by_parse(const char *s, enum top_by *by)
{
	for (size_t i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (!strcmp(s, by_names[i])) {
			*by = (enum top_by)i;
			return 0;
		}
	return -EINVAL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

void top_frame_key(const struct prof_frame *f, enum top_by by, char *buf, size_t size)
{
	const char *k = f->kind == FRAME_KERNEL ? "_[k]" : "";

	switch (by) {
	case TOP_FILE:
		if (f->file)
			snprintf(buf, size, "%s", f->file);
		else if (f->module && f->module[0] == '[')
			snprintf(buf, size, "%s",
				 f->module); /* already bracketed: [kernel.kallsyms] */
		else if (f->module)
			snprintf(buf, size, "[%s]", base_name(f->module));
		else
			snprintf(buf, size, "[unknown]");
		break;
	case TOP_LINE:
		if (f->file && f->line)
			snprintf(buf, size, "%s%s %s:%u", f->name, k, base_name(f->file), f->line);
		else
			snprintf(buf, size, "%s%s", f->name, k);
		break;
	default:
		snprintf(buf, size, "%s%s", f->name, k);
		break;
	}
}

/*
 * Rows by key: one array of rows (what top_compute returns, sorted in place) and an open
 * hash table of their indices. A tree of rows malloc'd one by one cost 170 bytes a row, most
 * of report's memory on a profile of many distinct functions; this costs about 70.
 */
/* Keys cut from blocks: a malloc'd copy each cost 32 bytes for a 14-byte name. */
struct top_keys {
	struct top_keys *next;
	size_t used, cap;
	char s[];
};

#define KEY_BLOCK (64u << 10)

static char *key_dup(struct top_keys **blocks, const char *key)
{
	size_t n = strlen(key) + 1;
	struct top_keys *b = *blocks;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > KEY_BLOCK ? n : KEY_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = *blocks;
		b->used = 0;
		b->cap = cap;
		*blocks = b;
	}
	memcpy(b->s + b->used, key, n);
	b->used += n;
	return b->s + b->used - n;
}

static void keys_free(struct top_keys *b)
{
	while (b) {
		struct top_keys *next = b->next;

		free(b);
		b = next;
	}
}

struct acc {
	struct top_keys *keys;
	struct top_row *rows;
	size_t *last; /* per row: index + 1 of the last sample that added to its total */
	size_t n, cap;
	uint32_t *slots; /* index + 1 of a row, 0: free */
	size_t nslots;	 /* a power of two, at least twice n */
};

static uint32_t key_hash(const char *key)
{
	return idtable_hash(IDTABLE_SEED, key, strlen(key));
}

static int acc_rehash(struct acc *a, size_t nslots)
{
	uint32_t *ns = calloc(nslots, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		size_t h = key_hash(a->rows[i].key) & (nslots - 1);

		while (ns[h])
			h = (h + 1) & (nslots - 1);
		ns[h] = (uint32_t)(i + 1);
	}
	free(a->slots);
	a->slots = ns;
	a->nslots = nslots;
	return 0;
}

/* The row of key (added if new), its index in *idx; -ENOMEM. */
static int row_of(struct acc *a, const char *key, size_t *idx)
{
	size_t h;

	if (2 * (a->n + 1) > a->nslots) {
		if (a->n >= UINT32_MAX - 1 || acc_rehash(a, a->nslots ? a->nslots * 2 : 256))
			return -ENOMEM;
	}
	for (h = key_hash(key) & (a->nslots - 1); a->slots[h]; h = (h + 1) & (a->nslots - 1))
		if (!strcmp(a->rows[a->slots[h] - 1].key, key)) {
			*idx = a->slots[h] - 1;
			return 0;
		}
	if (a->n == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 64;
		struct top_row *nr = realloc(a->rows, ncap * sizeof(*nr));
		size_t *nl;

		if (!nr)
			return -ENOMEM;
		a->rows = nr;
		nl = realloc(a->last, ncap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		a->last = nl;
		a->cap = ncap;
	}
	a->rows[a->n] = (struct top_row){.key = key_dup(&a->keys, key)};
	if (!a->rows[a->n].key)
		return -ENOMEM;
	a->last[a->n] = 0;
	a->slots[h] = (uint32_t)(a->n + 1);
	*idx = a->n++;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int cmp_idx(const void *a, const void *b, void *rows)
{
	const struct top_row *r = rows;

	return cmp_rows(&r[*(const uint32_t *)a], &r[*(const uint32_t *)b]);
}

/*
 * Sort the rows in place: through an array of their indices, then the permutation followed
 * cycle by cycle (qsort of the rows themselves took a copy of them all).
 */
static int sort_rows(struct top_row *rows, size_t n)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx, rows);
	/* row j of the result is rows[idx[j]]; idx[j] = j marks j done */
	for (size_t i = 0; i < n; i++) {
		struct top_row tmp;
		size_t j = i;

		if (idx[i] == i)
			continue;
		tmp = rows[i];
		while (idx[j] != i) {
			size_t k = idx[j];

			rows[j] = rows[k];
			idx[j] = (uint32_t)j;
			j = k;
		}
		rows[j] = tmp;
		idx[j] = (uint32_t)j;
	}
	free(idx);
	return 0;
}

static bool focused(const struct profile *p, const struct prof_sample *s, const regex_t *re)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (!regexec(re, profile__frame(p, s->frames[i])->name, 0, NULL, 0))
			return true;
	return false;
}

int top_compute(const struct profile *p, const struct top_opts *o, struct top *t)
{
	struct acc a = {0};
	char key[1024];
	size_t r;
	int err = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);

		if ((o->has_pid && s->pid != o->pid) ||
		    (o->comm && regexec(o->comm, s->comm, 0, NULL, 0)))
			continue;
		t->samples += s->count;
		if (o->focus && !focused(p, s, o->focus))
			continue;
		t->focused += s->count;
		if (o->by == TOP_PROCESS || o->by == TOP_THREAD) {
			if (o->by == TOP_PROCESS)
				snprintf(key, sizeof(key), s->pid ? "%s (pid %u)" : "%s", s->comm,
					 s->pid);
			else
				snprintf(key, sizeof(key), s->tid ? "%s (tid %u)" : "%s",
					 *s->thread ? s->thread : s->comm, s->tid);
			err = row_of(&a, key, &r);
			if (err)
				goto out;
			a.rows[r].self += s->count;
			a.rows[r].total += s->count;
			continue;
		}
		for (uint32_t k = 0; k < s->nframes; k++) {
			top_frame_key(profile__frame(p, s->frames[k]), o->by, key, sizeof(key));
			err = row_of(&a, key, &r);
			if (err)
				goto out;
			/* recursion: a key counts once per sample in total */
			if (a.last[r] != i + 1) {
				a.rows[r].total += s->count;
				a.last[r] = i + 1;
			}
			if (k + 1 == s->nframes)
				a.rows[r].self += s->count;
		}
	}
	free(a.slots);
	free(a.last);
	a.slots = NULL;
	a.last = NULL;
	if (!a.rows && !(a.rows = calloc(1, sizeof(*a.rows)))) {
		err = -ENOMEM;
		goto out;
	}
	t->rows = a.rows;
	t->n = a.n;
	t->keys = a.keys;
	a.rows = NULL;
	a.keys = NULL;
	err = sort_rows(t->rows, t->n);
out:
	free(a.slots);
	free(a.last);
	free(a.rows);
	keys_free(a.keys);
	if (err)
		top_free(t);
	return err;
}

const struct top_row *top_find(const struct top *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	return NULL;
}

void top_free(struct top *t)
{
	if (!t)
		return;
	keys_free(t->keys);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static double pct(uint64_t v, uint64_t of)
{
	return of ? 100.0 * (double)v / (double)of : 0.0;
}

int top_write_text(const struct top *t, enum top_by by, size_t n, FILE *out)
{
	if (!n || n > t->n)
		n = t->n;
	if (fprintf(out, "%10s %7s %10s %7s  %s\n", "self", "self%", "total", "total%",
		    top_by_name(by)) < 0)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = &t->rows[i];

		if (fprintf(out, "%10llu %6.2f%% %10llu %6.2f%%  %s\n", (unsigned long long)r->self,
			    pct(r->self, t->samples), (unsigned long long)r->total,
			    pct(r->total, t->samples), r->key) < 0)
			return -EIO;
	}
	return fflush(out) ? -EIO : 0;
}

/* A percentage with 2 decimals, so the text and JSON tables agree. */
static json_t *pct_json(uint64_t v, uint64_t of)
{
	return json_real((double)(int64_t)(pct(v, of) * 100.0 + 0.5) / 100.0);
}

int top_write_json(const struct top *t, enum top_by by, size_t n, const char *source,
		   const char *format, const char *value, FILE *out)
{
	json_t *doc = json_object(), *rows = json_array();
	int err = 0;

	if (!n || n > t->n)
		n = t->n;
	if (!doc || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct top_row *r = &t->rows[i];
		json_t *o = json_object();

		if (!o || json_object_set_new(o, "name", json_out_string(r->key)) ||
		    json_object_set_new(o, "self", json_integer((json_int_t)r->self)) ||
		    json_object_set_new(o, "self_pct", pct_json(r->self, t->samples)) ||
		    json_object_set_new(o, "total", json_integer((json_int_t)r->total)) ||
		    json_object_set_new(o, "total_pct", pct_json(r->total, t->samples)) ||
		    json_array_append_new(rows, o))
			err = -ENOMEM;
	}
	if (err || json_object_set_new(doc, "source", json_out_string(source)) ||
	    json_object_set_new(doc, "format", json_string(format)) ||
	    json_object_set_new(doc, "value", json_string(value)) ||
	    json_object_set_new(doc, "by", json_string(top_by_name(by))) ||
	    json_object_set_new(doc, "samples", json_integer((json_int_t)t->samples)) ||
	    json_object_set_new(doc, "focused", json_integer((json_int_t)t->focused)) ||
	    json_object_set(doc, "rows", rows)) {
		err = -ENOMEM;
		goto out;
	}
	if (json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) ||
	    fputc('\n', out) < 0 || fflush(out))
		err = -EIO;
out:
	json_decref(rows);
	json_decref(doc);
	return err;
}
