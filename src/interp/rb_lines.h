/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Line numbers of Ruby instructions: an iseq's insns_info is an array of entries (line_no
 * first), one per run of instructions on the same line; which entry covers instruction
 * position pos is the number of entries starting at or before pos, minus one. Ruby 2.6+ keeps
 * the entries' start positions as a succinct bit vector with rank counters,
 * insns_info.succ_index_table (iseq.c, "succinct bitvector"; the positions array itself is
 * freed once it is built), which is decoded here. Layout (the same 2.6-3.3; OTel's ruby.go
 * and Ruby's iseq.c agree): imm_part[6] u64 for positions < 54 (9 ranks of 7 bits per word,
 * each the number of starts at or before the position), then blocks of 512 positions, 80
 * bytes each: {u32 rank (starts before the block); u64 small_block_ranks (7 9-bit counts of
 * starts in the 64-bit words before word i, i = 1..7); u64 bits[8]}.
 */
#ifndef CPUPROF_RB_LINES_H
#define CPUPROF_RB_LINES_H
#include <stddef.h>
#include <stdint.h>

#define RB_SUCC_IMM_POSITIONS 54
#define RB_SUCC_IMM_WORDS     (RB_SUCC_IMM_POSITIONS / 9)
#define RB_SUCC_BLOCK_BITS    512
#define RB_SUCC_BLOCK_SIZE    80
#define RB_SUCC_PART	      (RB_SUCC_IMM_WORDS * 8) /* the first block's offset */

/*
 * Which bytes of a succ_index_table the rank of pos needs: *off and *len (8 bytes of imm_part,
 * or one whole block).
 */
void rb_succ_span(uint32_t pos, size_t *off, size_t *len);

/*
 * The rank of pos (number of entry starts at or before pos) from the bytes rb_succ_span()
 * named (buf, len bytes). 0 when buf is too short.
 */
uint32_t rb_succ_rank(uint32_t pos, const uint8_t *buf, size_t len);

/*
 * The instruction position of a frame's pc: its index in iseq_encoded (cp_rt_frame.pos)
 * minus one, because pc points past the instruction running (Ruby's calc_pos); 0 stays 0.
 */
static inline uint32_t rb_insn_pos(uint32_t pc_index)
{
	return pc_index ? pc_index - 1 : 0;
}

#endif
