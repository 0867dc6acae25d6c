// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/rss.h"

/* The value of "KEY:   N kB" at the start of a line of text. */
static int field_kib(const char *text, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, n) || l[n] != ':')
			continue;
		return sscanf(l + n + 1, "%" SCNu64 " kB", v) == 1 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

int rss_parse(const char *text, struct rss *r)
{
	struct rss x;

	if (field_kib(text, "VmRSS", &x.now_kib) || field_kib(text, "VmHWM", &x.peak_kib))
		return -EINVAL;
	*r = x;
	return 0;
}

int rss_self(struct rss *r)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	/* the Vm lines are within the first 2 KiB of a status file */
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	return rss_parse(buf, r);
}

int rss_reset_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	/* Documentation/admin-guide/mm/soft-dirty.rst, proc.rst: 5 resets the peak RSS */
	if (write(fd, "5", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}
