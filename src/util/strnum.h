/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checked parsers for command-line values. Each accepts the whole string or nothing
 * ("10abc", "", " 5", "-1" are rejected) and returns 0 or a negative errno:
 * -EINVAL for malformed text, -ERANGE for a value outside the allowed range.
 */
#ifndef CPUPROF_STRNUM_H
#define CPUPROF_STRNUM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Decimal unsigned integer in [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Duration with a unit: "500ms", "30s", "2m", "1h"; a bare number means seconds.
 * Fractions are allowed ("1.5s", "0.25m"); the value must be at least 1 ms ("0.5ms" and
 * "0.9999ms" are -ERANGE) and at most 366 days; it is rounded to whole milliseconds.
 */
int parse_duration_ms(const char *s, uint64_t *ms);

/* Comma-separated pids "1,22,333" (each 1..INT32_MAX). *pids is malloc'ed; the caller frees it. */
int parse_pid_list(const char *s, pid_t **pids, size_t *n);

#endif
