// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include "util/safe_file.h"

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* What safe_open and safe_openat check on the open descriptor fd; fd or -errno (fd closed). */
static int check_fd(int fd, uint64_t max_size, struct stat *st)
{
	struct stat s;
	int err = 0;

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

int safe_open(const char *path, uint64_t max_size, struct stat *st)
{
	int fd = open(path, OPEN_FLAGS);

	if (fd < 0)
		return -errno;
	return check_fd(fd, max_size, st);
}

int safe_openat_walk(int dirfd, const char *rel, uint64_t max_size, struct stat *st)
{
	char comp[256];
	const char *p = rel, *slash;
	int fd = dirfd, err;

	if (!*rel || *rel == '/')
		return -EINVAL;
	for (;;) {
		size_t len;
		int next;

		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (!len || len >= sizeof(comp) || (len == 2 && !strncmp(p, "..", 2)) ||
		    (len == 1 && *p == '.')) {
			err = -EINVAL;
			break;
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		/* O_NOFOLLOW: a symbolic link, as a directory or as the file, fails with ELOOP */
		next = openat(fd, comp,
			      slash ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
				    : OPEN_FLAGS | O_NOFOLLOW);
		err = next < 0 ? -errno : 0;
		if (fd != dirfd)
			close(fd);
		if (err)
			return err == -ENOTDIR && slash ? -ELOOP : err;
		fd = next;
		if (!slash)
			return check_fd(fd, max_size, st);
		p = slash + 1;
	}
	if (fd != dirfd)
		close(fd);
	return err;
}

int safe_openat(int dirfd, const char *rel, uint64_t max_size, struct stat *st)
{
	struct open_how how = {
		.flags = OPEN_FLAGS | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (!*rel || *rel == '/')
		return -EINVAL;
	fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd >= 0)
		return check_fd((int)fd, max_size, st);
	/* no openat2 (before Linux 5.6, or a seccomp filter): one component at a time */
	if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
		return safe_openat_walk(dirfd, rel, max_size, st);
	return -errno;
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
