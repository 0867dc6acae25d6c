/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a recording leaves behind: the profile in every format asked for, written all or
 * nothing, and the one-line summary on stderr (samples, processes, what was left out or
 * damaged and why). Part of the session's user-facing side, with record.c: it prints.
 */
#ifndef CPUPROF_REPORT_H
#define CPUPROF_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include "profile/aggregate.h"
#include "session/options.h"
#include "output/output.h"
#include "profile/profile.h"
#include "shared.h"

struct unwind_maps;

struct report {
	const struct cp_options *o;
	const struct profile *prof;
	const uint64_t *stats; /* CP_STAT_MAX counters from BPF */
	struct aggregate_stats agg;
	uint64_t snapshot_failed;     /* processes gone before their mappings were read */
	uint64_t refresh_failed;      /* mapping refreshes too late */
	uint64_t start_unix_ns;	      /* wall clock at the start of sampling */
	double recorded_s;	      /* length of the recording */
	unsigned int frequency;	      /* the sampling rate used (-F, capped) */
	const struct unwind_maps *um; /* NULL without --unwind dwarf */
	uint64_t rec_peak_kib;	      /* the recording's peak RSS, before the output phase reset the
					 kernel's mark (util/rss.h); 0 when not known */
};

/*
 * Write the profile to outs[0..n_outs) (output i in the format of -o i), then commit them
 * all; a committed output is set to NULL. On failure one error line is printed and the
 * uncommitted outputs are left for the caller to abort. 0 or a negative errno.
 */
int report_write(const struct report *r, struct out_file **outs, size_t n_outs);

/* The summary line (and, with -v, the unwind table line). */
void report_summary(const struct report *r, size_t n_outs);

#endif
