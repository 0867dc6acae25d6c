// SPDX-License-Identifier: GPL-2.0
/*
 * Workload of bench/unwind.sh, built -O2 -g -fomit-frame-pointer: a chain of eight functions
 * whose leaf does the work, so that samples land about ten frames deep:
 *   _start -> __libc_start_main -> __libc_start_call_main -> main -> uw_1 ... uw_8 (leaf)
 *
 *   unwind_work spin SECONDS NPROC   NPROC processes (this one and NPROC-1 children) spin
 *   unwind_work fixed ITERS          one thread does ITERS calls of the chain and prints
 *                                    "work_s SECONDS", the time of that loop alone
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UW_FN __attribute__((noipa))
/* the result is used after the call: no sibling calls, every frame stays on the stack */
#define UW_STEP(name, next, k)                         \
	UW_FN unsigned long name(unsigned long x)      \
	{                                              \
		volatile unsigned long pad[k];         \
		pad[0] = x;                            \
		return next(pad[0] + k) * 31 + pad[0]; \
	}

volatile unsigned long uw_sink;

UW_FN unsigned long uw_8(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

UW_STEP(uw_7, uw_8, 2)
UW_STEP(uw_6, uw_7, 3)
UW_STEP(uw_5, uw_6, 4)
UW_STEP(uw_4, uw_5, 5)
UW_STEP(uw_3, uw_4, 6)
UW_STEP(uw_2, uw_3, 7)
UW_STEP(uw_1, uw_2, 8)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0, end;

	if (argc == 4 && argv[1][0] == 's') {
		end = now() + atof(argv[2]);
		for (int i = 1; i < atoi(argv[3]); i++)
			if (fork() == 0)
				break;
		while (now() < end)
			for (int i = 0; i < 100; i++)
				uw_sink = uw_1(uw_sink);
		while (wait(NULL) > 0)
			;
		return 0;
	}
	if (argc == 3 && argv[1][0] == 'f') {
		long n = atol(argv[2]);

		t0 = now();
		for (long i = 0; i < n; i++)
			uw_sink = uw_1(uw_sink + i);
		printf("work_s %.6f\n", now() - t0);
		return 0;
	}
	fprintf(stderr, "usage: %s spin SECONDS NPROC | fixed ITERS\n", argv[0]);
	return 64;
}
