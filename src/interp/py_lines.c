// SPDX-License-Identifier: GPL-2.0
#include <linux/types.h>
#include "interp/py_detect.h"
#include "interp/py_lines.h"

enum py_linetable_format py_linetable_format(uint32_t hexversion)
{
	if (hexversion >= PY_HEX(3, 11, 0))
		return PY_LT_LOCATIONS;
	if (hexversion >= PY_HEX(3, 10, 0))
		return PY_LT_LINETABLE_310;
	if (hexversion >= PY_HEX(3, 6, 0))
		return PY_LT_LNOTAB;
	return PY_LT_LNOTAB_UNSIGNED;
}

/* PyCode_Addr2Line <= 3.9: the line advances as long as the byte address stays <= off. */
static int lnotab_line(const uint8_t *t, size_t len, int line, uint32_t off, int is_signed)
{
	uint64_t addr = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > off)
			break;
		line += is_signed ? (int8_t)t[i + 1] : t[i + 1];
	}
	return line;
}

/* 3.10: consecutive ranges [start, start + delta), each with its line or none (-128). */
static int linetable310_line(const uint8_t *t, size_t len, int line, uint32_t off)
{
	uint64_t start = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		uint64_t end = start + t[i];
		int8_t ldelta = (int8_t)t[i + 1];

		if (ldelta != -128)
			line += ldelta;
		if (off >= start && off < end)
			return ldelta == -128 ? -1 : line;
		start = end;
	}
	return -1;
}

/* 3.11+ varints: 6 bits a byte, least significant first, bit 6 = more follow. */
static uint32_t read_varint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t val = 0;
	unsigned int shift = 0;

	while (*i < len) {
		uint8_t b = t[(*i)++];

		if (shift < 32)
			val |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return val;
}

static int32_t read_svarint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t u = read_varint(t, len, i);

	return u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* Objects/locations.md (3.11): entry = 1CCCCLLL, code C, length L+1 code units. */
static int locations_line(const uint8_t *t, size_t len, int line, uint32_t off)
{
	uint64_t start = 0;
	size_t i = 0;

	while (i < len) {
		uint8_t first = t[i++];
		unsigned int code = (first >> 3) & 15;
		uint64_t end = start + 2u * ((first & 7) + 1u);
		int this_line = line;

		if (!(first & 0x80))
			return -1; /* not an entry start: a broken table */
		switch (code) {
		case 15: /* no location */
			this_line = -1;
			break;
		case 14: /* long form: line delta, end line delta, column + 1, end column + 1 */
			line += read_svarint(t, len, &i);
			this_line = line;
			read_varint(t, len, &i);
			read_varint(t, len, &i);
			read_varint(t, len, &i);
			break;
		case 13: /* no column: line delta */
			line += read_svarint(t, len, &i);
			this_line = line;
			break;
		case 10:
		case 11:
		case 12: /* one line: line delta code - 10, column, end column */
			line += (int)code - 10;
			this_line = line;
			i += 2;
			break;
		default: /* short form 0-9: same line, one byte of columns */
			i += 1;
			break;
		}
		if (off >= start && off < end)
			return this_line;
		start = end;
	}
	return -1;
}

int py_line_at(enum py_linetable_format fmt, const uint8_t *table, size_t len, int firstline,
	       uint32_t off)
{
	if (!table)
		len = 0;
	switch (fmt) {
	case PY_LT_LNOTAB_UNSIGNED:
		return lnotab_line(table, len, firstline, off, 0);
	case PY_LT_LNOTAB:
		return lnotab_line(table, len, firstline, off, 1);
	case PY_LT_LINETABLE_310:
		return linetable310_line(table, len, firstline, off);
	case PY_LT_LOCATIONS:
		return locations_line(table, len, firstline, off);
	}
	return -1;
}

uint32_t py_instr_offset(const struct cp_py_offsets *o, uint32_t instr)
{
	if (instr == ~0u)
		return 0;
	if (o->instr_unit == CP_PY_INSTR_CODEUNITS)
		return instr * 2u;
	return instr;
}
