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
/*
 * The memory all the perf maps a recording holds at once may take (perfmap__bytes): one user
 * writing large maps for many processes must not take gigabytes of root's memory. A map
 * that does not fit is not read (its JIT frames stay unnamed) and counted.
 */
#define CP_PERF_MAP_BUDGET (512ull << 20)
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct perfmap;

/*
 * Read every line of f; malformed lines are skipped (the file may be partly written). NULL
 * with errno: ENOMEM, or EFBIG when it would take more than budget bytes (0: no budget).
 */
struct perfmap *perfmap__load(FILE *f, size_t budget);

/* NULL-safe. */
void perfmap__free(struct perfmap *pm);

/* The symbol whose range holds addr, and addr's offset in it; NULL if none. */
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off);

size_t perfmap__count(const struct perfmap *pm);

/* The memory pm takes: its entries and names (about the file's size + 32 bytes a line). */
size_t perfmap__bytes(const struct perfmap *pm);

/*
 * Whether a perf map owned by owner may name the frames of a process whose effective user is
 * proc_euid (-1: unknown, a process gone): only root's or that user's, as perf reads them
 * (perf's rule: another user's map for root's process would let them name root's frames).
 */
bool perfmap__owner_ok(uint32_t owner, int64_t proc_euid);

#endif
