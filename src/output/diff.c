// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "output/json_out.h"
#include "output/diff.h"
#include "output/folded.h"
#include "util/index_sort.h"

static double fabs_(double v)
{
	return v < 0 ? -v : v;
}

double diff_pct(uint64_t v, uint64_t of)
{
	return of ? 100.0 * (double)v / (double)of : 0.0;
}

double diff_total_change(const struct diff *d, const struct diff_row *r)
{
	return diff_pct(r->new_total, d->new_samples) - diff_pct(r->base_total, d->base_samples);
}

double diff_self_change(const struct diff *d, const struct diff_row *r)
{
	return diff_pct(r->new_self, d->new_samples) - diff_pct(r->base_self, d->base_samples);
}

static int cmp_key(const struct diff *d, const struct diff_row *x, const struct diff_row *y)
{
	(void)d;
	return strcmp(x->key, y->key);
}

static int cmp_change(const struct diff *d, const struct diff_row *x, const struct diff_row *y)
{
	double dx = fabs_(diff_total_change(d, x)), dy = fabs_(diff_total_change(d, y));

	if (dx != dy)
		return dx > dy ? -1 : 1;
	dx = fabs_(diff_self_change(d, x));
	dy = fabs_(diff_self_change(d, y));
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int cmp_key_b(const void *a, const void *b)
{
	return cmp_key(NULL, a, b);
}

struct sort_ctx {
	const struct diff *d;
	int (*cmp)(const struct diff *, const struct diff_row *, const struct diff_row *);
};

static int cmp_row(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *c = ctx;

	return c->cmp(c->d, a, b);
}

/* Sort rows in place through index_sort: qsort of the rows themselves took a copy of them all. */
static int sort_rows(struct diff *d, size_t n,
		     int (*cmp)(const struct diff *, const struct diff_row *,
				const struct diff_row *))
{
	struct sort_ctx ctx = {d, cmp};

	return index_sort(d->rows, n, sizeof(*d->rows), cmp_row, &ctx);
}

int diff_compute(const struct top *base, const struct top *new, struct diff *d)
{
	size_t n = 0, i;

	memset(d, 0, sizeof(*d));
	d->base_samples = base->samples;
	d->new_samples = new->samples;
	d->rows = calloc(base->n + new->n + 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	/* the keys are the tables' own: they outlive d (diff.h) */
	for (i = 0; i < base->n; i++) {
		d->rows[n].key = base->rows[i].key;
		d->rows[n].base_self = base->rows[i].self;
		d->rows[n].base_total = base->rows[i].total;
		n++;
	}
	d->n = n;
	if (sort_rows(d, n, cmp_key))
		goto nomem;
	for (i = 0; i < new->n; i++) {
		struct diff_row probe = {.key = new->rows[i].key}, *r;

		r = bsearch(&probe, d->rows, d->n, sizeof(*d->rows), cmp_key_b);
		if (!r) {
			r = &d->rows[n++];
			r->key = new->rows[i].key;
		}
		r->new_self = new->rows[i].self;
		r->new_total = new->rows[i].total;
	}
	d->n = n;
	if (sort_rows(d, n, cmp_change))
		goto nomem;
	return 0;
nomem:
	d->n = n;
	diff_free(d);
	return -ENOMEM;
}

const struct diff_row *diff_find(const struct diff *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].key, key))
			return &d->rows[i];
	return NULL;
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

int diff_write_text(const struct diff *d, enum top_by by, size_t n, FILE *out)
{
	if (!n || n > d->n)
		n = d->n;
	if (fprintf(out, "%8s %8s %8s  %8s %8s %8s  %s\n", "base%", "new%", "change", "self",
		    "self", "self", top_by_name(by)) < 0 ||
	    fprintf(out, "%8s %8s %8s  %8s %8s %8s\n", "total", "total", "points", "base%", "new%",
		    "points") < 0)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &d->rows[i];

		if (fprintf(out, "%7.2f%% %7.2f%% %+8.2f  %7.2f%% %7.2f%% %+8.2f  %s\n",
			    diff_pct(r->base_total, d->base_samples),
			    diff_pct(r->new_total, d->new_samples), diff_total_change(d, r),
			    diff_pct(r->base_self, d->base_samples),
			    diff_pct(r->new_self, d->new_samples), diff_self_change(d, r),
			    r->key) < 0)
			return -EIO;
	}
	return fflush(out) ? -EIO : 0;
}

static json_t *round2(double v)
{
	return json_real((double)(long long)(v * 100.0 + (v < 0 ? -0.5 : 0.5)) / 100.0);
}

int diff_write_json(const struct diff *d, enum top_by by, size_t n, const char *base_name,
		    const char *new_name, FILE *out)
{
	json_t *doc = json_object(), *rows = json_array();
	int err = 0;

	if (!n || n > d->n)
		n = d->n;
	if (!doc || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct diff_row *r = &d->rows[i];
		json_t *o = json_object();

		if (!o || json_object_set_new(o, "name", json_out_string(r->key)) ||
		    json_object_set_new(o, "base_total_pct",
					round2(diff_pct(r->base_total, d->base_samples))) ||
		    json_object_set_new(o, "new_total_pct",
					round2(diff_pct(r->new_total, d->new_samples))) ||
		    json_object_set_new(o, "total_change", round2(diff_total_change(d, r))) ||
		    json_object_set_new(o, "base_self_pct",
					round2(diff_pct(r->base_self, d->base_samples))) ||
		    json_object_set_new(o, "new_self_pct",
					round2(diff_pct(r->new_self, d->new_samples))) ||
		    json_object_set_new(o, "self_change", round2(diff_self_change(d, r))) ||
		    json_object_set_new(o, "base_total", json_integer((json_int_t)r->base_total)) ||
		    json_object_set_new(o, "new_total", json_integer((json_int_t)r->new_total)) ||
		    json_object_set_new(o, "base_self", json_integer((json_int_t)r->base_self)) ||
		    json_object_set_new(o, "new_self", json_integer((json_int_t)r->new_self)) ||
		    json_array_append_new(rows, o))
			err = -ENOMEM;
	}
	if (err || json_object_set_new(doc, "base", json_out_string(base_name)) ||
	    json_object_set_new(doc, "new", json_out_string(new_name)) ||
	    json_object_set_new(doc, "by", json_string(top_by_name(by))) ||
	    json_object_set_new(doc, "base_samples", json_integer((json_int_t)d->base_samples)) ||
	    json_object_set_new(doc, "new_samples", json_integer((json_int_t)d->new_samples)) ||
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

/* The folded text of p in memory (sorted lines "STACK COUNT"). */
static char *folded_text(const struct profile *p, bool per_thread, int *err)
{
	struct folded_opts o = {.per_thread = per_thread};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = folded_write(p, &o, f);
	if (fclose(f) && !*err)
		*err = -ENOMEM;
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Split one line "STACK COUNT" at its last space; advance *s past it. */
static bool next_line(char **s, char **stack, size_t *slen, unsigned long long *count)
{
	char *nl, *sp;

	if (!*s || !**s)
		return false;
	nl = strchr(*s, '\n');
	if (nl)
		*nl = '\0';
	sp = strrchr(*s, ' ');
	*stack = *s;
	*slen = sp ? (size_t)(sp - *s) : strlen(*s);
	*count = sp ? strtoull(sp + 1, NULL, 10) : 0;
	*s = nl ? nl + 1 : NULL;
	return true;
}

static int stack_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : al < bl ? -1 : al > bl;
}

int diff_write_folded(const struct profile *base, const struct profile *new, bool per_thread,
		      FILE *out)
{
	int err = 0;
	char *a = folded_text(base, per_thread, &err),
	     *b = a ? folded_text(new, per_thread, &err) : NULL;
	char *pa = a, *pb = b, *sa = NULL, *sb = NULL;
	size_t la = 0, lb = 0;
	unsigned long long ca = 0, cb = 0;
	bool ha, hb;

	if (err)
		goto out;
	/* folded_write sorts by stack text (bytewise): a merge of two sorted lists */
	ha = next_line(&pa, &sa, &la, &ca);
	hb = next_line(&pb, &sb, &lb, &cb);
	while (ha || hb) {
		int c = !ha ? 1 : !hb ? -1 : stack_cmp(sa, la, sb, lb);

		if (fprintf(out, "%.*s %llu %llu\n", (int)(c <= 0 ? la : lb), c <= 0 ? sa : sb,
			    c <= 0 ? ca : 0, c >= 0 ? cb : 0) < 0) {
			err = -EIO;
			goto out;
		}
		if (c <= 0)
			ha = next_line(&pa, &sa, &la, &ca);
		if (c >= 0)
			hb = next_line(&pb, &sb, &lb, &cb);
	}
	if (fflush(out))
		err = -EIO;
out:
	free(a);
	free(b);
	return err;
}
