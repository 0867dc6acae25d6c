/* SPDX-License-Identifier: GPL-2.0 */
/* The monotonic clock in nanoseconds, for the build times the modules report. */
#ifndef CPUPROF_CLOCK_H
#define CPUPROF_CLOCK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
