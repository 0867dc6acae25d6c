/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of 64-bit keys (open addressing), and the mixing function it hashes with. Not
 * thread-safe.
 */
#ifndef CPUPROF_U64SET_H
#define CPUPROF_U64SET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zero-initialised is empty: struct u64set s = {0}; */
struct u64set {
	uint64_t *v; /* 0: an empty slot (key 0 is stored as 1) */
	size_t n, cap;
};

/* Add key (0 stands for 1); false when it was there already, or on no memory. */
bool u64set_add(struct u64set *st, uint64_t key);
/* Free the keys; the set is empty again. */
void u64set_clear(struct u64set *st);

/* A 64-bit finalizer (MurmurHash3's fmix64, first half): spreads the bits of h. */
static inline uint64_t u64_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

#endif
