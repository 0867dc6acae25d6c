// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the executable mappings of processes, as proc_snapshot does: the text of
 * /proc/PID/maps (proc_maps_parse_exec) or the PROCMAP_QUERY ioctl (proc_maps_query_exec).
 * Built by bench/maps_read.sh with src/proc/proc_maps.c.
 *
 *   maps_read compare [PID...]         both ways for each process (every one in /proc without
 *                                       PIDs); prints each difference, then "same N differ N
 *                                       gone N"; exit status 1 when any differ
 *   maps_read text|query ROUNDS [PID...]  read them ROUNDS times one way; prints "cpu_s S"
 *                                       (user+sys of the reads) and "maps N" (exec mappings
 *                                       read in the last round)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "proc/proc_maps.h"

#define MAX_PIDS 65536

static struct proc_maps self;

static int read_one(unsigned int pid, int query, struct proc_maps *pm)
{
	char path[64];
	size_t lines;
	FILE *f;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (query) {
		err = proc_maps_query_exec(fd, proc_maps_gate(&self), pm);
		close(fd);
		return err;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	setvbuf(f, NULL, _IOFBF, 64 * 1024);
	err = proc_maps_parse_exec(f, pm, &lines);
	fclose(f);
	if (!err && !lines) {
		proc_maps_free(pm);
		err = -ESRCH;
	}
	return err;
}

static int same_entry(const struct map_entry *a, const struct map_entry *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->readable == b->readable &&
	       a->writable == b->writable && a->executable == b->executable &&
	       a->shared == b->shared && a->deleted == b->deleted &&
	       !a->path == !b->path && (!a->path || !strcmp(a->path, b->path));
}

static void print_entry(const char *how, unsigned int pid, const struct map_entry *e)
{
	printf("  %s %u %" PRIx64 "-%" PRIx64 " %c%c%c%c %" PRIx64 " %x:%x %" PRIu64 "%s %s\n",
	       how, pid, e->start, e->end, e->readable ? 'r' : '-', e->writable ? 'w' : '-',
	       e->executable ? 'x' : '-', e->shared ? 's' : 'p', e->offset, e->dev_major,
	       e->dev_minor, e->inode, e->deleted ? " deleted" : "", e->path ? e->path : "(none)");
}

/* 1: the same; 0: differ (printed); -1: one or both failed (gone) */
static int compare(unsigned int pid, int verbose)
{
	struct proc_maps t = {}, q = {};
	int et, eq, same;

	et = read_one(pid, 0, &t);
	eq = read_one(pid, 1, &q);
	if (et || eq) {
		same = et == eq ? -1 : 0;
		if (!same)
			printf("pid %u: text %d query %d\n", pid, et, eq);
		goto out;
	}
	same = t.n == q.n;
	for (size_t i = 0; same && i < t.n; i++)
		same = same_entry(&t.v[i], &q.v[i]);
	if (!same || verbose) {
		printf("pid %u: %s (%zu text, %zu query)\n", pid, same ? "same" : "DIFFER", t.n,
		       q.n);
		for (size_t i = 0; i < t.n; i++)
			print_entry("text ", pid, &t.v[i]);
		for (size_t i = 0; i < q.n; i++)
			print_entry("query", pid, &q.v[i]);
	}
out:
	proc_maps_free(&t);
	proc_maps_free(&q);
	return same;
}

static size_t list_pids(unsigned int *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) && n < max) {
		char *end;
		unsigned long v = strtoul(de->d_name, &end, 10);

		if (*end || end == de->d_name)
			continue;
		pids[n++] = (unsigned int)v;
	}
	if (d)
		closedir(d);
	return n;
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	static unsigned int pids[MAX_PIDS];
	size_t n = 0;
	int rounds = 1, first = 2;

	if (argc < 2)
		return 2;
	/* this 64-bit process's maps shows the gate mapping, as proc_snapshot reads it */
	if (read_one((unsigned int)getpid(), 0, &self))
		return 1;
	if (strcmp(argv[1], "compare")) {
		if (argc < 3)
			return 2;
		rounds = atoi(argv[2]);
		first = 3;
	}
	for (int i = first; i < argc && n < MAX_PIDS; i++)
		pids[n++] = (unsigned int)strtoul(argv[i], NULL, 10);
	if (!n)
		n = list_pids(pids, MAX_PIDS);
	if (!strcmp(argv[1], "compare")) {
		size_t same = 0, differ = 0, gone = 0;

		for (size_t i = 0; i < n; i++) {
			int r = compare(pids[i], first < argc);

			/* a process changing its mappings between the two reads: ask again */
			for (int k = 0; k < 3 && r == 0; k++)
				r = compare(pids[i], 0);
			same += r == 1;
			differ += r == 0;
			gone += r < 0;
		}
		printf("same %zu differ %zu gone %zu\n", same, differ, gone);
		return differ ? 1 : 0;
	} else {
		int query = !strcmp(argv[1], "query");
		size_t maps = 0;
		double t0 = cpu_now();

		for (int r = 0; r < rounds; r++) {
			maps = 0;
			for (size_t i = 0; i < n; i++) {
				struct proc_maps pm = {};

				if (!read_one(pids[i], query, &pm))
					maps += pm.n;
				proc_maps_free(&pm);
			}
		}
		printf("cpu_s %.3f\nmaps %zu\n", cpu_now() - t0, maps);
	}
	return 0;
}
