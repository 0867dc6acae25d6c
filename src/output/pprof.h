/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof output: a gzipped perftools.profiles.Profile (profile.proto), the format of
 * `go tool pprof`, Parca, Pyroscope and Grafana.
 *
 * - sample types samples/count and cpu/nanoseconds (count x period), the latter the default;
 * - one Mapping per object of each process, plus [kernel.kallsyms]; has_* flags set only when
 *   true for every location of the mapping;
 * - Locations at runtime addresses (return address - 1 for callers, as perf_to_profile does),
 *   inlined frames as extra Lines, innermost first; unnamed frames keep address and mapping
 *   but no Line, so pprof can still symbolize them itself;
 * - labels pid, tid (numbers), comm, thread_name (strings);
 * - the same bytes for the same profile: everything is ordered from the samples' contents,
 *   and the gzip header carries no time.
 */
#ifndef CPUPROF_PPROF_H
#define CPUPROF_PPROF_H
#include <stdio.h>
#include "output/pb.h"
#include "profile/profile.h"

/* Encode p as an uncompressed Profile message into out (reset first). 0 or -ENOMEM. */
int pprof_encode(const struct profile *p, const struct profile_meta *m, struct pb *out);

/* pprof_encode gzip-compressed into f (level 1, by a second thread while encoding). */
int pprof_write(const struct profile *p, const struct profile_meta *m, FILE *f);

#endif
