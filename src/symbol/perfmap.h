/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols of JIT-compiled code from a perf map file (/tmp/perf-PID.map), the convention of
 * perf, written by Node --perf-basic-prof, Python 3.12 -X perf, Java's perf-map-agent and
 * others: one line per symbol, "START SIZE NAME", START and SIZE in hexadecimal (with or
 * without 0x), NAME the rest of the line. When a range is written again (code recompiled at
 * the same address), the later line wins.
 */
#ifndef CPUPROF_PERFMAP_H
#define CPUPROF_PERFMAP_H
/* The largest perf map read (a large JVM's is tens of MiB); a larger one is ignored. */
#define CP_MAX_PERF_MAP (512ull << 20)
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct perfmap;

/* Read every line of f; malformed lines are skipped (the file may be partly written). */
struct perfmap *perfmap__load(FILE *f);

/* NULL-safe. */
void perfmap__free(struct perfmap *pm);

/* The symbol whose range holds addr, and addr's offset in it; NULL if none. */
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off);

size_t perfmap__count(const struct perfmap *pm);

#endif
