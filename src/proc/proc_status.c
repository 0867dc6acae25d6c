// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc/proc_status.h"

/* The last number of an "NSpid:\t12\t5" line. */
static uint32_t last_number(const char *p, uint32_t dflt)
{
	uint32_t v = dflt;
	char *end;

	for (;; p = end) {
		unsigned long n = strtoul(p, &end, 10);

		if (end == p)
			return v;
		v = (uint32_t)n;
	}
}

struct status_parse {
	struct proc_status *st;
	uint32_t pid;
	bool have_tgid, have_state;
};

/* The number after a "Key:" prefix of line, or false when line does not start with it. */
static bool field(const char *line, const char *key, size_t klen, const char **rest)
{
	if (strncmp(line, key, klen) != 0)
		return false;
	*rest = line + klen;
	return true;
}

static void parse_line(const char *line, struct status_parse *sp)
{
	struct proc_status *st = sp->st;
	const char *p;
	char *end;

	if (field(line, "Uid:", 4, &p)) {
		strtoul(p, &end, 10);
		if (end != p) {
			p = end;
			unsigned long e = strtoul(p, &end, 10);

			if (end != p) {
				st->euid = (uint32_t)e;
				st->has_euid = true;
			}
		}
	} else if (field(line, "Tgid:", 5, &p)) {
		unsigned long v = strtoul(p, &end, 10);

		if (end != p) {
			st->tgid = (uint32_t)v;
			sp->have_tgid = true;
		}
	} else if (field(line, "State:", 6, &p)) {
		p += strspn(p, " \t");
		if (*p) {
			st->state = *p;
			sp->have_state = true;
		}
	} else if (field(line, "NSpid:", 6, &p)) {
		st->nspid = last_number(p, sp->pid);
	} else if (field(line, "VmRSS:", 6, &p)) {
		st->rss_kib = strtoull(p, NULL, 10);
	} else if (field(line, "RssAnon:", 8, &p)) {
		st->rss_anon_kib = strtoull(p, NULL, 10);
	} else if (field(line, "RssFile:", 8, &p)) {
		st->rss_file_kib = strtoull(p, NULL, 10);
	}
}

/*
 * The file is read with read() into one buffer (one or two system calls for the usual 1.5 KiB,
 * not stdio's per-line work: this runs for each new process of a system-wide recording). A line
 * longer than the buffer (Groups: with thousands of groups) is no field we read: its rest is
 * skipped.
 */
int proc_status_read(const char *procfs, uint32_t pid, struct proc_status *st)
{
	struct status_parse sp = {.st = st, .pid = pid};
	char path[4096], buf[4096];
	size_t len = 0;
	bool skipping = false;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%u/status", procfs, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	st->nspid = pid;
	st->rss_kib = st->rss_anon_kib = st->rss_file_kib = 0;
	st->has_euid = false;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0) {
			buf[len] = '\0';
			if (len && !skipping)
				parse_line(buf, &sp);
			break;
		}
		len += (size_t)n;
		while ((nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
			*nl = '\0';
			if (!skipping)
				parse_line(p, &sp);
			skipping = false;
			p = nl + 1;
		}
		len -= (size_t)(p - buf);
		memmove(buf, p, len);
		if (len == sizeof(buf) - 1) {
			skipping = true;
			len = 0;
		}
	}
	close(fd);
	if (err)
		return err;
	return sp.have_tgid && sp.have_state ? 0 : -EINVAL;
}

int proc_comm_read(const char *procfs, uint32_t pid, char *buf, size_t size)
{
	char path[4096];
	size_t n;
	FILE *f;

	if (!size)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%u/comm", procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}
