/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the input of flamegraph.pl, inferno and speedscope: one line per distinct
 * stack, "comm;root;...;leaf COUNT", kernel frames suffixed "_[k]" and inlined ones "_[i]"
 * (stackcollapse-perf.pl's convention), lines sorted bytewise, identical lines merged, counts in
 * samples.
 */
#ifndef CPUPROF_FOLDED_H
#define CPUPROF_FOLDED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "profile/profile.h"

struct folded_opts {
	bool per_thread; /* a second frame "THREAD-TID" under the process name */
	bool lines;	 /* "function (file.c:42)": the base name of the source file and the line */
	bool labels;	 /* a frame "[labels KEY=VALUE,...]" under the process (and thread) name
			    for a sample with labels (util/labelset.h's form) */
};

/* Write p to out. 0, -ENOMEM, or -EIO when a write fails. */
int folded_write(const struct profile *p, const struct folded_opts *opts, FILE *out);

/*
 * Copy a name into buf as one valid folded frame: ';' becomes ':', control characters, DEL and
 * tabs become '?', leading and trailing spaces are dropped, an empty name becomes "[empty]",
 * a space before trailing digits becomes '_' (a final " 123" would read as a second count
 * column), and with is_comm every space becomes '_'. Truncates to size - 1 bytes.
 */
void folded_frame_name(const char *name, bool is_comm, char *buf, size_t size);

#endif
