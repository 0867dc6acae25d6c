/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols from the text of /proc/kallsyms: a sorted table of text symbols searched by
 * bisection. Takes a stream so fixtures can drive it.
 */
#ifndef CPUPROF_KSYMS_H
#define CPUPROF_KSYMS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ksyms;

struct ksym {
	uint64_t addr;
	const char *name;   /* owned by the table */
	const char *module; /* "ext4" for "[ext4]" symbols; NULL for the kernel image */
};

/*
 * Load the text symbols (types t T w W) of a kallsyms stream. Returns NULL and sets errno on
 * failure (ENOMEM, EINVAL for a malformed line or one of more than 512 KiB, EIO). Addresses that
 * are all zero (kptr_restrict) load fine; ksyms__restricted() reports that case.
 */
struct ksyms *ksyms__load(FILE *f);

/* NULL-safe. */
void ksyms__free(struct ksyms *ks);

/*
 * The symbol with the largest address <= addr into *out (may be NULL), and addr's offset from
 * it; the strings are owned by the table. False, and neither written, when addr is below the
 * first symbol or the table is empty or restricted.
 */
bool ksyms__lookup(const struct ksyms *ks, uint64_t addr, struct ksym *out, uint64_t *offset);

/* Number of symbols loaded. */
size_t ksyms__count(const struct ksyms *ks);

/* True when every address read was zero: kernel.kptr_restrict hides them from this reader. */
bool ksyms__restricted(const struct ksyms *ks);

#endif
