/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuprof diff --fail-if EXPR: a condition on a diff that fails a CI job.
 *
 *   EXPR   = METRIC OP VALUE
 *   METRIC = "total(" GLOB ")" | "self(" GLOB ")" | "samples"
 *   OP     = ">" | ">=" | "<" | "<="
 *   VALUE  = [+|-] NUMBER "%"     for total and self: the change in points of the share
 *          = NUMBER               for samples: a number of samples
 *
 * GLOB is a shell pattern (fnmatch) on the row names of the diff (functions by default), or
 * "any" for every row; the condition holds when it holds for at least one matching row (each
 * such row is an offending line). "samples < N" holds when either profile has fewer than N
 * samples (too few to judge). Spaces between the parts are allowed.
 */
#ifndef CPUPROF_FAILIF_H
#define CPUPROF_FAILIF_H
#include <stdbool.h>
#include <stdio.h>
#include "output/diff.h"

enum failif_metric {
	FAILIF_TOTAL,
	FAILIF_SELF,
	FAILIF_SAMPLES,
};

enum failif_op {
	FAILIF_GT,
	FAILIF_GE,
	FAILIF_LT,
	FAILIF_LE,
};

struct failif {
	enum failif_metric metric;
	enum failif_op op;
	char glob[256]; /* "*" for any */
	double value;	/* points, or samples */
	char text[256]; /* the expression as given */
};

/* Parse s. 0, or -EINVAL with what is wrong (one line, no expression quoted) in why. */
int failif_parse(const char *s, struct failif *f, char *why, size_t size);

/*
 * Check f against d: print one line per offending row (or profile) to out, prefixed
 * "fail-if 'EXPR': ". The number of offending lines (0: the condition does not hold).
 */
size_t failif_eval(const struct failif *f, const struct diff *d, const char *base_name,
		   const char *new_name, FILE *out);

#endif
