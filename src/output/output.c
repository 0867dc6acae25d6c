// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "output/output.h"

struct out_file {
	FILE *f;
	char *path; /* final name; NULL for stdout */
	char *tmp;  /* temporary name in the same directory */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum output_format format_from_name(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return FORMAT_FOLDED;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof"))
		return FORMAT_PPROF;
	if (ends_with(path, ".json"))
		return FORMAT_JSON;
	return FORMAT_FOLDED;
}

int out_file__open(const char *path, struct out_file **out)
{
	struct out_file *o = calloc(1, sizeof(*o));
	char *dcopy = NULL, *bcopy = NULL;
	mode_t mask;
	struct stat st;
	int fd = -1, err = 0;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		*out = o;
		return 0;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto fail;
	}
	o->path = strdup(path);
	dcopy = strdup(path);
	bcopy = strdup(path);
	if (!o->path || !dcopy || !bcopy ||
	    asprintf(&o->tmp, "%s/.%s.XXXXXX", dirname(dcopy), basename(bcopy)) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto fail;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	/* mkstemp creates 0600; give the file the mode a plain creat() would */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		err = -errno;
		goto fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		goto fail;
	}
	free(dcopy);
	free(bcopy);
	*out = o;
	return 0;
fail:
	if (fd >= 0 && !o->f)
		close(fd);
	free(dcopy);
	free(bcopy);
	out_file__abort(o);
	return err;
}

FILE *out_file__stream(const struct out_file *o)
{
	return o->f;
}

bool out_file__is_stdout(const struct out_file *o)
{
	return !o->path;
}

int out_file__commit(struct out_file *o)
{
	int err = 0;

	if (!o->path) {
		if (fflush(o->f))
			err = -errno;
		free(o);
		return err;
	}
	if (fflush(o->f) || fsync(fileno(o->f)))
		err = -errno;
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
	free(o->path);
	free(o);
	return 0;
}

void out_file__abort(struct out_file *o)
{
	if (!o)
		return;
	if (o->f && o->path)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o);
}
