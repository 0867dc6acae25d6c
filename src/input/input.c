// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "input/input.h"
#include "input/folded_read.h"
#include "input/json_read.h"
#include "input/pprof_read.h"
#include "util/safe_file.h"

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
	if (count > INPUT_MAX_COUNT)
		return input_fail(err, "%s: count %llu is more than 2^63-1", where,
				  (unsigned long long)count);
	if (count > INPUT_MAX_COUNT - profile__total(p))
		return input_fail(err, "%s: the counts add up to more than 2^63-1", where);
	return profile__add(p, pid, tid, comm, thread, frames, nframes, count);
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

/* UTF-8 text without NUL or control bytes (but tab, CR, LF): a folded file. */
static bool is_text(const unsigned char *d, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = d[i];
		size_t more = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;

		if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
			return false;
		if (c < 0x80)
			continue;
		if (!more || c > 0xf4 || len - i - 1 < more)
			return false;
		for (; more; more--)
			if ((d[++i] & 0xc0) != 0x80)
				return false;
	}
	return true;
}

int input_read_mem(const void *data, size_t len, struct profile **out, struct input_info *info,
		   struct input_error *err)
{
	const unsigned char *d = data;
	unsigned char *inflated = NULL;
	struct profile *p = NULL;
	size_t i;
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
	for (i = 0; i < len && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t' || d[i] == '\r'); i++)
		;
	if (i < len && d[i] == '{') {
		info->format = INPUT_JSON;
		ret = json_read((const char *)d, len, p, info, err);
	} else if (is_text(d, len)) {
		info->format = INPUT_FOLDED;
		ret = folded_read((const char *)d, len, p, info, err);
	} else {
		info->format = INPUT_PPROF;
		ret = pprof_read(d, len, p, info, err);
	}
	if (!ret && !info->value[0])
		snprintf(info->value, sizeof(info->value), "samples");
out:
	free(inflated);
	if (ret) {
		if (ret == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		profile__free(p);
		return ret;
	}
	*out = p;
	return 0;
}

int input_read_file(const char *path, struct profile **out, struct input_info *info,
		    struct input_error *err)
{
	struct stat st;
	size_t done = 0;
	char *buf = NULL;
	int fd, ret;

	*out = NULL;
	err->msg[0] = '\0';
	fd = safe_open(path, INPUT_MAX_FILE, &st);
	if (fd < 0) {
		if (fd == -EFBIG)
			return input_fail(err, "larger than %llu MiB", INPUT_MAX_FILE >> 20);
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-fd));
		return fd;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + done, (size_t)st.st_size - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			snprintf(err->msg, sizeof(err->msg), "read: %s", strerror(-ret));
			goto out;
		}
		done += (size_t)r;
	}
	ret = input_read_mem(buf, done, out, info, err);
out:
	free(buf);
	close(fd);
	return ret;
}
