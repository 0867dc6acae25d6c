// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include "util/textline.h"

int textline_read(FILE *f, char **line, size_t *cap, size_t *len)
{
	ssize_t n;

	errno = 0;
	n = getline(line, cap, f);
	if (n < 0) {
		if (errno == ENOMEM)
			return -ENOMEM;
		if (ferror(f))
			return errno ? -errno : -EIO;
		return 0;
	}
	if (n > 0 && (*line)[n - 1] == '\n')
		(*line)[--n] = '\0';
	if (strlen(*line) != (size_t)n)
		return -EINVAL;
	*len = (size_t)n;
	return 1;
}
