// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "util/safe_file.h"

int safe_open(const char *path, uint64_t max_size, struct stat *st)
{
	struct stat s;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &s))
		err = -errno;
	else if (S_ISDIR(s.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(s.st_mode))
		err = -EINVAL;
	else if (max_size && (uint64_t)s.st_size > max_size)
		err = -EFBIG;
	if (err) {
		close(fd);
		return err;
	}
	if (st)
		*st = s;
	return fd;
}

FILE *safe_fopen(const char *path, uint64_t max_size)
{
	int fd = safe_open(path, max_size, NULL);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}
