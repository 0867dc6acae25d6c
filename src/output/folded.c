// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/folded.h"
#include "util/grow.h"
#include "util/idtable.h"
#include "util/labelset.h"

void folded_frame_name(const char *name, bool is_comm, char *buf, size_t size)
{
	size_t n = 0, i;

	if (!size)
		return;
	while (*name == ' ')
		name++;
	for (; *name && n + 1 < size; name++) {
		unsigned char c = (unsigned char)*name;

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		else if (c == ' ' && is_comm)
			c = '_';
		buf[n++] = (char)c;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	if (!n) {
		snprintf(buf, size, "[empty]");
		return;
	}
	for (i = n; i && buf[i - 1] >= '0' && buf[i - 1] <= '9'; i--)
		;
	if (i < n && i && buf[i - 1] == ' ')
		buf[i - 1] = '_';
}

/*
 * A line is never built whole: its text is the sample's head (comm, and "THREAD-TID"), then
 * ";NAME" for each frame from names[] (each frame's folded name, made once), then, once equal
 * stacks are merged, " COUNT". Lines are compared as the bytes they print, without holding
 * every line in memory (a long system-wide profile has 100,000 of them, kilobytes each).
 * Nothing is copied that the profile holds already: a name that folds to itself is the
 * frame's own string, its "_[k]" or "_[i]" a suffix apart; a head is made once per (comm,
 * thread, tid), not per line.
 */
struct line {
	const struct prof_sample *s;
	const char *head;
	uint64_t count;
};

struct fname {
	const char *s;	    /* the folded name: the frame's own string, or a copy in own */
	const char *suffix; /* "_[k]", "_[i]" or "" */
	char *own;
};

struct head {
	const char *comm, *thread; /* the profile's interned strings: equal pointers, equal names */
	const char *labels;	   /* with opts->labels; else "" */
	uint32_t tid;
	char *text;
};

struct fold {
	const struct profile *p;
	const struct folded_opts *opts;
	struct fname *names; /* frame id -> folded name */
	struct head *heads;
	size_t n_heads, cap_heads;
	struct idtable hidx;
	bool counted; /* compare with " COUNT" */
};

/* One printed line, read a byte at a time. */
struct cursor {
	const struct fold *f;
	const struct line *l;
	const char *p;	/* in the current piece */
	uint32_t frame; /* next frame */
	int piece;	/* 0 head, 1 frame name, 2 its suffix, 3 digits, 4 end */
	char digits[24];
};

static void cursor_init(struct cursor *c, const struct fold *f, const struct line *l)
{
	c->f = f;
	c->l = l;
	c->p = l->head;
	c->frame = 0;
	c->piece = 0;
}

/* The next byte, or -1 at the end of the line. */
static int cursor_next(struct cursor *c)
{
	for (;;) {
		if (c->piece == 4)
			return -1;
		if (*c->p)
			return (unsigned char)*c->p++;
		if (c->piece == 1) {
			c->p = c->f->names[c->l->s->frames[c->frame - 1]].suffix;
			c->piece = 2;
			continue;
		}
		if (c->piece == 0 || c->piece == 2) {
			if (c->frame < c->l->s->nframes) {
				/* ";" then the name: the separator is the piece's first byte */
				c->p = c->f->names[c->l->s->frames[c->frame++]].s;
				c->piece = 1;
				return ';';
			}
			c->piece = 3;
			c->p = "";
			if (c->f->counted) {
				snprintf(c->digits, sizeof(c->digits), " %llu",
					 (unsigned long long)c->l->count);
				c->p = c->digits;
			}
			continue;
		}
		c->piece = 4;
	}
}

/* From the ';' before frame k (k == nframes: from the count) to the end of the line. */
static void cursor_at_frame(struct cursor *c, const struct fold *f, const struct line *l,
			    uint32_t k)
{
	c->f = f;
	c->l = l;
	c->p = "";
	c->frame = k;
	c->piece = 2;
}

static int cmp_from(struct cursor *x, struct cursor *y)
{
	for (;;) {
		int u = cursor_next(x), v = cursor_next(y);

		if (u != v)
			return u < v ? -1 : 1;
		if (u < 0)
			return 0;
	}
}

static bool same_name(const struct fname *a, const struct fname *b)
{
	return a->suffix == b->suffix && (a->s == b->s || !strcmp(a->s, b->s));
}

/*
 * The printed lines compared byte by byte, without building them: equal heads and the frames
 * both lines share (the same frame, or names alike) are passed over whole, the bytes compared
 * from the first place they may differ.
 */
static int cmp_lines(const struct fold *f, const struct line *a, const struct line *b)
{
	const struct prof_sample *sa = a->s, *sb = b->s;
	struct cursor x, y;
	uint32_t k = 0;

	if (a->head != b->head && strcmp(a->head, b->head)) {
		cursor_init(&x, f, a);
		cursor_init(&y, f, b);
		return cmp_from(&x, &y);
	}
	while (k < sa->nframes && k < sb->nframes &&
	       (sa->frames[k] == sb->frames[k] ||
		same_name(&f->names[sa->frames[k]], &f->names[sb->frames[k]])))
		k++;
	cursor_at_frame(&x, f, a, k);
	cursor_at_frame(&y, f, b, k);
	return cmp_from(&x, &y);
}

static int cmp_line(const void *a, const void *b, void *ctx)
{
	return cmp_lines(ctx, a, b);
}

/* A frame's folded name: its own string when folding keeps it, else a copy. 0 or -ENOMEM. */
static int frame_name(const struct prof_frame *f, const struct folded_opts *opts, struct fname *out)
{
	char name[1024];

	out->suffix = f->kind == FRAME_KERNEL ? "_[k]" : f->inlined ? "_[i]" : "";
	out->own = NULL;
	if (opts->lines && f->file && f->line) {
		const char *base = strrchr(f->file, '/');
		char full[1024];

		/* a JS function: where it is defined, with the column as V8 and node name it */
		if (f->kind == FRAME_JS && f->column)
			snprintf(full, sizeof(full), "%s (%s:%u:%u)", f->name,
				 base ? base + 1 : f->file, f->line, f->column);
		else
			snprintf(full, sizeof(full), "%s (%s:%u)", f->name,
				 base ? base + 1 : f->file, f->line);
		folded_frame_name(full, false, name, sizeof(name) - 4);
	} else {
		folded_frame_name(f->name, false, name, sizeof(name) - 4);
		if (!strcmp(name, f->name)) {
			out->s = f->name;
			return 0;
		}
	}
	out->own = strdup(name);
	out->s = out->own;
	return out->own ? 0 : -ENOMEM;
}

static bool head_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct head *a = &((const struct fold *)ctx)->heads[id], *b = key;

	return a->comm == b->comm && a->thread == b->thread && a->labels == b->labels &&
	       a->tid == b->tid;
}

/*
 * The head of a sample's line, made once per (comm, thread, tid, labels): "COMM", then
 * ";THREAD-TID" per thread, then ";[labels SET]" with --labels when the sample has labels.
 * NULL on ENOMEM.
 */
static const char *head_of(struct fold *f, const struct prof_sample *s)
{
	bool pt = f->opts->per_thread;
	const char *labels = f->opts->labels ? s->labels : "";
	struct head k = {s->comm, pt ? s->thread : "", labels, pt ? s->tid : 0, NULL};
	char comm[1024], thread[1024], set[LABELSET_MAX_LEN + 16], frame[sizeof(set)], *text;
	struct idslot *sl;
	uint32_t h = idtable_hash(IDTABLE_SEED, &k.comm, sizeof(k.comm));
	bool found;

	h = idtable_hash(h, &k.thread, sizeof(k.thread));
	h = idtable_hash(h, &k.labels, sizeof(k.labels));
	h = idtable_hash(h, &k.tid, sizeof(k.tid));

	if (idtable_reserve(&f->hidx))
		return NULL;
	sl = idtable_probe(&f->hidx, h, head_eq, f, &k, &found);
	if (found)
		return f->heads[sl->id1 - 1].text;
	if (array_grow((void **)&f->heads, &f->cap_heads, f->n_heads + 1, sizeof(*f->heads)))
		return NULL;
	folded_frame_name(s->comm, true, comm, sizeof(comm));
	if (!f->opts->per_thread) {
		k.text = strdup(comm);
	} else {
		folded_frame_name(s->thread, true, thread, sizeof(thread));
		if (asprintf(&k.text, "%s;%s-%u", comm, thread, s->tid) < 0)
			k.text = NULL;
	}
	if (k.text && *labels) {
		/* the set has no ';' of its own (labelset.h): one frame */
		snprintf(set, sizeof(set), "[labels %s]", labels);
		folded_frame_name(set, false, frame, sizeof(frame));
		text = k.text;
		if (asprintf(&k.text, "%s;%s", text, frame) < 0)
			k.text = NULL;
		free(text);
	}
	if (!k.text)
		return NULL;
	f->heads[f->n_heads] = k;
	idtable_fill(&f->hidx, sl, h, (uint32_t)f->n_heads++);
	return k.text;
}

static int write_line(const struct fold *f, const struct line *l, FILE *out)
{
	const struct prof_sample *s = l->s;
	int r = fputs(l->head, out);

	for (uint32_t k = 0; r >= 0 && k < s->nframes; k++) {
		const struct fname *n = &f->names[s->frames[k]];

		r = putc(';', out);
		if (r >= 0)
			r = fputs(n->s, out);
		if (r >= 0 && *n->suffix)
			r = fputs(n->suffix, out);
	}
	if (r < 0 || fprintf(out, " %llu\n", (unsigned long long)l->count) < 0)
		return -EIO;
	return 0;
}

int folded_write(const struct profile *p, const struct folded_opts *opts, FILE *out)
{
	size_t n = profile__n_samples(p), nf = profile__n_frames(p), i, j, m = 0;
	struct line *lines = calloc(n ? n : 1, sizeof(*lines));
	struct fold f = {.p = p, .opts = opts, .names = calloc(nf ? nf : 1, sizeof(*f.names))};
	int err = 0;

	if (!lines || !f.names) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nf && !err; i++)
		err = frame_name(profile__frame(p, (uint32_t)i), opts, &f.names[i]);
	for (i = 0; i < n && !err; i++) {
		lines[i].s = profile__sample(p, i);
		lines[i].count = lines[i].s->count;
		lines[i].head = head_of(&f, lines[i].s);
		if (!lines[i].head)
			err = -ENOMEM;
	}
	if (err)
		goto out;
	qsort_r(lines, n, sizeof(*lines), cmp_line, &f);
	/*
	 * Different pids or stack ids can fold to the same text: merge them. Then sort again on
	 * the whole printed line, "stack count": a frame with a space in its name ("f (a.c:3)")
	 * would otherwise put "s;f 9" after "s;f (a.c:3) 1", which sort(1) calls disorder.
	 */
	for (i = 0; i < n; i = j) {
		uint64_t count = lines[i].count;

		for (j = i + 1; j < n && cmp_lines(&f, &lines[j], &lines[i]) == 0; j++)
			count += lines[j].count;
		if (!count)
			continue;
		lines[m] = lines[i];
		lines[m].count = count;
		m++;
	}
	f.counted = true;
	qsort_r(lines, m, sizeof(*lines), cmp_line, &f);
	for (i = 0; i < m && !err; i++)
		err = write_line(&f, &lines[i], out);
	if (!err && fflush(out))
		err = -EIO;
out:
	for (i = 0; i < f.n_heads; i++)
		free(f.heads[i].text);
	for (i = 0; f.names && i < nf; i++)
		free(f.names[i].own);
	free(f.heads);
	idtable_free(&f.hidx);
	free(f.names);
	free(lines);
	return err;
}
