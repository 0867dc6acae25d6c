// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "output/json_out.h"
#include "output/top.h"
#include "util/idtable.h"
#include "util/index_sort.h"
#include "util/labelset.h"
#include "util/utf8safe.h"

static const char *const by_names[] = {"function", "file", "line", "process", "thread", "label"};

const char *top_by_name(enum top_by by)
{
	return by_names[by];
}

int top_by_parse(const char *s, enum top_by *by, const char **label)
{
	if (!strncmp(s, "label:", 6) && s[6]) {
		*by = TOP_LABEL;
		*label = s + 6;
		return 0;
	}
	for (size_t i = 0; i < TOP_LABEL; i++)
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

static int cmp_rows_r(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_rows(a, b);
}

/* Sort the rows in place (index_sort: qsort of the rows themselves took a copy of them all). */
static int sort_rows(struct top_row *rows, size_t n)
{
	return index_sort(rows, n, sizeof(*rows), cmp_rows_r, NULL);
}

static bool focused(const struct profile *p, const struct prof_sample *s, const regex_t *re)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (!regexec(re, profile__frame(p, s->frames[i])->name, 0, NULL, 0))
			return true;
	return false;
}

/* Does sample s carry every label of --tag? */
static bool tagged(const struct top_opts *o, const struct prof_sample *s)
{
	char v[LABELSET_MAX_LEN];

	for (size_t i = 0; i < o->n_tags; i++)
		if (!labelset_get(s->labels, o->tags[i].key, v, sizeof(v)) ||
		    strcmp(v, o->tags[i].val))
			return false;
	return true;
}

/* Does sample s count (--pid, --comm, --tag)? */
static bool counted(const struct top_opts *o, const struct prof_sample *s)
{
	return !(o->has_pid && s->pid != o->pid) &&
	       !(o->comm && regexec(o->comm, s->comm, 0, NULL, 0)) && tagged(o, s);
}

/* Rows of processes or threads: few, one key per sample. */
static int by_sample(const struct profile *p, const struct top_opts *o, struct acc *a,
		     struct top *t)
{
	char key[1024], val[1024];
	size_t r;
	int err;

	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);

		if (!counted(o, s))
			continue;
		t->samples += s->count;
		if (o->focus && !focused(p, s, o->focus))
			continue;
		t->focused += s->count;
		if (o->by == TOP_PROCESS)
			snprintf(key, sizeof(key), s->pid ? "%s (pid %u)" : "%s", s->comm, s->pid);
		else if (o->by == TOP_LABEL &&
			 !labelset_get(s->labels, o->label ? o->label : "", val, sizeof(val)))
			snprintf(key, sizeof(key), "[no %s label]", o->label ? o->label : "");
		else if (o->by == TOP_LABEL)
			/* the value decoded is the target's bytes again (ESC, '\n'): as a name */
			utf8safe_copy(key, sizeof(key), val);
		else
			snprintf(key, sizeof(key), s->tid ? "%s (tid %u)" : "%s",
				 *s->thread ? s->thread : s->comm, s->tid);
		err = row_of(a, key, &r);
		if (err)
			return err;
		a->rows[r].self += s->count;
		a->rows[r].total += s->count;
	}
	return 0;
}

/*
 * Rows of frames (function, file, line). A profile of distinct frames has as many rows as
 * frames: no key is copied or kept by row while counting. Pass 1 gives each frame of a kept
 * sample the first frame of its key (canon, by frame id, through a transient hash of keys made
 * again from that frame); pass 2 counts self and total by that frame. Then only the rows asked
 * for (o->keep) get a key: the name itself when the key is the name, else a copy.
 */
struct by_frame {
	const struct profile *p;
	enum top_by by;
	uint32_t *canon; /* by frame id: the id + 1 of the first frame of the same key; 0 unseen */
	uint64_t *total; /* by canon frame id */
	/* self by canon frame id, of the leaves only (few against the frames): a hash table */
	uint32_t *self_id; /* id + 1, 0: free */
	uint64_t *self;
	size_t self_cap, self_n;
	char ka[1024], kb[1024];
};

/* Key of frame id in buf (the two buffers of bf: two keys at a time). */
static const char *frame_key(struct by_frame *bf, uint32_t id, char *buf)
{
	top_frame_key(profile__frame(bf->p, id), bf->by, buf, sizeof(bf->ka));
	return buf;
}

static uint32_t ids_hash(const char *key)
{
	return idtable_hash(IDTABLE_SEED, key, strlen(key));
}

/*
 * The index of keys to their canon frame: a slot holds the frame's id + 1 (0: free) and, in
 * the bits the ids do not need, the top bits of the key's hash: a tag that spares most
 * comparisons of keys (each made again from a frame), so the index can be 3/4 full.
 */
struct canon_index {
	uint32_t *slots;
	size_t cap, n;
	uint32_t id_mask; /* the bits of an id + 1 */
};

static bool canon_tag_eq(const struct canon_index *x, uint32_t slot, uint32_t h)
{
	return !((slot ^ h) & ~x->id_mask);
}

/* The slot of the key in bf->ka (hash h): its canon frame's, or the free one it goes to. */
static size_t canon_find(struct by_frame *bf, const struct canon_index *x, uint32_t h)
{
	size_t i = h & (x->cap - 1);

	for (; x->slots[i]; i = (i + 1) & (x->cap - 1))
		if (canon_tag_eq(x, x->slots[i], h) &&
		    !strcmp(frame_key(bf, (x->slots[i] & x->id_mask) - 1, bf->kb), bf->ka))
			break;
	return i;
}

/* Pass 1's mark on a frame of a kept sample that has no canon frame yet. */
#define CANON_UNSEEN UINT32_MAX

/* Does sample s count and is it kept (--focus)? */
static bool kept(const struct profile *p, const struct top_opts *o, const struct prof_sample *s)
{
	return counted(o, s) && !(o->focus && !focused(p, s, o->focus));
}

static int canon_pass(struct by_frame *bf, const struct top_opts *o)
{
	const struct profile *p = bf->p;
	struct canon_index x = {.id_mask = UINT32_MAX, .cap = 256};
	size_t used = 0;

	/* ids + 1 up to n_frames: the bits above are the tag's */
	while (x.id_mask > 1 && x.id_mask >> 1 >= profile__n_frames(p))
		x.id_mask >>= 1;
	/* the frames of the kept samples counted first: the index is made once, 3/4 full at most
	 * (growing it held the old one beside the new) */
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);

		if (!kept(p, o, s))
			continue;
		for (uint32_t k = 0; k < s->nframes; k++)
			if (!bf->canon[s->frames[k]]) {
				bf->canon[s->frames[k]] = CANON_UNSEEN;
				used++;
			}
	}
	while (x.cap * 3 < 4 * (used + 1))
		x.cap *= 2;
	x.slots = calloc(x.cap, sizeof(*x.slots));
	if (!x.slots)
		return -ENOMEM;
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);

		if (!kept(p, o, s))
			continue;
		for (uint32_t k = 0; k < s->nframes; k++) {
			uint32_t id = s->frames[k], h;
			size_t j;

			if (bf->canon[id] != CANON_UNSEEN)
				continue;
			h = ids_hash(frame_key(bf, id, bf->ka));
			j = canon_find(bf, &x, h);
			if (!x.slots[j]) {
				x.slots[j] = (h & ~x.id_mask) | (id + 1);
				x.n++;
			}
			bf->canon[id] = x.slots[j] & x.id_mask;
		}
	}
	free(x.slots);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static size_t self_slot(const struct by_frame *bf, uint32_t id)
{
	size_t i = idtable_hash(IDTABLE_SEED, &id, sizeof(id)) & (bf->self_cap - 1);

	while (bf->self_id[i] && bf->self_id[i] != id + 1)
		i = (i + 1) & (bf->self_cap - 1);
	return i;
}

static uint64_t self_of(const struct by_frame *bf, uint32_t id)
{
	size_t i = self_slot(bf, id);

	return bf->self_id[i] ? bf->self[i] : 0;
}

/* Add n to the self of canon frame id. 0 or -ENOMEM. */
static int self_add(struct by_frame *bf, uint32_t id, uint64_t n)
{
	size_t i;

	if (2 * (bf->self_n + 1) > bf->self_cap) {
		struct by_frame nb = {.self_cap = bf->self_cap ? 2 * bf->self_cap : 256};

		nb.self_id = calloc(nb.self_cap, sizeof(*nb.self_id));
		nb.self = malloc(nb.self_cap * sizeof(*nb.self));
		if (!nb.self_id || !nb.self) {
			free(nb.self_id);
			free(nb.self);
			return -ENOMEM;
		}
		for (size_t j = 0; j < bf->self_cap; j++) {
			if (!bf->self_id[j])
				continue;
			i = self_slot(&nb, bf->self_id[j] - 1);
			nb.self_id[i] = bf->self_id[j];
			nb.self[i] = bf->self[j];
		}
		free(bf->self_id);
		free(bf->self);
		bf->self_id = nb.self_id;
		bf->self = nb.self;
		bf->self_cap = nb.self_cap;
	}
	i = self_slot(bf, id);
	if (!bf->self_id[i]) {
		bf->self_id[i] = id + 1;
		bf->self[i] = 0;
		bf->self_n++;
	}
	bf->self[i] += n;
	return 0;
}

static int count_pass(struct by_frame *bf, const struct top_opts *o, struct top *t)
{
	const struct profile *p = bf->p;
	uint32_t *seen = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);
		uint32_t n = 0;

		if (!counted(o, s))
			continue;
		t->samples += s->count;
		if (o->focus && !focused(p, s, o->focus))
			continue;
		t->focused += s->count;
		if (!s->nframes)
			continue;
		if (s->nframes > cap) {
			uint32_t *ns = realloc(seen, s->nframes * sizeof(*ns));

			if (!ns) {
				free(seen);
				return -ENOMEM;
			}
			seen = ns;
			cap = s->nframes;
		}
		/* recursion: a key counts once per sample in total */
		for (uint32_t k = 0; k < s->nframes; k++)
			seen[k] = bf->canon[s->frames[k]] - 1;
		if (self_add(bf, seen[s->nframes - 1], s->count)) {
			free(seen);
			return -ENOMEM;
		}
		qsort(seen, s->nframes, sizeof(*seen), cmp_u32);
		for (uint32_t k = 0; k < s->nframes; k++)
			if (!k || seen[k] != seen[n - 1])
				seen[n++] = seen[k];
		for (uint32_t k = 0; k < n; k++)
			bf->total[seen[k]] += s->count;
	}
	free(seen);
	return 0;
}

/* The order of rows (cmp_rows) between canon frames a and b. */
static int cmp_canon(struct by_frame *bf, uint32_t a, uint32_t b)
{
	uint64_t sa = self_of(bf, a), sb = self_of(bf, b);

	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (bf->total[a] != bf->total[b])
		return bf->total[a] > bf->total[b] ? -1 : 1;
	return strcmp(frame_key(bf, a, bf->ka), frame_key(bf, b, bf->kb));
}

/* Heap of the keep best rows so far, the last of them at the top. */
static void sift_down(struct by_frame *bf, uint32_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < n && cmp_canon(bf, heap[l], heap[w]) > 0)
			w = l;
		if (r < n && cmp_canon(bf, heap[r], heap[w]) > 0)
			w = r;
		if (w == i)
			return;
		uint32_t tmp = heap[i];

		heap[i] = heap[w];
		heap[w] = tmp;
		i = w;
	}
}

static void sift_up(struct by_frame *bf, uint32_t *heap, size_t i)
{
	while (i && cmp_canon(bf, heap[i], heap[(i - 1) / 2]) > 0) {
		uint32_t tmp = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

/* The rows of the canon frames ids[0..n), their keys made, sorted. */
static int make_rows(struct by_frame *bf, const uint32_t *ids, size_t n, struct top *t)
{
	t->rows = calloc(n ? n : 1, sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct prof_frame *f = profile__frame(bf->p, ids[i]);
		struct top_row *r = &t->rows[i];

		frame_key(bf, ids[i], bf->ka);
		/* a name lives as long as the profile, which outlives the table */
		r->key = !strcmp(bf->ka, f->name) ? (char *)f->name : key_dup(&t->keys, bf->ka);
		if (!r->key)
			return -ENOMEM;
		r->self = self_of(bf, ids[i]);
		r->total = bf->total[ids[i]];
		t->n++;
	}
	return sort_rows(t->rows, t->n);
}

static int by_frame(const struct profile *p, const struct top_opts *o, struct top *t)
{
	size_t nf = profile__n_frames(p), n, rows = 0;
	struct by_frame *bf = calloc(1, sizeof(*bf));
	uint32_t *heap = NULL;
	int err = -ENOMEM;

	if (!bf)
		return -ENOMEM;
	bf->p = p;
	bf->by = o->by;
	bf->canon = calloc(nf ? nf : 1, sizeof(*bf->canon));
	if (!bf->canon)
		goto out;
	err = canon_pass(bf, o);
	if (err)
		goto out;
	err = -ENOMEM;
	bf->total = calloc(nf ? nf : 1, sizeof(*bf->total));
	if (!bf->total)
		goto out;
	err = count_pass(bf, o, t);
	if (err)
		goto out;
	for (size_t id = 0; id < nf; id++)
		rows += bf->canon[id] == id + 1;
	n = o->keep && o->keep < rows ? o->keep : rows;
	err = -ENOMEM;
	heap = malloc((n ? n : 1) * sizeof(*heap));
	if (!heap)
		goto out;
	/* the n first rows: all of them, or the best through a heap */
	for (size_t id = 0, m = 0, all = n == rows; id < nf; id++) {
		if (bf->canon[id] != id + 1)
			continue;
		if (all) {
			heap[m++] = (uint32_t)id;
		} else if (m < n) {
			heap[m] = (uint32_t)id;
			sift_up(bf, heap, m++);
		} else if (n && cmp_canon(bf, (uint32_t)id, heap[0]) < 0) {
			heap[0] = (uint32_t)id;
			sift_down(bf, heap, n, 0);
		}
	}
	/* no longer needed: the keys' copies may take their room */
	free(bf->canon);
	bf->canon = NULL;
	err = make_rows(bf, heap, n, t);
out:
	free(heap);
	free(bf->canon);
	free(bf->self_id);
	free(bf->self);
	free(bf->total);
	free(bf);
	return err;
}

int top_compute(const struct profile *p, const struct top_opts *o, struct top *t)
{
	struct acc a = {0};
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (o->by != TOP_PROCESS && o->by != TOP_THREAD && o->by != TOP_LABEL) {
		err = by_frame(p, o, t);
		if (err)
			top_free(t);
		return err;
	}
	err = by_sample(p, o, &a, t);
	if (err)
		goto out;
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
	if (o->keep && t->n > o->keep)
		t->n = o->keep; /* after the sort below */
	err = sort_rows(t->rows, a.n);
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
