// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int proc_status_read(const char *procfs, uint32_t pid, struct proc_status *st)
{
	char path[4096], line[256];
	bool have_tgid = false, have_state = false, line_start = true;
	unsigned long tgid, uid[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/status", procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	st->nspid = pid;
	st->rss_kib = st->rss_anon_kib = st->rss_file_kib = 0;
	st->has_euid = false;
	while (fgets(line, sizeof(line), f)) {
		bool at_start = line_start;

		/* the rest of a long line (Groups:) is no field */
		line_start = strchr(line, '\n') != NULL;
		if (!at_start)
			continue;
		if (sscanf(line, "Uid: %lu %lu", &uid[0], &uid[1]) == 2) {
			st->euid = (uint32_t)uid[1];
			st->has_euid = true;
		} else if (sscanf(line, "Tgid: %lu", &tgid) == 1) {
			st->tgid = (uint32_t)tgid;
			have_tgid = true;
		} else if (sscanf(line, "State: %c", &st->state) == 1) {
			have_state = true;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			st->nspid = last_number(line + 6, pid);
		} else if (strncmp(line, "VmRSS:", 6) == 0) {
			st->rss_kib = strtoull(line + 6, NULL, 10);
		} else if (strncmp(line, "RssAnon:", 8) == 0) {
			st->rss_anon_kib = strtoull(line + 8, NULL, 10);
		} else if (strncmp(line, "RssFile:", 8) == 0) {
			st->rss_file_kib = strtoull(line + 8, NULL, 10);
		}
	}
	fclose(f);
	return have_tgid && have_state ? 0 : -EINVAL;
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
