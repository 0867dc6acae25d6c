/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One compilation unit's DWARF line program (.debug_line, versions 2 to 5), decoded only as far
 * as lookups need: opening reads the header and file table and makes one pass over the
 * program that notes where each sequence starts and which addresses it covers, without keeping
 * rows; a lookup decodes the one sequence that covers the address (once; its rows are kept).
 *
 * The answers are libdw's (dwarf_getsrclines 0.188): the row a lookup returns is the last row
 * at or below the address in libdw's order (by address, end-of-sequence rows first at one
 * address, then program order, the highest row marked as an end), file names joined to their
 * directory as libdw joins them (relative to DW_AT_comp_dir for DWARF < 5's directory 0), file
 * indexes as libdw numbers them (DW_AT_call_file uses the same numbers). Programs this decoder
 * does not take (-ENOTSUP: VLIW operation indexes, string forms that need the CU's
 * .debug_str_offsets, a foreign byte order) are left to libdw by the caller.
 *
 * The decoded rows live in the table; the table reads the section bytes it was opened on,
 * which must outlive it. Not thread-safe: one table is used by one thread at a time.
 */
#ifndef CPUPROF_LINE_TABLE_H
#define CPUPROF_LINE_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sections a line program refers to; line_str and str may be empty. */
struct lt_sections {
	const uint8_t *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

struct lt_row {
	uint64_t addr;
	uint32_t line, col;
	uint32_t file; /* index into the table's files */
};

struct line_table;

/*
 * Open the program at offset of sec->line for a CU with this address size (4 or 8) and
 * DW_AT_comp_dir (may be NULL). Returns 0, -EINVAL (a malformed program: libdw rejects it
 * too), -ENOTSUP or -ENOMEM.
 */
int line_table__open(const struct lt_sections *sec, uint64_t offset, unsigned int address_size,
		     const char *comp_dir, struct line_table **out);

/* NULL-safe. */
void line_table__free(struct line_table *lt);

/*
 * Forget the decoded rows of the sequences not looked up since the last call (all: of every
 * sequence), so that memory follows what is being looked up, not every sequence ever looked
 * up: the next lookup in a sequence decodes it again. The number of rows freed.
 */
size_t line_table__trim(struct line_table *lt, bool all);

/* The decoded rows the table keeps now (0 for NULL). */
size_t line_table__held(const struct line_table *lt);

/* Number of file table entries; file i's name (NULL when out of range). */
size_t line_table__n_files(const struct line_table *lt);
const char *line_table__file(struct line_table *lt, size_t i);

/*
 * The row covering addr into *row: 0, -ENOENT when no row covers it (before the first row,
 * past an end of sequence), -EINVAL (a sequence that cannot be decoded on the second pass) or
 * -ENOMEM.
 */
int line_table__find(struct line_table *lt, uint64_t addr, struct lt_row *row);

#endif
