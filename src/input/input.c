// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/stat.h>
#include "input/input.h"
#include "input/folded_read.h"
#include "input/json_read.h"
#include "input/pprof_read.h"
#include "util/safe_file.h"

/* What is read of a file to tell its format. */
#define HEAD_BYTES (64u << 10)

int input_fail(struct input_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int input_add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm, const char *thread,
	      const uint32_t *frames, uint32_t nframes, uint64_t count, const char *where,
	      struct input_error *err)
{
	return input_add_labeled(p, pid, tid, comm, thread, "", frames, nframes, count, where, err);
}

int input_add_labeled(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		      const char *thread, const char *labels, const uint32_t *frames,
		      uint32_t nframes, uint64_t count, const char *where, struct input_error *err)
{
	if (count > INPUT_MAX_COUNT)
		return input_fail(err, "%s: count %llu is more than 2^63-1", where,
				  (unsigned long long)count);
	if (count > INPUT_MAX_COUNT - profile__total(p))
		return input_fail(err, "%s: the counts add up to more than 2^63-1", where);
	return profile__add_labeled(p, pid, tid, comm, thread, labels, frames, nframes, count);
}

void input_frame_mark(const char *name, size_t *len, bool *kernel, bool *inlined)
{
	*kernel = *inlined = false;
	if (*len < 5 || name[*len - 4] != '_' || name[*len - 3] != '[' || name[*len - 1] != ']')
		return;
	switch (name[*len - 2]) {
	case 'k':
		*kernel = true;
		break;
	case 'i':
		*inlined = true;
		break;
	case 'j':
		break;
	default:
		return;
	}
	*len -= 4;
}

/* Inflate one gzip stream (RFC 1952) into a new buffer of at most INPUT_MAX_INFLATED bytes. */
static int gunzip(const unsigned char *in, size_t len, unsigned char **out, size_t *out_len,
		  struct input_error *err)
{
	z_stream z = {0};
	size_t cap = 0, n = 0;
	unsigned char *buf = NULL, *nb;
	int rc, ret = 0;

	if (len > INPUT_MAX_FILE)
		return input_fail(err, "larger than %llu MiB", INPUT_MAX_FILE >> 20);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	for (;;) {
		if (n == cap) {
			if (cap >= INPUT_MAX_INFLATED) {
				ret = input_fail(err, "more than %llu MiB once inflated",
						 INPUT_MAX_INFLATED >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : len * 4 + 4096;
			if (cap > INPUT_MAX_INFLATED)
				cap = INPUT_MAX_INFLATED;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n);
		rc = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if ((rc == Z_OK || rc == Z_BUF_ERROR) && z.avail_out && !z.avail_in) {
			ret = input_fail(err, "gzip stream truncated");
			goto out;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			ret = input_fail(err, "gzip data corrupt (%s)",
					 z.msg ? z.msg : "inflate failed");
			goto out;
		}
	}
	*out = buf;
	*out_len = n;
	buf = NULL;
out:
	inflateEnd(&z);
	free(buf);
	return ret;
}

/* The first character that is not white space opens a JSON object. */
static bool starts_object(const unsigned char *d, size_t len)
{
	size_t i = 0;

	while (i < len && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r'))
		i++;
	return i < len && d[i] == '{';
}

/* What both readers do at the end: the value's default name, the profile handed out or freed. */
static int finish(int ret, struct profile *p, struct profile **out, struct input_info *info,
		  struct input_error *err)
{
	if (!ret && !info->value[0])
		snprintf(info->value, sizeof(info->value), "samples");
	if (ret) {
		if (ret == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		profile__free(p);
		return ret;
	}
	/* the frames' index and the arrays' slack: the writers only read the profile */
	profile__trim(p);
	*out = p;
	return 0;
}

int input_read_mem(const void *data, size_t len, struct profile **out, struct input_info *info,
		   struct input_error *err)
{
	const unsigned char *d = data;
	unsigned char *inflated = NULL;
	struct profile *p = NULL;
	int ret;

	memset(info, 0, sizeof(*info));
	err->msg[0] = '\0';
	*out = NULL;
	if (!len)
		return input_fail(err, "empty file");
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		ret = gunzip(d, len, &inflated, &len, err);
		if (ret)
			return ret;
		d = inflated;
		if (!len) {
			ret = input_fail(err, "empty once inflated");
			goto out;
		}
	}
	p = profile__new();
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	if (starts_object(d, len)) {
		info->format = INPUT_JSON;
		ret = json_read((const char *)d, len, p, info, err);
	} else if (folded_is_text(d, len, true)) {
		info->format = INPUT_FOLDED;
		ret = folded_read((const char *)d, len, p, info, err);
	} else {
		info->format = INPUT_PPROF;
		ret = pprof_read(d, len, p, info, err);
	}
out:
	free(inflated);
	return finish(ret, p, out, info, err);
}

/* A file read through zlib (gzip inflated, anything else as it is), within the caps. */
struct source {
	gzFile gz;
	uint64_t total; /* bytes delivered */
	struct input_error *err;
	const unsigned char *head; /* served first: what was read to tell the format */
	size_t head_len, head_pos;
	size_t file_size; /* the file's size: what a file not compressed holds */
};

/* Up to n bytes into buf: how many, 0 at the end, or a negative errno (-EINVAL: err set). */
static long source_read(struct source *s, void *buf, size_t n)
{
	const char *msg;
	int r, errnum;

	if (s->head_pos < s->head_len) {
		if (n > s->head_len - s->head_pos)
			n = s->head_len - s->head_pos;
		memcpy(buf, s->head + s->head_pos, n);
		s->head_pos += n;
		return (long)n;
	}
	r = gzread(s->gz, buf, (unsigned int)(n < (1u << 30) ? n : (1u << 30)));
	msg = gzerror(s->gz, &errnum);
	if (r < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
		if (errnum == Z_ERRNO)
			return input_fail(s->err, "read: %s", strerror(errno));
		if (errnum == Z_BUF_ERROR)
			return input_fail(s->err, "gzip stream truncated");
		if (errnum == Z_MEM_ERROR)
			return -ENOMEM;
		return input_fail(s->err, "gzip data corrupt (%s)", msg ? msg : "inflate failed");
	}
	s->total += (unsigned int)r;
	if (s->total > INPUT_MAX_INFLATED)
		return input_fail(s->err, "more than %llu MiB once inflated",
				  INPUT_MAX_INFLATED >> 20);
	return r;
}

#define CHUNK (256u << 10)

/* Folded text, one chunk at a time: the file is never held whole. */
static int read_folded(struct source *s, struct profile *p, struct input_error *err)
{
	struct folded_state st;
	char *buf = malloc(CHUNK);
	long r;
	int ret = buf ? folded_begin(&st, p, err) : -ENOMEM;

	if (ret) {
		free(buf);
		return ret;
	}
	while (!ret && (r = source_read(s, buf, CHUNK)) != 0)
		ret = r < 0 ? (int)r : folded_feed(&st, buf, (size_t)r);
	if (ret)
		st.len = 0; /* no last line to read */
	ret = ret ?: folded_end(&st);
	if (st.stack)
		folded_end(&st);
	free(buf);
	return ret;
}

/* The rest of the file after the head, into one buffer (JSON: read in place). */
static int read_all(struct source *s, unsigned char **out, size_t *out_len)
{
	/* a file not compressed: its size (and a chunk to see its end); else grown as it comes */
	size_t cap = gzdirect(s->gz) ? s->file_size + CHUNK : s->head_len * 2 + CHUNK, len = 0;
	unsigned char *buf = malloc(cap), *nb;
	long r;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - len < CHUNK) {
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		r = source_read(s, buf + len, cap - len);
		if (r <= 0) {
			ret = (int)r;
			break;
		}
		len += (size_t)r;
	}
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

static long pprof_source_read(void *ctx, void *buf, size_t n)
{
	return source_read(ctx, buf, n);
}

/* The second pass over the file: from its start again, the head included. */
static int pprof_source_rewind(void *ctx)
{
	struct source *s = ctx;

	if (gzrewind(s->gz))
		return input_fail(s->err, "cannot read the file a second time");
	s->head_pos = s->head_len;
	s->total = 0;
	return 0;
}

/* pprof: read twice, never held whole (pprof_read_src). */
static int read_pprof(struct source *s, struct profile *p, struct input_info *info,
		      struct input_error *err)
{
	struct pprof_src src = {.read = pprof_source_read, .rewind = pprof_source_rewind, .ctx = s};

	return pprof_read_src(&src, p, info, err);
}

/* JSON: the text is walked in place, never made into a tree (json_read.c). */
static int read_json(struct source *s, struct profile *p, struct input_info *info,
		     struct input_error *err)
{
	unsigned char *buf;
	size_t len;
	int ret = read_all(s, &buf, &len);

	if (ret)
		return ret;
	ret = json_read((const char *)buf, len, p, info, err);
	free(buf);
	return ret;
}

/* The head may end inside a UTF-8 sequence: what comes next completes it. */
static bool head_is_text(const unsigned char *d, size_t len, bool whole)
{
	size_t k = len;

	if (!whole) {
		while (k && len - k < 3 && (d[k - 1] & 0xc0) == 0x80)
			k--;
		if (k && d[k - 1] >= 0xc0)
			len = k - 1;
	}
	return folded_is_text(d, len, true);
}

int input_read_file(const char *path, struct profile **out, struct input_info *info,
		    struct input_error *err)
{
	struct source s = {.err = err};
	unsigned char *head = NULL;
	struct profile *p = NULL;
	struct stat st;
	size_t n = 0;
	long r;
	int fd, ret;

	*out = NULL;
	memset(info, 0, sizeof(*info));
	err->msg[0] = '\0';
	fd = safe_open(path, INPUT_MAX_FILE, &st);
	if (fd < 0) {
		if (fd == -EFBIG)
			return input_fail(err, "larger than %llu MiB", INPUT_MAX_FILE >> 20);
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-fd));
		return fd;
	}
	if (!st.st_size) {
		close(fd);
		return input_fail(err, "empty file");
	}
	s.gz = gzdopen(fd, "rb");
	head = malloc(HEAD_BYTES);
	p = profile__new();
	if (!s.gz || !head || !p) {
		if (!s.gz)
			close(fd);
		ret = -ENOMEM;
		goto out;
	}
	gzbuffer(s.gz, CHUNK);
	s.file_size = (size_t)st.st_size;
	/* the first bytes tell the format */
	while (n < HEAD_BYTES && (r = source_read(&s, head + n, HEAD_BYTES - n)) != 0) {
		if (r < 0) {
			ret = (int)r;
			goto out;
		}
		n += (size_t)r;
	}
	/* served again first to the format's reader */
	s.head = head;
	s.head_len = n;
	if (!s.head_len) {
		ret = input_fail(err, "empty once inflated");
		goto out;
	}
	if (starts_object(head, s.head_len)) {
		info->format = INPUT_JSON;
		ret = read_json(&s, p, info, err);
	} else if (head_is_text(head, s.head_len, s.head_len < HEAD_BYTES)) {
		info->format = INPUT_FOLDED;
		ret = read_folded(&s, p, err);
	} else {
		info->format = INPUT_PPROF;
		ret = read_pprof(&s, p, info, err);
	}
out:
	if (s.gz)
		gzclose(s.gz);
	free(head);
	return finish(ret, p, out, info, err);
}
