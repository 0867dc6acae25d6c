// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/folded.h"

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
 */
struct line {
	const struct prof_sample *s;
	char *head;
	uint64_t count;
	char digits[24]; /* " COUNT" once merged, "" before */
};

struct fold {
	const struct profile *p;
	char **names; /* frame id -> folded name */
	bool counted; /* compare with " COUNT" */
};

/* One printed line, read a byte at a time. */
struct cursor {
	const struct fold *f;
	const struct line *l;
	const char *p;	/* in the current piece */
	uint32_t frame; /* next frame */
	int piece;	/* 0 head, 1 frames, 2 digits, 3 end */
};

static void cursor_init(struct cursor *c, const struct fold *f, const struct line *l)
{
	*c = (struct cursor){.f = f, .l = l, .p = l->head};
}

/* The next byte, or -1 at the end of the line. */
static int cursor_next(struct cursor *c)
{
	for (;;) {
		if (c->piece == 3)
			return -1;
		if (*c->p)
			return (unsigned char)*c->p++;
		if (c->piece == 0 || c->piece == 1) {
			if (c->frame < c->l->s->nframes) {
				/* ";" then the name: the separator is the piece's first byte */
				c->p = c->f->names[c->l->s->frames[c->frame++]];
				c->piece = 1;
				return ';';
			}
			c->piece = 2;
			c->p = c->f->counted ? c->l->digits : "";
			continue;
		}
		c->piece = 3;
	}
}

/* From the ';' before frame k (k == nframes: from the count) to the end of the line. */
static void cursor_at_frame(struct cursor *c, const struct fold *f, const struct line *l,
			    uint32_t k)
{
	*c = (struct cursor){.f = f, .l = l, .p = "", .frame = k, .piece = 1};
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

	if (strcmp(a->head, b->head)) {
		cursor_init(&x, f, a);
		cursor_init(&y, f, b);
		return cmp_from(&x, &y);
	}
	while (k < sa->nframes && k < sb->nframes &&
	       (sa->frames[k] == sb->frames[k] ||
		!strcmp(f->names[sa->frames[k]], f->names[sb->frames[k]])))
		k++;
	cursor_at_frame(&x, f, a, k);
	cursor_at_frame(&y, f, b, k);
	return cmp_from(&x, &y);
}

static int cmp_line(const void *a, const void *b, void *ctx)
{
	return cmp_lines(ctx, a, b);
}

static char *frame_name(const struct prof_frame *f, const struct folded_opts *opts)
{
	char name[1024];

	if (opts->lines && f->file && f->line) {
		const char *base = strrchr(f->file, '/');
		char full[1024];

		snprintf(full, sizeof(full), "%s (%s:%u)", f->name, base ? base + 1 : f->file,
			 f->line);
		folded_frame_name(full, false, name, sizeof(name) - 4);
	} else {
		folded_frame_name(f->name, false, name, sizeof(name) - 4);
	}
	if (f->kind == FRAME_KERNEL)
		strcat(name, "_[k]");
	else if (f->inlined)
		strcat(name, "_[i]");
	return strdup(name);
}

static char *head_of(const struct prof_sample *s, const struct folded_opts *opts)
{
	char comm[1024], thread[1024];
	char *h;

	folded_frame_name(s->comm, true, comm, sizeof(comm));
	if (!opts->per_thread)
		return strdup(comm);
	folded_frame_name(s->thread, true, thread, sizeof(thread));
	return asprintf(&h, "%s;%s-%u", comm, thread, s->tid) < 0 ? NULL : h;
}

int folded_write(const struct profile *p, const struct folded_opts *opts, FILE *out)
{
	size_t n = profile__n_samples(p), nf = profile__n_frames(p), i, j, m = 0;
	struct line *lines = calloc(n ? n : 1, sizeof(*lines));
	struct fold f = {.p = p, .names = calloc(nf ? nf : 1, sizeof(char *))};
	int err = 0;

	if (!lines || !f.names) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nf; i++) {
		f.names[i] = frame_name(profile__frame(p, (uint32_t)i), opts);
		if (!f.names[i]) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		lines[i].s = profile__sample(p, i);
		lines[i].count = lines[i].s->count;
		lines[i].head = head_of(lines[i].s, opts);
		if (!lines[i].head) {
			err = -ENOMEM;
			goto out;
		}
	}
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
		if (m != i) {
			char *h = lines[m].head;

			lines[m].head = lines[i].head;
			lines[i].head = h;
			lines[m].s = lines[i].s;
		}
		lines[m].count = count;
		snprintf(lines[m].digits, sizeof(lines[m].digits), " %llu",
			 (unsigned long long)count);
		m++;
	}
	f.counted = true;
	qsort_r(lines, m, sizeof(*lines), cmp_line, &f);
	for (i = 0; i < m; i++) {
		const struct prof_sample *s = lines[i].s;
		int r = fputs(lines[i].head, out);

		for (uint32_t k = 0; r >= 0 && k < s->nframes; k++) {
			r = putc(';', out);
			if (r >= 0)
				r = fputs(f.names[s->frames[k]], out);
		}
		if (r < 0 || fprintf(out, "%s\n", lines[i].digits) < 0) {
			err = -EIO;
			goto out;
		}
	}
	if (fflush(out))
		err = -EIO;
out:
	for (i = 0; lines && i < n; i++)
		free(lines[i].head);
	for (i = 0; f.names && i < nf; i++)
		free(f.names[i]);
	free(f.names);
	free(lines);
	return err;
}
