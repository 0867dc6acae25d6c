// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "output/output.h"

struct out_file {
	FILE *f;
	bool is_stdout;
	bool in_place; /* a FIFO, a character device or an inherited descriptor: streamed */
	char *path;    /* regular file: the final name (a symlink's target), else NULL */
	char *prefix;  /* regular file: "DIR/.BASE.", the hidden names beside it start so */
	char *tmp;     /* the temporary name (at once without O_TMPFILE, else at commit) */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

enum output_format format_from_name(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return FORMAT_FOLDED;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof"))
		return FORMAT_PPROF;
	if (ends_with(path, ".json"))
		return FORMAT_JSON;
	if (ends_with(path, ".svg"))
		return FORMAT_SVG;
	if (ends_with(path, ".html") || ends_with(path, ".htm"))
		return FORMAT_HTML;
	return FORMAT_FOLDED;
}

/* "/dev/stdout", "/dev/fd/N", "/proc/self/fd/N": descriptor N of this process, else -1. */
static int inherited_fd(const char *path)
{
	const char *num = NULL;
	char *end;
	long n;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		num = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		num = path + 14;
	if (!num || !*num)
		return -1;
	errno = 0;
	n = strtol(num, &end, 10);
	if (errno || *end || n < 0 || n > INT_MAX)
		return -1;
	return (int)n;
}

/*
 * May the symlink path be followed, as the kernel would follow it for this process under
 * fs.protected_symlinks? In a sticky world-writable directory (/tmp) only when the link is
 * ours or its directory's owner's: another user's link there may point anywhere.
 */
static int symlink_allowed(const char *path, const struct stat *link)
{
	char *copy = strdup(path);
	struct stat dir;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	if (stat(dirname(copy), &dir))
		err = -errno;
	else if ((dir.st_mode & S_ISVTX) && (dir.st_mode & S_IWOTH) && link->st_uid != geteuid() &&
		 link->st_uid != dir.st_uid)
		err = -EACCES;
	free(copy);
	return err;
}

/*
 * The file a dangling symlink path names, as open(O_CREAT) through it would create it: each
 * link of a chain checked as the kernel checks it (symlink_allowed), at most 40 links (the
 * kernel's ELOOP limit); relative targets taken from the link's directory. *target: the
 * missing file's name in its existing directory (resolved), or an error.
 */
static int dangling_target(const char *path, char **target)
{
	char *cur = strdup(path), *next = NULL, *dir = NULL;
	char buf[PATH_MAX];
	struct stat st;
	const char *slash;
	ssize_t n;
	int err = 0, hops;

	*target = NULL;
	for (hops = 0; cur && hops <= 40; hops++) {
		if (lstat(cur, &st)) {
			if (errno != ENOENT)
				err = -errno;
			break; /* cur is the file to create */
		}
		if (!S_ISLNK(st.st_mode)) {
			err = -EAGAIN; /* it appeared meanwhile */
			break;
		}
		err = symlink_allowed(cur, &st);
		if (err)
			break;
		n = readlink(cur, buf, sizeof(buf) - 1);
		if (n < 0) {
			err = -errno;
			break;
		}
		buf[n] = '\0';
		slash = strrchr(cur, '/');
		if (buf[0] == '/' || !slash)
			next = strdup(buf);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, buf) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	if (!cur)
		err = -ENOMEM;
	else if (!err && hops > 40)
		err = -ELOOP;
	if (err)
		goto out;
	slash = strrchr(cur, '/');
	if (slash && !slash[1]) {
		err = -EISDIR; /* a link to "dir/": no file name to create */
		goto out;
	}
	if (!slash)
		dir = realpath(".", NULL);
	else if (slash == cur)
		dir = strdup("");
	else {
		cur[slash - cur] = '\0';
		dir = realpath(cur, NULL);
		cur[slash - cur] = '/';
	}
	if (!dir)
		err = -errno;
	else if (asprintf(target, "%s/%s", dir, slash ? slash + 1 : cur) < 0) {
		*target = NULL;
		err = -ENOMEM;
	}
out:
	free(dir);
	free(cur);
	return err;
}

/*
 * A FIFO or character device, opened for streaming. A FIFO's reader gets a short grace: in
 * `cat fifo & cpuprof record -o fifo` the shell starts both at once and cat may not have
 * opened its end yet. Without a reader after that, ENXIO (never a blocking open).
 */
static int open_in_place(const char *path, struct out_file *o)
{
	const struct timespec step = {.tv_nsec = CP_FIFO_READER_WAIT_MS * 1000000L / 100};
	int fd, flags, tries = 0;

	while ((fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0 &&
	       errno == ENXIO && tries++ < 100)
		nanosleep(&step, NULL);
	if (fd < 0)
		return -errno; /* ENXIO: a FIFO without a reader */
	/* writes then wait for a slow reader rather than fail with EAGAIN */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		goto fail;
	o->f = fdopen(fd, "w");
	if (!o->f)
		goto fail;
	o->in_place = true;
	return 0;
fail:
	flags = -errno;
	close(fd);
	return flags;
}

/*
 * The owner a new file gets: under sudo, the user who ran it (SUDO_UID, SUDO_GID), so that a
 * profile in their directory is theirs; otherwise this process's. -1: leave as created.
 */
static void new_file_owner(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;
	unsigned long v;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (geteuid() != 0 || !u || !g)
		return;
	errno = 0;
	v = strtoul(u, &end, 10);
	if (errno || *end || !*u || v >= UINT32_MAX)
		return;
	*uid = (uid_t)v;
	v = strtoul(g, &end, 10);
	if (errno || *end || !*g || v >= UINT32_MAX) {
		*uid = (uid_t)-1;
		return;
	}
	*gid = (gid_t)v;
}

/*
 * A regular file at path (old: its present state, NULL when new), written into an unnamed
 * file in the same directory (O_TMPFILE: a SIGKILL leaves nothing behind) or, where the file
 * system has no O_TMPFILE, a hidden temporary name; both get the old file's mode (and owner,
 * as root), or those of a plain creat().
 */
static int open_atomic(const char *path, const struct stat *old, struct out_file *o)
{
	char *dcopy = strdup(path), *bcopy = strdup(path);
	const char *dir = dcopy ? dirname(dcopy) : NULL;
	mode_t mode, mask = umask(0);
	uid_t uid;
	gid_t gid;
	int fd = -1, err = 0;

	umask(mask);
	mode = old ? (old->st_mode & 07777) : (0666 & ~mask);
	o->path = strdup(path);
	if (!o->path || !dir || !bcopy ||
	    asprintf(&o->prefix, "%s/.%s.", dir, basename(bcopy)) < 0) {
		o->prefix = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		err = -errno;
		goto out;
	}
	if (fd < 0) {
		if (asprintf(&o->tmp, "%sXXXXXX", o->prefix) < 0) {
			o->tmp = NULL;
			err = -ENOMEM;
			goto out;
		}
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			free(o->tmp);
			o->tmp = NULL;
			goto out;
		}
	}
	if (fchmod(fd, mode)) {
		err = -errno;
		goto out;
	}
	if (old) {
		uid = old->st_uid;
		gid = old->st_gid;
		if (geteuid() != 0)
			uid = (uid_t)-1, gid = (gid_t)-1;
	} else {
		new_file_owner(&uid, &gid);
	}
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid)) {
		err = -errno;
		goto out;
	}
	o->f = fdopen(fd, "w");
	if (!o->f)
		err = -errno;
out:
	if (err && fd >= 0)
		close(fd);
	free(dcopy);
	free(bcopy);
	return err;
}

int out_file__open(const char *path, struct out_file **out)
{
	struct out_file *o;
	char *target = NULL;
	struct stat st;
	int fd, err = 0;

	*out = NULL;
	/* "" names no file: rename() would fail only once the profile is made */
	if (path && !*path)
		return -ENOENT;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		o->is_stdout = true;
		*out = o;
		return 0;
	}
	fd = inherited_fd(path);
	if (fd >= 0) {
		/* the shell's descriptor, whatever it is: write where it points, in place */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		o->in_place = true;
		*out = o;
		return 0;
	}
	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			err = -errno;
			goto fail;
		}
		err = open_atomic(path, NULL, o); /* a new file */
		goto done;
	}
	if (S_ISLNK(st.st_mode)) {
		/* the link stays; what it points at is written */
		err = symlink_allowed(path, &st);
		if (err)
			goto fail;
		target = realpath(path, NULL);
		if (!target && errno == ENOENT) {
			/* dangling: create what it points at, as echo > link would */
			err = dangling_target(path, &target);
			err = err ?: open_atomic(target, NULL, o);
			goto done;
		}
		if (!target || stat(target, &st)) {
			err = -errno;
			goto fail;
		}
	}
	if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (S_ISREG(st.st_mode))
		err = open_atomic(target ? target : path, &st, o);
	else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		err = open_in_place(target ? target : path, o);
	else
		err = -EINVAL; /* a block device, a socket: not a place for a profile */
done:
	free(target);
	if (err)
		goto fail;
	*out = o;
	return 0;
fail:
	free(target);
	out_file__abort(o);
	return err;
}

FILE *out_file__stream(const struct out_file *o)
{
	return o->f;
}

bool out_file__is_stdout(const struct out_file *o)
{
	return o->is_stdout;
}

/* Give the unnamed file of f a hidden name PREFIX%08x beside the final one, for rename(). */
static int link_tmpfile(FILE *f, const char *prefix, char **tmp)
{
	char proc[64];
	int err = -EEXIST;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(f));
	for (int tries = 0; err == -EEXIST && tries < 100; tries++) {
		uint32_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint32_t)getpid() * 2654435761u + (uint32_t)tries;
		free(*tmp);
		if (asprintf(tmp, "%s%08x", prefix, r) < 0) {
			*tmp = NULL;
			return -ENOMEM;
		}
		err = linkat(AT_FDCWD, proc, AT_FDCWD, *tmp, AT_SYMLINK_FOLLOW) ? -errno : 0;
	}
	if (err) {
		free(*tmp);
		*tmp = NULL;
	}
	return err;
}

int out_file__commit(struct out_file *o)
{
	int err = 0;

	if (o->is_stdout || o->in_place) {
		if (fflush(o->f))
			err = -errno;
		if (o->in_place && fclose(o->f) && !err)
			err = -errno;
		free(o);
		return err;
	}
	if (fflush(o->f) || fsync(fileno(o->f)))
		err = -errno;
	if (!err && !o->tmp)
		err = link_tmpfile(o->f, o->prefix, &o->tmp);
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		out_file__abort(o);
		return err;
	}
	free(o->tmp);
	free(o->prefix);
	free(o->path);
	free(o);
	return 0;
}

void out_file__abort(struct out_file *o)
{
	if (!o)
		return;
	if (o->f && !o->is_stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->prefix);
	free(o->path);
	free(o);
}
