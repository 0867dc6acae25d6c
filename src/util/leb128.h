/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LEB128 (DWARF 5, section 7.6), read from bytes cpuprof did not write: never past end, bits
 * beyond 64 dropped. Shared by the CFI reader (unwind/) and the line-program reader (symbol/).
 */
#ifndef CPUPROF_LEB128_H
#define CPUPROF_LEB128_H
#include <stdbool.h>
#include <stdint.h>

/*
 * The unsigned value at *p (which moves past it). When the bytes end before the value does,
 * sets *truncated and returns the bits read so far.
 */
static inline uint64_t leb128_u(const uint8_t **p, const uint8_t *end, bool *truncated)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	*truncated = true;
	return v;
}

/* The signed value at *p, as leb128_u. */
static inline int64_t leb128_s(const uint8_t **p, const uint8_t *end, bool *truncated)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	*truncated = true;
	return (int64_t)v;
}

#endif
