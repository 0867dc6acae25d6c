// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "interp/rb_lines.h"

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

void rb_succ_span(uint32_t pos, size_t *off, size_t *len)
{
	if (pos < RB_SUCC_IMM_POSITIONS) {
		*off = (size_t)(pos / 9) * 8;
		*len = 8;
		return;
	}
	*off = RB_SUCC_PART +
	       (size_t)((pos - RB_SUCC_IMM_POSITIONS) / RB_SUCC_BLOCK_BITS) * RB_SUCC_BLOCK_SIZE;
	*len = RB_SUCC_BLOCK_SIZE;
}

uint32_t rb_succ_rank(uint32_t pos, const uint8_t *buf, size_t len)
{
	uint32_t bit, word, rank, small = 0;
	uint64_t ranks, bits;

	if (pos < RB_SUCC_IMM_POSITIONS) {
		if (len < 8)
			return 0;
		return (uint32_t)(u64_at(buf) >> (pos % 9 * 7)) & 0x7f;
	}
	if (len < RB_SUCC_BLOCK_SIZE)
		return 0;
	bit = (pos - RB_SUCC_IMM_POSITIONS) % RB_SUCC_BLOCK_BITS;
	word = bit / 64;
	memcpy(&rank, buf, sizeof(rank));
	ranks = u64_at(buf + 8);
	if (word)
		small = (uint32_t)(ranks >> ((word - 1) * 9)) & 0x1ff;
	bits = u64_at(buf + 16 + 8 * word) << (63 - bit % 64);
	return rank + small + (uint32_t)__builtin_popcountll(bits);
}
