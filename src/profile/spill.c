// SPDX-License-Identifier: GPL-2.0
/*
 * The profile's data on disk (spill.h).
 *
 * A run is a file of records, each coded against the one before it (the runs are sorted, so
 * neighbours share their names and most of their stack):
 *
 *   head   varint: (frames shared with the previous record << 3) | 4 if labels follow |
 *          2 if a thread name follows | 1 if a process name follows
 *   [comm] varint length, bytes        (when it differs from the previous record's)
 *   [thread] varint length, bytes
 *   [labels] varint length, bytes      (util/labelset.h)
 *   varint: frames that follow, then each frame id as a varint
 *   varint: count
 *
 * A stack of 40 frames takes 15-25 bytes this way, against 300 or so in the profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "profile/spill.h"
#include "util/grow.h"

#define IO_BUF	   (64u << 10)
#define MAX_NAME   4096u      /* longer names are not written by cpuprof */
#define MAX_FRAMES (1u << 20) /* nor longer stacks */

struct run {
	int fd;
	uint64_t bytes, records;
};

struct sample_runs {
	char *dir;
	struct run *runs; /* oldest (largest) first */
	size_t n, cap;
};

int sample_runs__cmp(const struct run_rec *x, const struct run_rec *y)
{
	int c = x->comm == y->comm ? 0 : strcmp(x->comm, y->comm);
	uint32_t n = x->n < y->n ? x->n : y->n;

	if (c)
		return c;
	c = x->thread == y->thread ? 0 : strcmp(x->thread, y->thread);
	if (c)
		return c;
	c = x->labels == y->labels ? 0 : strcmp(x->labels, y->labels);
	if (c)
		return c;
	for (uint32_t i = 0; i < n; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* ---- files ---------------------------------------------------------------------------- */

static int tmp_open(const char *dir)
{
	char path[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	/* file systems without O_TMPFILE: a named file, gone from the directory at once */
	if (snprintf(path, sizeof(path), "%s/.cpuprof-runs.XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

struct writer {
	int fd, err;
	uint8_t *buf;
	size_t used;
	uint64_t bytes, records;
	char *comm, *thread, *labels; /* the previous record's, or NULL */
	uint32_t *prev;
	size_t n_prev, cap_prev;
};

static int flush(struct writer *w)
{
	size_t off = 0;

	while (!w->err && off < w->used) {
		ssize_t k = write(w->fd, w->buf + off, w->used - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			w->err = k < 0 ? -errno : -EIO;
		else
			off += (size_t)k;
	}
	w->bytes += off;
	w->used = 0;
	return w->err;
}

static void put_bytes(struct writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n && !w->err) {
		size_t k = IO_BUF - w->used < n ? IO_BUF - w->used : n;

		memcpy(w->buf + w->used, b, k);
		w->used += k;
		b += k;
		n -= k;
		if (w->used == IO_BUF)
			flush(w);
	}
}

static void put_varint(struct writer *w, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_bytes(w, b, n);
}

static int writer_open(struct writer *w, const char *dir)
{
	*w = (struct writer){.fd = -1};
	w->buf = malloc(IO_BUF);
	if (!w->buf)
		return -ENOMEM;
	w->fd = tmp_open(dir);
	return w->fd < 0 ? w->fd : 0;
}

/* The writer's file on success (its fd, caller's), else closed; its buffers freed. */
static void writer_end(struct writer *w, bool keep)
{
	if (!keep && w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w->comm);
	free(w->thread);
	free(w->labels);
	free(w->prev);
	w->buf = NULL;
	w->comm = w->thread = w->labels = NULL;
	w->prev = NULL;
}

/* Replace *slot with a copy of s: -ENOMEM in w->err on failure. */
static void remember(struct writer *w, char **slot, const char *s)
{
	char *c = strdup(s);

	if (!c) {
		w->err = -ENOMEM;
		return;
	}
	free(*slot);
	*slot = c;
}

static void put_rec(struct writer *w, const struct run_rec *r)
{
	bool comm = !w->comm || strcmp(w->comm, r->comm);
	bool thread = !w->thread || strcmp(w->thread, r->thread);
	bool labels = !w->labels || strcmp(w->labels, r->labels);
	size_t shared = 0, lc = strlen(r->comm), lt = strlen(r->thread), ll = strlen(r->labels);

	if (w->err)
		return;
	if (lc > MAX_NAME || lt > MAX_NAME || ll > MAX_NAME || r->n > MAX_FRAMES) {
		w->err = -E2BIG;
		return;
	}
	while (shared < w->n_prev && shared < r->n && w->prev[shared] == r->frames[shared])
		shared++;
	put_varint(w, (uint64_t)shared << 3 | (uint64_t)labels << 2 | (uint64_t)thread << 1 | comm);
	if (comm) {
		put_varint(w, lc);
		put_bytes(w, r->comm, lc);
		remember(w, &w->comm, r->comm);
	}
	if (thread) {
		put_varint(w, lt);
		put_bytes(w, r->thread, lt);
		remember(w, &w->thread, r->thread);
	}
	if (labels) {
		put_varint(w, ll);
		put_bytes(w, r->labels, ll);
		remember(w, &w->labels, r->labels);
	}
	put_varint(w, r->n - shared);
	for (uint32_t i = (uint32_t)shared; i < r->n; i++)
		put_varint(w, r->frames[i]);
	put_varint(w, r->count);
	if (!w->err &&
	    array_grow((void **)&w->prev, &w->cap_prev, r->n ? r->n : 1, sizeof(*w->prev)))
		w->err = -ENOMEM;
	if (!w->err && r->n)
		memcpy(w->prev, r->frames, r->n * sizeof(*w->prev));
	w->n_prev = r->n;
	w->records++;
}

/* ---- reading -------------------------------------------------------------------------- */

struct reader {
	int fd;
	uint64_t off, end; /* next byte of the file to read; its size */
	uint8_t *buf;
	size_t pos, len;
	struct run_rec rec; /* the current record */
	char *comm, *thread, *labels;
	uint32_t *frames;
	size_t cap_frames;
	bool done;
};

/* The next byte, or -1 at the end of the run (-2 on a read error). */
static int get_byte(struct reader *r)
{
	if (r->pos == r->len) {
		size_t want = r->end - r->off < IO_BUF ? (size_t)(r->end - r->off) : IO_BUF;
		ssize_t k;

		if (!want)
			return -1;
		do
			k = pread(r->fd, r->buf, want, (off_t)r->off);
		while (k < 0 && errno == EINTR);
		if (k <= 0)
			return -2;
		r->off += (uint64_t)k;
		r->pos = 0;
		r->len = (size_t)k;
	}
	return r->buf[r->pos++];
}

/* 0, or -EIO when the bytes end inside the value or it is longer than 64 bits. */
static int get_varint(struct reader *r, uint64_t *v)
{
	*v = 0;
	for (unsigned int shift = 0; shift < 64; shift += 7) {
		int b = get_byte(r);

		if (b < 0)
			return -EIO;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -EIO;
}

static int get_name(struct reader *r, char *s)
{
	uint64_t len;
	int err = get_varint(r, &len);

	if (err)
		return err;
	if (len > MAX_NAME)
		return -EIO;
	for (uint64_t i = 0; i < len; i++) {
		int b = get_byte(r);

		if (b <= 0) /* the end, an error, or a NUL inside the name */
			return -EIO;
		s[i] = (char)b;
	}
	s[len] = '\0';
	return 0;
}

/* The next record into r->rec, or r->done at the end. 0 or -EIO, -ENOMEM. */
static int next_rec(struct reader *r)
{
	uint64_t head, more, v;
	int b = get_byte(r), err;

	if (b == -1) {
		r->done = true;
		return 0;
	}
	if (b < 0)
		return -EIO;
	r->pos--; /* the head's first byte: read it again as a varint */
	err = get_varint(r, &head);
	if (!err && (head & 1))
		err = get_name(r, r->comm);
	if (!err && (head & 2))
		err = get_name(r, r->thread);
	if (!err && (head & 4))
		err = get_name(r, r->labels);
	if (!err)
		err = get_varint(r, &more);
	if (err)
		return err;
	/* the first record of a run names both and shares nothing */
	if ((!r->rec.comm && !(head & 1)) || (!r->rec.thread && !(head & 2)) ||
	    (!r->rec.labels && !(head & 4)) || head >> 3 > r->rec.n ||
	    more > MAX_FRAMES - (head >> 3))
		return -EIO;
	r->rec.n = (uint32_t)(head >> 3) + (uint32_t)more;
	if (array_grow((void **)&r->frames, &r->cap_frames, r->rec.n ? r->rec.n : 1,
		       sizeof(*r->frames)))
		return -ENOMEM;
	for (uint32_t i = (uint32_t)(head >> 3); i < r->rec.n; i++) {
		err = get_varint(r, &v);
		if (err || v > UINT32_MAX)
			return -EIO;
		r->frames[i] = (uint32_t)v;
	}
	err = get_varint(r, &r->rec.count);
	if (err)
		return err;
	r->rec.comm = r->comm;
	r->rec.thread = r->thread;
	r->rec.labels = r->labels;
	r->rec.frames = r->frames;
	return 0;
}

static void reader_end(struct reader *r)
{
	free(r->buf);
	free(r->comm);
	free(r->thread);
	free(r->labels);
	free(r->frames);
	r->buf = NULL;
	r->comm = r->thread = r->labels = NULL;
	r->frames = NULL;
}

/* Open a reader on run (its first record read). 0 or a negative errno. */
static int reader_open(struct reader *r, const struct run *run)
{
	*r = (struct reader){.fd = run->fd, .end = run->bytes};
	r->buf = malloc(IO_BUF);
	r->comm = malloc(MAX_NAME + 1);
	r->thread = malloc(MAX_NAME + 1);
	r->labels = malloc(MAX_NAME + 1);
	if (!r->buf || !r->comm || !r->thread || !r->labels)
		return -ENOMEM;
	return next_rec(r);
}

/*
 * The k runs merged in key order, equal keys summed, each record to fn (or, fn NULL, to w).
 * 0, fn's nonzero value, or a negative errno.
 */
static int merge(const struct run *runs, size_t k, struct writer *w,
		 int (*fn)(void *ctx, const struct run_rec *r), void *ctx)
{
	struct reader *rd = calloc(k ? k : 1, sizeof(*rd));
	int err = rd ? 0 : -ENOMEM;
	size_t opened = 0;

	for (; !err && opened < k; opened++)
		err = reader_open(&rd[opened], &runs[opened]);
	while (!err) {
		struct run_rec out;
		size_t min = k;

		for (size_t i = 0; i < k; i++)
			if (!rd[i].done &&
			    (min == k || sample_runs__cmp(&rd[i].rec, &rd[min].rec) < 0))
				min = i;
		if (min == k)
			break;
		out = rd[min].rec;
		for (size_t i = min + 1; i < k; i++)
			if (!rd[i].done && !sample_runs__cmp(&rd[i].rec, &out))
				out.count += rd[i].rec.count;
		if (fn) {
			err = fn(ctx, &out);
		} else {
			put_rec(w, &out);
			err = w->err;
		}
		/* the readers of the key move on only now: out points into rd[min] */
		for (size_t i = k; !err && i-- > min;)
			if (!rd[i].done &&
			    (i == min || !sample_runs__cmp(&rd[i].rec, &rd[min].rec)))
				err = next_rec(&rd[i]);
	}
	for (size_t i = 0; rd && i < opened; i++)
		reader_end(&rd[i]);
	free(rd);
	return err;
}

/* ---- the set of runs -------------------------------------------------------------------- */

struct sample_runs *sample_runs__new(const char *dir)
{
	struct sample_runs *sr = calloc(1, sizeof(*sr));

	if (!sr)
		return NULL;
	sr->dir = strdup(dir && *dir ? dir : "/tmp");
	if (!sr->dir) {
		free(sr);
		return NULL;
	}
	return sr;
}

void sample_runs__free(struct sample_runs *sr)
{
	if (!sr)
		return;
	for (size_t i = 0; i < sr->n; i++)
		close(sr->runs[i].fd);
	free(sr->runs);
	free(sr->dir);
	free(sr);
}

/* The file of a finished writer as a run. */
static struct run finish(struct writer *w)
{
	struct run run = {.fd = w->fd, .bytes = w->bytes, .records = w->records};

	writer_end(w, true);
	return run;
}

/* Merge the last two runs into one while they are of similar size. */
static int compact(struct sample_runs *sr)
{
	while (sr->n >= 2 && sr->runs[sr->n - 2].bytes <= 2 * sr->runs[sr->n - 1].bytes) {
		struct writer w;
		int err = writer_open(&w, sr->dir);

		if (!err)
			err = merge(&sr->runs[sr->n - 2], 2, &w, NULL, NULL);
		if (!err)
			err = flush(&w);
		if (err) {
			writer_end(&w, false);
			return err;
		}
		close(sr->runs[sr->n - 2].fd);
		close(sr->runs[sr->n - 1].fd);
		sr->runs[sr->n - 2] = finish(&w);
		sr->n--;
	}
	return 0;
}

int sample_runs__add(struct sample_runs *sr, const struct run_rec *recs, size_t n)
{
	struct writer w;
	int err;

	if (!n)
		return 0;
	if (array_grow((void **)&sr->runs, &sr->cap, sr->n + 1, sizeof(*sr->runs)))
		return -ENOMEM;
	err = writer_open(&w, sr->dir);
	for (size_t i = 0; !err && i < n; i++) {
		put_rec(&w, &recs[i]);
		err = w.err;
	}
	if (!err)
		err = flush(&w);
	if (err) {
		writer_end(&w, false);
		return err;
	}
	sr->runs[sr->n++] = finish(&w);
	/*
	 * The new run holds the records whatever happens next: a merge that fails (a full disk)
	 * leaves the runs as they are, only more of them.
	 */
	(void)compact(sr);
	return 0;
}

int sample_runs__each(struct sample_runs *sr, int (*fn)(void *ctx, const struct run_rec *r),
		      void *ctx)
{
	return sr->n ? merge(sr->runs, sr->n, NULL, fn, ctx) : 0;
}

uint64_t sample_runs__records(const struct sample_runs *sr)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sr->n; i++)
		n += sr->runs[i].records;
	return n;
}

size_t sample_runs__n_runs(const struct sample_runs *sr)
{
	return sr->n;
}

uint64_t sample_runs__bytes(const struct sample_runs *sr)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sr->n; i++)
		n += sr->runs[i].bytes;
	return n;
}

/* ---- the frame log -------------------------------------------------------------------------
 *
 * One record per frame, in id order:
 *   varint flags: 1 named, 2 inlined, 4 module, 8 mangled, 16 file (the strings that follow)
 *   varints: kind, mapping, addr, rel, line, column, start_line
 *   strings, each a varint length and its bytes: name, then module, mangled, file if flagged
 */

#define MAX_STR (1u << 20)

struct frame_log {
	struct writer w;
	uint64_t n, good; /* records, and the bytes up to the end of the last whole one */
};

struct frame_log *frame_log__new(const char *dir)
{
	struct frame_log *fl = calloc(1, sizeof(*fl));
	int err;

	if (!fl)
		return NULL;
	err = writer_open(&fl->w, dir && *dir ? dir : "/tmp");
	if (err) {
		writer_end(&fl->w, false);
		free(fl);
		errno = -err;
		return NULL;
	}
	return fl;
}

void frame_log__free(struct frame_log *fl)
{
	if (!fl)
		return;
	writer_end(&fl->w, false);
	free(fl);
}

/*
 * A string of at most MAX_STR bytes: a longer one (a name from a planted perf map or symbol
 * table) is cut there, at the start of a UTF-8 character, rather than refused: one such name
 * must not bring every frame back to memory for the rest of the recording.
 */
static void put_str(struct writer *w, const char *s)
{
	size_t len = strnlen(s, MAX_STR + 1);

	if (len > MAX_STR)
		for (len = MAX_STR; len && ((unsigned char)s[len] & 0xc0) == 0x80; len--)
			;
	put_varint(w, len);
	put_bytes(w, s, len);
}

int frame_log__add(struct frame_log *fl, const struct log_frame *f)
{
	struct writer *w = &fl->w;

	if (w->err)
		return w->err;
	put_varint(w, (uint64_t)f->named | (uint64_t)f->inlined << 1 | (uint64_t) !!f->module << 2 |
			      (uint64_t) !!f->mangled << 3 | (uint64_t) !!f->file << 4);
	put_varint(w, f->kind);
	put_varint(w, f->mapping);
	put_varint(w, f->addr);
	put_varint(w, f->rel);
	put_varint(w, f->line);
	put_varint(w, f->column);
	put_varint(w, f->start_line);
	put_str(w, f->name);
	if (f->module)
		put_str(w, f->module);
	if (f->mangled)
		put_str(w, f->mangled);
	if (f->file)
		put_str(w, f->file);
	/* a record cut by an error is past fl->good: never read back, and nothing follows it */
	if (w->err)
		return w->err;
	fl->n++;
	fl->good = w->bytes + w->used;
	return 0;
}

/* A string into *buf (grown as needed, up to MAX_STR). 0 or -EIO, -ENOMEM. */
static int get_str(struct reader *r, char **buf, size_t *cap)
{
	uint64_t len;
	int err = get_varint(r, &len);

	if (err)
		return err;
	if (len > MAX_STR)
		return -EIO;
	if (array_grow((void **)buf, cap, len + 1, 1))
		return -ENOMEM;
	for (uint64_t i = 0; i < len; i++) {
		int b = get_byte(r);

		if (b <= 0)
			return -EIO;
		(*buf)[i] = (char)b;
	}
	(*buf)[len] = '\0';
	return 0;
}

static int get_u32(struct reader *r, uint32_t *v)
{
	uint64_t x;
	int err = get_varint(r, &x);

	if (!err && x > UINT32_MAX)
		err = -EIO;
	*v = (uint32_t)x;
	return err;
}

int frame_log__each(struct frame_log *fl, int (*fn)(void *ctx, const struct log_frame *f),
		    void *ctx)
{
	/* a failed write (now or earlier) cuts the log where the disk has it: read up to there */
	int werr = fl->w.err ? fl->w.err : flush(&fl->w);
	struct reader r = {.fd = fl->w.fd, .end = fl->good < fl->w.bytes ? fl->good : fl->w.bytes};
	char *str[4] = {NULL};
	size_t cap[4] = {0};
	int err = 0;

	r.buf = malloc(IO_BUF);
	if (!r.buf)
		err = -ENOMEM;
	for (uint64_t i = 0; !err && i < fl->n; i++) {
		struct log_frame f = {0};
		uint64_t flags;
		const char **slot[4] = {&f.name, &f.module, &f.mangled, &f.file};

		err = get_varint(&r, &flags);
		if (!err)
			err = get_u32(&r, &f.kind);
		if (!err)
			err = get_u32(&r, &f.mapping);
		if (!err)
			err = get_varint(&r, &f.addr);
		if (!err)
			err = get_varint(&r, &f.rel);
		if (!err)
			err = get_u32(&r, &f.line);
		if (!err)
			err = get_u32(&r, &f.column);
		if (!err)
			err = get_u32(&r, &f.start_line);
		/* the name always, then the strings flagged */
		for (int k = 0; k < 4 && !err; k++) {
			if (k && !(flags & (2u << k)))
				continue;
			err = get_str(&r, &str[k], &cap[k]);
			*slot[k] = str[k];
		}
		f.named = flags & 1;
		f.inlined = flags & 2;
		if (!err)
			err = fn(ctx, &f);
	}
	free(r.buf);
	for (int k = 0; k < 4; k++)
		free(str[k]);
	/* the records past the end on disk: the write's error says why they are missing */
	return err == -EIO && werr ? werr : err;
}

uint64_t frame_log__n(const struct frame_log *fl)
{
	return fl->n;
}

uint64_t frame_log__bytes(const struct frame_log *fl)
{
	return fl->good;
}
