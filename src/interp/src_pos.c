// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "interp/src_pos.h"
#include "util/safe_file.h"

/* files whose line starts are kept */
#define KEPT 8

struct kept {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	uint32_t *starts; /* line starts, UTF-16 positions */
	size_t n;
	uint64_t total; /* the file's UTF-16 units */
	uint64_t used;	/* the last lookup's tick: the least recent goes first */
};

static struct kept kept[KEPT];
static uint64_t tick;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* UTF-16 units of the UTF-8 sequence led by byte b: 2 for 4-byte sequences, 0 for the
 * continuation bytes, 1 otherwise (invalid bytes too: V8 decodes them as U+FFFD) */
static unsigned int units(unsigned char b)
{
	if ((b & 0xc0) == 0x80)
		return 0;
	return b >= 0xf0 ? 2 : 1;
}

size_t src_pos_starts(const unsigned char *text, size_t len, uint32_t *starts, size_t max)
{
	uint32_t pos = 0;
	size_t n = 0;

	if (!max)
		return 0;
	starts[n++] = 0;
	for (size_t i = 0; i < len; i++) {
		pos += units(text[i]);
		if (text[i] == '\n') {
			if (n == max)
				break;
			starts[n++] = pos;
		}
	}
	return n;
}

static void drop(struct kept *k)
{
	free(k->path);
	free(k->starts);
	memset(k, 0, sizeof(*k));
}

void src_pos_reset(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < KEPT; i++)
		drop(&kept[i]);
	pthread_mutex_unlock(&lock);
}

/* Read the file open on fd (st its status) into k's line starts. 0 or -errno. */
static int load(struct kept *k, int fd, const struct stat *st)
{
	size_t len = (size_t)st->st_size, got = 0, max;
	unsigned char *text = malloc(len ? len : 1);
	uint32_t *starts;
	ssize_t r;

	if (!text)
		return -ENOMEM;
	while (got < len) {
		r = read(fd, text + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	/* a line per byte at most: counted first, then kept */
	max = 1;
	for (size_t i = 0; i < got; i++)
		max += text[i] == '\n';
	starts = malloc(max * sizeof(*starts));
	if (!starts) {
		free(text);
		return -ENOMEM;
	}
	k->n = src_pos_starts(text, got, starts, max);
	k->starts = starts;
	k->total = 0;
	for (size_t i = 0; i < got; i++)
		k->total += units(text[i]);
	free(text);
	return 0;
}

/* The kept entry of path as it is now (st), loaded when new. NULL with *err set. */
static struct kept *find(const char *path, int *err)
{
	struct kept *k = NULL, *old = &kept[0];
	struct stat st;
	int fd;

	fd = safe_open(path, SRC_POS_MAX_FILE, &st);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	for (int i = 0; i < KEPT; i++) {
		struct kept *c = &kept[i];

		if (c->path && !strcmp(c->path, path) && c->dev == st.st_dev &&
		    c->ino == st.st_ino && c->size == st.st_size &&
		    c->mtime.tv_sec == st.st_mtim.tv_sec &&
		    c->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			k = c;
			break;
		}
		if (c->used < old->used)
			old = c;
	}
	if (!k) {
		k = old;
		drop(k);
		k->path = strdup(path);
		*err = k->path ? load(k, fd, &st) : -ENOMEM;
		if (*err) {
			drop(k);
			close(fd);
			return NULL;
		}
		k->dev = st.st_dev;
		k->ino = st.st_ino;
		k->size = st.st_size;
		k->mtime = st.st_mtim;
	}
	close(fd);
	k->used = ++tick;
	return k;
}

int src_pos_line(const char *path, uint32_t pos, int *line, int *col)
{
	struct kept *k;
	size_t lo, hi;
	int err = 0;

	*line = *col = 0;
	if (!path || path[0] != '/')
		return -ENOENT;
	pthread_mutex_lock(&lock);
	k = find(path, &err);
	if (k) {
		/* the last line start <= pos */
		lo = 0;
		hi = k->n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (k->starts[mid] <= pos)
				lo = mid;
			else
				hi = mid;
		}
		if (pos > k->total) {
			err = -ERANGE;
		} else {
			*line = (int)lo + 1;
			*col = (int)(pos - k->starts[lo]) + 1;
		}
	}
	pthread_mutex_unlock(&lock);
	return err;
}
