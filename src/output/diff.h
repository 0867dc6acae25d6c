/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two profiles compared (cpuprof diff): per key, the self and total shares of the samples in
 * the base and the new profile, and the change in points (new share - base share; a key absent
 * from one side has share 0 there). Sorted by the size of the total change, then of the self
 * change (both descending), then key, so the same files give the same table.
 */
#ifndef CPUPROF_DIFF_H
#define CPUPROF_DIFF_H
#include <stdio.h>
#include "output/top.h"

struct diff_row {
	const char *key;				     /* the top table's */
	uint64_t base_self, base_total, new_self, new_total; /* samples */
	/* shares and changes are computed (diff_pct, diff_*_change), not kept by row */
};

struct diff {
	struct diff_row *rows;
	size_t n;
	uint64_t base_samples, new_samples;
};

/* v's share of `of` samples in percent (0 when there are none): a row's shares. */
double diff_pct(uint64_t v, uint64_t of);

/* A row's change in points: its new share - its base share, of the total or self samples. */
double diff_total_change(const struct diff *d, const struct diff_row *r);
double diff_self_change(const struct diff *d, const struct diff_row *r);

/* Merge the top tables of both profiles, whose keys d shares: they outlive d. 0 or -ENOMEM. */
int diff_compute(const struct top *base, const struct top *new, struct diff *d);

const struct diff_row *diff_find(const struct diff *d, const char *key);

void diff_free(struct diff *d); /* NULL-safe */

/* The first n rows (0: all) as an aligned text table. 0 or -EIO. */
int diff_write_text(const struct diff *d, enum top_by by, size_t n, FILE *out);

/* The same as one JSON document (see the man page). 0, -ENOMEM or -EIO. */
int diff_write_json(const struct diff *d, enum top_by by, size_t n, const char *base_name,
		    const char *new_name, FILE *out);

/*
 * Both profiles as folded stacks in flamegraph.pl's difffolded layout: "STACK BASE NEW" per
 * distinct stack of either (0 where absent), sorted bytewise; raw sample counts.
 * 0, -ENOMEM or -EIO.
 */
int diff_write_folded(const struct profile *base, const struct profile *new, bool per_thread,
		      FILE *out);

#endif
