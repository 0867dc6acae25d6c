/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython line numbers from a code object's line table and an instruction position, in user
 * space (the walker records only the code object and the position). Three formats
 * (interpreters.md 1.3; CPython Objects/lnotab_notes.txt, Objects/locations.md):
 *   <= 3.9  co_lnotab: (byte advance u8, line advance) pairs; the line advance is unsigned in
 *           2.7 and signed (s8) from 3.6;
 *   3.10    co_linetable (PEP 626): (byte delta u8, line delta s8, -128 = no line) ranges;
 *   3.11+   co_linetable, the location table: entries of (code, length in code units) with
 *           varint line deltas and columns.
 * Decoders read only the given bytes and never fail on hostile input: they stop at the end.
 */
#ifndef CPUPROF_PY_LINES_H
#define CPUPROF_PY_LINES_H
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "python_shared.h"

enum py_linetable_format {
	PY_LT_LNOTAB_UNSIGNED, /* 2.7 (and up to 3.5) */
	PY_LT_LNOTAB,	       /* 3.6-3.9 */
	PY_LT_LINETABLE_310,   /* 3.10 */
	PY_LT_LOCATIONS,       /* 3.11+ */
};

/* The format of hexversion's line tables. */
enum py_linetable_format py_linetable_format(uint32_t hexversion);

/*
 * The line of the instruction at byte offset off of the bytecode, for a code object whose
 * co_firstlineno is firstline and whose table is (table, len). -1 when the table gives the
 * instruction no line (3.10+: artificial code), or off lies past the table.
 */
int py_line_at(enum py_linetable_format fmt, const uint8_t *table, size_t len, int firstline,
	       uint32_t off);

/*
 * The byte offset of a recorded instruction position (cp_rt_frame.pos) under offsets o:
 * f_lasti in bytes (<= 3.9) or code units (3.10), the instruction index (3.11+). A position
 * before the first instruction (3.11+ frames that have not started: index -1, stored ~0u)
 * gives 0.
 */
uint32_t py_instr_offset(const struct cp_py_offsets *o, uint32_t instr);

#endif
