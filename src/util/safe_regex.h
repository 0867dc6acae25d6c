/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiling a regular expression the user gave (--comm, --focus) with a bound on its cost.
 *
 * glibc's regcomp copies the subexpression under a bound {n,m} m times, so nested bounds
 * multiply: "(a*){1,255}{1,255}{1,255}" asks for some 10^8 nodes and regcomp takes gigabytes
 * and minutes, during which a stop signal waits. A forked child with a memory limit would
 * bound the compile but not the matching afterwards and costs a process per pattern; instead
 * the pattern's expanded size is estimated before regcomp (each bound multiplies the size of
 * what it repeats, nesting multiplies) and a pattern over CP_REGEX_MAX_NODES is refused, so
 * what reaches regcomp compiles in milliseconds and a few MiB. Back-references (\1..\9), a
 * glibc extension to extended expressions whose matching is exponential, are refused too.
 */
#ifndef CPUPROF_SAFE_REGEX_H
#define CPUPROF_SAFE_REGEX_H
#include <regex.h>
#include <stddef.h>

/*
 * The largest expanded size accepted (about one node per character, after the copies of bounds):
 * a{1,1000} compiles in 3 ms and 10 MiB; a{1,8000} took 1.7 s and 500 MiB.
 */
#define CP_REGEX_MAX_NODES 1000
#define CP_REGEX_MAX_LEN   1000

/*
 * Estimated expanded size of an extended regular expression: 0 or -E2BIG (over
 * CP_REGEX_MAX_NODES or CP_REGEX_MAX_LEN bytes, or nested deeper than 64 groups),
 * -ENOTSUP (a back-reference). Malformed patterns pass: regcomp says what is wrong.
 */
int regex_check(const char *pattern);

/*
 * regex_check, then regcomp(re, pattern, REG_EXTENDED | cflags). 0 with re compiled, or a
 * negative errno with a reason in msg (msgsize bytes): -E2BIG, -ENOTSUP as regex_check,
 * -EINVAL when regcomp refuses it (regerror's text).
 */
int safe_regcomp(regex_t *re, const char *pattern, int cflags, char *msg, size_t msgsize);

#endif
