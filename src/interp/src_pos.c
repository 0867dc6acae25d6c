// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "interp/src_pos.h"
#include "util/grow.h"
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

/*
 * Read the file open on fd (st its status; no more than its size is read, should it grow)
 * into k's line starts, a chunk at a time: the text is never kept whole. 0 or -errno.
 */
static int load(struct kept *k, int fd, const struct stat *st)
{
	unsigned char buf[1 << 16];
	size_t left = (size_t)st->st_size, cap = 0, n = 0;
	uint32_t *starts = NULL, pos = 0;
	int err = 0;

	if (array_grow((void **)&starts, &cap, 1, sizeof(*starts)))
		return -ENOMEM;
	starts[n++] = 0;
	while (left && !err) {
		ssize_t r = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		left -= (size_t)r;
		for (ssize_t i = 0; i < r && !err; i++) {
			pos += units(buf[i]);
			if (buf[i] != '\n')
				continue;
			if (n >= SRC_POS_MAX_LINES)
				err = -EFBIG;
			else if (array_grow((void **)&starts, &cap, n + 1, sizeof(*starts)))
				err = -ENOMEM;
			else
				starts[n++] = pos;
		}
	}
	if (err) {
		free(starts);
		return err;
	}
	k->starts = starts;
	k->n = n;
	k->total = pos;
	return 0;
}

bool src_pos_readable(const struct stat *st, int64_t euid)
{
	if (euid == 0 || (st->st_mode & S_IROTH))
		return true;
	return euid > 0 && (int64_t)st->st_uid == euid && (st->st_mode & S_IRUSR);
}

/* path (absolute) opened in who's root: the descriptor or -errno (see src_pos_line) */
static int open_in(const struct src_pos_who *who, const char *path, struct stat *st)
{
	int dirfd, fd;

	while (*path == '/')
		path++;
	dirfd = open(who->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = safe_openat(dirfd, path, SRC_POS_MAX_FILE, st);
	close(dirfd);
	if (fd >= 0 && !src_pos_readable(st, who->euid)) {
		close(fd);
		fd = -EACCES;
	}
	return fd;
}

/* The kept entry of path as it is now (st), loaded when new. NULL with *err set. */
static struct kept *find(const struct src_pos_who *who, const char *path, int *err)
{
	struct kept *k = NULL, *old = &kept[0];
	struct stat st;
	int fd;

	fd = open_in(who, path, &st);
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

int src_pos_line(const struct src_pos_who *who, const char *path, uint32_t pos, int *line, int *col)
{
	struct kept *k;
	size_t lo, hi;
	int err = 0;

	*line = *col = 0;
	if (!who || !who->root || !path || path[0] != '/')
		return -ENOENT;
	pthread_mutex_lock(&lock);
	k = find(who, path, &err);
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
