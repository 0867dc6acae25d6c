// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU time of building unwind tables, without printing them (cpuprof unwind-table spends
 * most of its time in printf): for each FILE, the best of REPS builds as a table
 * (unwind_table__from_fd) and streamed in batches (unwind_table__stream_fd, as a recording
 * does, rows copied to a buffer as the row store's mapping would take them), in process CPU
 * time (user + sys), with the rows' count and a hash of their bytes (both ways must agree).
 *   unwind_build [-n REPS] [-t|-s] [-f] FILE...
 * -t: as a table only, -s: streamed only; -f: each table built in a new process (as cpuprof
 * unwind-table builds one: no memory malloc kept from the build before), no hash then.
 * Prints; asserts nothing.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unwind/unwind_table.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over the rows' bytes */
static uint64_t hash_rows(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct sink {
	struct cp_unwind_row *buf; /* a window the rows are copied into (a map's pages) */
	size_t cap;
	size_t n;
	uint64_t hash;
	int hashing;
};

static int sink_rows(void *ctx, const struct cp_unwind_row *rows, size_t n)
{
	struct sink *s = ctx;

	if (n > s->cap) {
		free(s->buf);
		s->buf = malloc(n * sizeof(*rows));
		s->cap = s->buf ? n : 0;
		if (!s->buf)
			return -12;
	}
	memcpy(s->buf, rows, n * sizeof(*rows));
	if (s->hashing)
		s->hash = hash_rows(s->hash, rows, n * sizeof(*rows));
	s->n += n;
	return 0;
}

int main(int argc, char **argv)
{
	int reps = 10, i = 1, table = 1, stream = 1, fresh = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-t"))
			stream = 0;
		else if (!strcmp(argv[i], "-s"))
			table = 0;
		else if (!strcmp(argv[i], "-f"))
			fresh = 1;
	}
	printf("%-56s %9s %10s %10s %18s\n", "object", "rows", "table ms", "stream ms", "hash");
	for (; i < argc; i++) {
		uint64_t best_t = UINT64_MAX, best_s = UINT64_MAX, h = 0xcbf29ce484222325ull;
		struct sink s = {.hash = 0xcbf29ce484222325ull};
		size_t n = 0;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[i]);
			continue;
		}
		for (int r = 0; r < reps * table; r++) {
			uint64_t t0, t;
			struct unwind_table *ut;
			const struct cp_unwind_row *rows;
			int pfd[2] = {-1, -1};
			pid_t pid = 0;

			/* -f: each build in a new process, as cpuprof unwind-table builds one */
			if (fresh && (pipe(pfd) || (pid = fork()) < 0)) {
				perror("fork");
				return 1;
			}
			if (pid > 0) {
				close(pfd[1]);
				if (read(pfd[0], &t, sizeof(t)) != sizeof(t))
					t = UINT64_MAX;
				close(pfd[0]);
				waitpid(pid, NULL, 0);
				if (t < best_t)
					best_t = t;
				continue;
			}
			t0 = cpu_ns();
			ut = unwind_table__from_fd(fd);
			t = cpu_ns() - t0;
			if (!ut) {
				perror(argv[i]);
				if (fresh)
					_exit(1);
				break;
			}
			if (fresh) {
				if (write(pfd[1], &t, sizeof(t)) != sizeof(t))
					_exit(1);
				_exit(0);
			}
			if (t < best_t)
				best_t = t;
			if (!r) {
				rows = unwind_table__rows(ut, &n);
				h = hash_rows(h, rows, n * sizeof(*rows));
			}
			unwind_table__free(ut);
		}
		for (int r = 0; r < reps * stream; r++) {
			uint64_t t0, t;
			struct unwind_table *ut;

			s.n = 0;
			s.hashing = !r;
			t0 = cpu_ns();
			ut = unwind_table__stream_fd(fd, 16384, sink_rows, &s);
			t = cpu_ns() - t0;
			if (!ut)
				break;
			if (t < best_s)
				best_s = t;
			unwind_table__free(ut);
		}
		free(s.buf);
		close(fd);
		printf("%-56s %9zu %10.2f %10.2f %016llx%s\n", argv[i], n,
		       table ? best_t / 1e6 : 0.0, stream ? best_s / 1e6 : 0.0,
		       (unsigned long long)h,
		       !table || !stream || (s.hash == h && s.n == n) ? "" : " STREAM DIFFERS");
	}
	return 0;
}
