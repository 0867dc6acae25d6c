// SPDX-License-Identifier: GPL-2.0
/*
 * A DWARF 2-5 line program decoder that decodes one sequence at a time (line_table.h).
 * Format: DWARF 5 section 6.2 (and DWARF 2-4 for the older headers). Where libdw 0.188's
 * dwarf_getsrclines (libdw/dwarf_getsrclines.c) departs from the text of the standard, this
 * follows libdw, because callers compare with it: the extended opcode length is one byte, an
 * unknown extended opcode of length 0 re-reads its sub-opcode, DW_LNE_set_address reads the
 * CU's address size whatever the length says, rows whose column or ISA do not fit libdw's
 * fields make the whole table invalid, and the highest row counts as an end of sequence.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "symbol/line_table.h"
#include "util/leb128.h"

/*
 * Decoded rows of one sequence, 12 bytes each: the rows of the code named are the biggest part
 * of a line table (12 MB of a system-wide recording's heap at 16 bytes a row).
 */
struct lt_drow {
	uint32_t off; /* the address - its sequence's lo (close_seq: a sequence spans < 4 GiB) */
	uint32_t line;
	uint16_t col; /* emit: a column over 0xffff makes the table invalid (libdw) */
	uint16_t file : 15, end : 1; /* emit: so does a file number over 0x7fff (libdw then) */
};
_Static_assert(sizeof(struct lt_drow) == 12, "line rows are 12 bytes");

/*
 * One sequence: rows first_row .. first_row + n_rows - 1 in program order, from program offset
 * off. Every row lies in [lo, hi]; tail is its greatest row in libdw's order.
 */
struct lt_seq {
	uint64_t lo, hi, tail_addr;
	size_t off;
	uint32_t first_row, n_rows, tail_idx;
	bool tail_end, monotonic;
	struct lt_drow *rows; /* decoded lazily (malloc), until line_table__trim */
	unsigned int used;    /* line_table.epoch of its last lookup */
};

/* Strings made by joining directory and file names live in blocks freed with the table. */
struct lt_block {
	struct lt_block *next;
	size_t used, size;
	_Alignas(8) char data[];
};

struct line_table {
	const uint8_t *sec;	   /* .debug_line */
	size_t prog, prog_end;	   /* the opcodes, as offsets into sec */
	unsigned int address_size; /* of DW_LNE_set_address */
	uint8_t min_inst, default_is_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_len; /* std_len[op] for 1 <= op < opcode_base */
	const char **files;	/* the name; joined to fdirs[i] at the first line_table__file */
	const char **fdirs; /* the directory a relative name is still to be joined to, or NULL */
	size_t n_files, cap_files;
	const char **dirs;
	size_t n_dirs;
	struct lt_seq *seqs; /* by lo */
	size_t n_seqs;
	uint64_t *pmax_hi; /* pmax_hi[i]: the greatest hi of seqs[0..i] */
	uint64_t top_addr; /* libdw's highest row, marked as an end */
	uint32_t top_idx;
	struct lt_block *blocks;
	unsigned int epoch; /* line_table__trim calls so far */
	size_t held;	    /* decoded rows kept */
};

/* ---- reading -------------------------------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
};

static inline uint64_t rd_uleb(struct cur *c, bool *bad)
{
	return leb128_u(&c->p, c->end, bad);
}

static inline int64_t rd_sleb(struct cur *c, bool *bad)
{
	return leb128_s(&c->p, c->end, bad);
}

/* Little-endian fixed-size values (the caller checks the host is little-endian too). */
static inline uint64_t rd_fixed(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

static const char *sec_string(const uint8_t *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/*
 * n bytes from the table's blocks, 8-aligned; freed with the table. The first block is small
 * and each next one twice the last, up to 16 KiB: a table per compile unit, most of which join
 * a few names or none.
 */
static void *lt_alloc(struct line_table *lt, size_t n)
{
	struct lt_block *b = lt->blocks;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = b ? (b->size < 8192 ? b->size * 2 : 16384) : 256;

		if (size < n)
			size = n;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = lt->blocks;
		lt->blocks = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

/* dir/name as libdw joins them: an absolute name alone, no directory: the name alone. */
static const char *join(struct line_table *lt, const char *dir, const char *name)
{
	size_t a, b;
	char *s;

	if (name[0] == '/' || !dir)
		return name;
	a = strlen(dir);
	b = strlen(name);
	s = lt_alloc(lt, a + b + 2);
	if (!s)
		return NULL;
	memcpy(s, dir, a);
	s[a] = '/';
	memcpy(s + a + 1, name, b + 1);
	return s;
}

/*
 * File i is name in directory dir: joined as libdw joins them (join) when it is first asked
 * for, not for every file of every table read (most are never named by a sampled row).
 */
static void set_file(struct line_table *lt, size_t i, const char *dir, const char *name)
{
	lt->files[i] = name;
	lt->fdirs[i] = name[0] == '/' ? NULL : dir;
}

static int add_file(struct line_table *lt, const char *dir, const char *name)
{
	if (lt->n_files == lt->cap_files) {
		size_t nc = lt->cap_files ? 2 * lt->cap_files : 16;
		const char **v = reallocarray(lt->files, nc, sizeof(*v));

		if (!v)
			return -ENOMEM;
		lt->files = v;
		v = reallocarray(lt->fdirs, nc, sizeof(*v));
		if (!v)
			return -ENOMEM;
		lt->fdirs = v;
		lt->cap_files = nc;
	}
	set_file(lt, lt->n_files++, dir, name);
	return 0;
}

/* ---- header --------------------------------------------------------------------------- */

struct hdr_ctx {
	const struct lt_sections *sec;
	unsigned int offset_size;
};

/* One DWARF 5 entry-format value: a string (*s), a number (*u), or skipped. */
static int read_form(const struct hdr_ctx *h, struct cur *c, uint64_t form, const char **s,
		     uint64_t *u)
{
	bool bad = false;
	uint64_t off, len;

	switch (form) {
	case DW_FORM_string:
		if (!memchr(c->p, 0, (size_t)(c->end - c->p)))
			return -EINVAL;
		*s = (const char *)c->p;
		c->p += strlen(*s) + 1;
		return 0;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		if (c->end - c->p < h->offset_size)
			return -EINVAL;
		off = rd_fixed(c->p, h->offset_size);
		c->p += h->offset_size;
		if (form == DW_FORM_line_strp)
			*s = sec_string(h->sec->line_str, h->sec->line_str_size, off);
		else
			*s = sec_string(h->sec->str, h->sec->str_size, off);
		return *s ? 0 : -EINVAL;
	case DW_FORM_udata:
		*u = rd_uleb(c, &bad);
		return bad ? -EINVAL : 0;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_data16:
		len = form == DW_FORM_data1   ? 1
		      : form == DW_FORM_data2 ? 2
		      : form == DW_FORM_data4 ? 4
		      : form == DW_FORM_data8 ? 8
					      : 16;
		if ((uint64_t)(c->end - c->p) < len)
			return -EINVAL;
		if (len <= 8)
			*u = rd_fixed(c->p, (unsigned int)len);
		c->p += len;
		return 0;
	case DW_FORM_block:
		len = rd_uleb(c, &bad);
		if (bad || (uint64_t)(c->end - c->p) < len)
			return -EINVAL;
		c->p += len;
		return 0;
	default:
		return -ENOTSUP; /* strx needs the CU's string offsets; left to libdw */
	}
}

/* DWARF 5 directory or file entries: path and directory index of each. */
static int read_entries(struct line_table *lt, const struct hdr_ctx *h, struct cur *c, bool files)
{
	uint64_t form[256], type[256], n;
	unsigned int nf;
	bool bad = false, has_path = false, has_dir = false;
	int err;

	if (c->p >= c->end)
		return -EINVAL;
	nf = *c->p++;
	for (unsigned int i = 0; i < nf; i++) {
		type[i] = rd_uleb(c, &bad);
		form[i] = rd_uleb(c, &bad);
		if (bad)
			return -EINVAL;
		has_path |= type[i] == DW_LNCT_path;
		has_dir |= type[i] == DW_LNCT_directory_index;
	}
	if (nf && (!has_path || (files && !has_dir)))
		return -EINVAL;
	n = rd_uleb(c, &bad);
	if (bad || (!nf && n) || (nf && n > (uint64_t)(c->end - c->p) / nf))
		return -EINVAL;
	if (!files) {
		lt->dirs = calloc(n + 1, sizeof(*lt->dirs));
		if (!lt->dirs)
			return -ENOMEM;
	}
	for (uint64_t k = 0; k < n; k++) {
		const char *path = NULL;
		uint64_t dir = UINT64_MAX;

		for (unsigned int i = 0; i < nf; i++) {
			const char *s = NULL;
			uint64_t u = UINT64_MAX;

			err = read_form(h, c, form[i], &s, &u);
			if (err)
				return err;
			if (type[i] == DW_LNCT_path)
				path = s;
			else if (type[i] == DW_LNCT_directory_index)
				dir = u;
		}
		if (!path)
			return -EINVAL;
		if (!files) {
			lt->dirs[lt->n_dirs++] = path;
			continue;
		}
		if (dir >= lt->n_dirs)
			return -EINVAL;
		/* libdw: entry 0 takes the place of its "???" file, the rest follow */
		if (k == 0)
			set_file(lt, 0, lt->dirs[dir], path);
		else if ((err = add_file(lt, lt->dirs[dir], path)))
			return err;
	}
	return 0;
}

/* DWARF 2-4 include_directories and file_names. */
static int read_v4_tables(struct line_table *lt, struct cur *c, const char *comp_dir)
{
	const uint8_t *q = c->p;
	size_t n = 1;
	bool bad = false;

	while (q < c->end && *q) {
		const uint8_t *z = memchr(q, 0, (size_t)(c->end - q));

		if (!z)
			return -EINVAL;
		n++;
		q = z + 1;
	}
	if (q >= c->end)
		return -EINVAL;
	lt->dirs = calloc(n + 1, sizeof(*lt->dirs));
	if (!lt->dirs)
		return -ENOMEM;
	lt->dirs[lt->n_dirs++] = comp_dir;
	while (*c->p) {
		lt->dirs[lt->n_dirs++] = (const char *)c->p;
		c->p += strlen((const char *)c->p) + 1;
	}
	c->p++;
	if (c->p >= c->end)
		return -EINVAL;
	while (c->p < c->end && *c->p) {
		const char *fname = (const char *)c->p;
		const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
		uint64_t dir;
		int err;

		if (!z)
			return -EINVAL;
		c->p = z + 1;
		if (c->p >= c->end)
			return -EINVAL;
		dir = rd_uleb(c, &bad);
		if (dir >= lt->n_dirs)
			return -EINVAL;
		if (c->p >= c->end)
			return -EINVAL;
		rd_uleb(c, &bad); /* mtime */
		if (c->p >= c->end)
			return -EINVAL;
		rd_uleb(c, &bad); /* length */
		if (bad)
			return -EINVAL;
		err = add_file(lt, lt->dirs[dir], fname);
		if (err)
			return err;
	}
	if (c->p >= c->end || *c->p)
		return -EINVAL;
	c->p++;
	return 0;
}

static int read_header(struct line_table *lt, const struct lt_sections *sec, uint64_t offset,
		       unsigned int address_size, const char *comp_dir)
{
	struct cur c = {sec->line + offset, sec->line + sec->line_size};
	struct hdr_ctx h = {sec, 4};
	uint64_t unit_length, header_length;
	unsigned int version;
	const uint8_t *hdr_start, *hdr_end;
	int err;

	if (c.end - c.p < 4)
		return -EINVAL;
	unit_length = rd_fixed(c.p, 4);
	c.p += 4;
	if (unit_length == 0xffffffff) {
		if (c.end - c.p < 8)
			return -EINVAL;
		unit_length = rd_fixed(c.p, 8);
		c.p += 8;
		h.offset_size = 8;
	}
	if (unit_length > (uint64_t)(c.end - c.p))
		return -EINVAL;
	c.end = c.p + unit_length;
	lt->prog_end = (size_t)(c.end - sec->line);
	if (c.end - c.p < 2)
		return -EINVAL;
	version = (unsigned int)rd_fixed(c.p, 2);
	c.p += 2;
	if (version < 2 || version > 5)
		return -EINVAL;
	if (version >= 5) {
		if (c.end - c.p < 2)
			return -EINVAL;
		if (c.p[0] != address_size || c.p[1] != 0)
			return -EINVAL;
		c.p += 2;
	}
	if (c.end - c.p < h.offset_size)
		return -EINVAL;
	header_length = rd_fixed(c.p, h.offset_size);
	c.p += h.offset_size;
	hdr_start = c.p;
	if (c.end - c.p < 1)
		return -EINVAL;
	lt->min_inst = *c.p++;
	if (version >= 4) {
		if (c.end - c.p < 1 || *c.p == 0)
			return -EINVAL;
		if (*c.p != 1)
			return -ENOTSUP; /* VLIW operation indexes */
		c.p++;
	}
	if (c.end - c.p < 4)
		return -EINVAL;
	lt->default_is_stmt = *c.p++;
	lt->line_base = (int8_t)*c.p++;
	lt->line_range = *c.p++;
	lt->opcode_base = *c.p++;
	lt->std_len = c.p - 1;
	if (c.end - c.p < lt->opcode_base - 1)
		return -EINVAL;
	c.p += lt->opcode_base ? lt->opcode_base - 1 : 0;
	if (header_length > (uint64_t)(c.end - hdr_start))
		return -EINVAL;
	hdr_end = hdr_start + header_length;
	if (c.p > hdr_end)
		return -EINVAL;
	c.end = hdr_end;
	/* libdw's file 0: "???" until DWARF 5's first entry replaces it */
	err = add_file(lt, NULL, "???");
	if (!err)
		err = version < 5 ? read_v4_tables(lt, &c, comp_dir)
				  : read_entries(lt, &h, &c, false);
	if (!err && version >= 5)
		err = read_entries(lt, &h, &c, true);
	if (err)
		return err;
	if (c.end - c.p == 4) /* libdw skips a CUBIN string offset here */
		c.p += 4;
	if (c.p != hdr_end)
		return -EINVAL;
	lt->prog = (size_t)(hdr_end - sec->line);
	lt->address_size = address_size;
	return 0;
}

/* ---- the program ---------------------------------------------------------------------- */

struct state {
	uint64_t addr;
	int64_t line;
	uint32_t file, col;
	unsigned int isa;
};

/* What a pass does with rows: count sequences (scan) or keep one sequence's rows. */
struct pass {
	struct line_table *lt;
	bool scan;
	/* scan */
	struct lt_seq cur;
	size_t cap_seqs;
	uint32_t n_rows;
	/* decode */
	struct lt_drow *rows;
	size_t n, cap;
	uint64_t base; /* the sequence's lo */
};

static void key_max(uint64_t *a, uint32_t *idx, bool *end, uint64_t addr, uint32_t i, bool e)
{
	if (addr > *a || (addr == *a && (*end || !e))) {
		*a = addr;
		*idx = i;
		*end = e;
	}
}

static int emit(struct pass *ps, const struct state *st, bool end)
{
	if (st->line > INT_MAX || st->line < INT_MIN || st->col > 0xffff || st->isa > 0xff)
		return -EINVAL; /* libdw's fields cannot hold it: the whole table is invalid */
	if (st->file > 0x7fff)
		return -EINVAL; /* more than a row holds: the callers ask libdw instead */
	if (ps->scan) {
		struct lt_seq *s = &ps->cur;
		uint32_t idx = ps->n_rows++;

		if (!s->n_rows) {
			s->lo = s->hi = st->addr;
			s->first_row = idx;
			s->monotonic = true;
			s->tail_addr = st->addr;
			s->tail_idx = idx;
			s->tail_end = end;
		} else {
			if (st->addr < s->hi)
				s->monotonic = false;
			if (st->addr < s->lo)
				s->lo = st->addr;
			if (st->addr > s->hi)
				s->hi = st->addr;
			key_max(&s->tail_addr, &s->tail_idx, &s->tail_end, st->addr, idx, end);
		}
		s->n_rows++;
		return 0;
	}
	if (ps->n == ps->cap || st->addr < ps->base || st->addr - ps->base > UINT32_MAX)
		return -EINVAL; /* more rows than the scan counted, or out of its range: cannot be
				 */
	ps->rows[ps->n++] = (struct lt_drow){
		.off = (uint32_t)(st->addr - ps->base),
		.line = st->line > 0 ? (uint32_t)st->line : 0,
		.col = st->col,
		.file = st->file,
		.end = end,
	};
	return 0;
}

/* A sequence is over (end_sequence, or the program ends with rows pending). */
static int close_seq(struct pass *ps)
{
	struct line_table *lt = ps->lt;

	if (!ps->scan || !ps->cur.n_rows)
		return 0;
	if (ps->cur.hi - ps->cur.lo > UINT32_MAX)
		return -EINVAL; /* rows keep 32-bit offsets: left to libdw */
	/*
	 * Rows that go back in address are sorted once decoded (decode_seq); the greatest is
	 * then the last. Its number only needs to tell this sequence from the others.
	 */
	if (!ps->cur.monotonic)
		ps->cur.tail_idx = ps->cur.first_row + ps->cur.n_rows - 1;
	if (lt->n_seqs == ps->cap_seqs) {
		size_t nc = ps->cap_seqs ? 2 * ps->cap_seqs : 16;
		struct lt_seq *v = reallocarray(lt->seqs, nc, sizeof(*v));

		if (!v)
			return -ENOMEM;
		lt->seqs = v;
		ps->cap_seqs = nc;
	}
	lt->seqs[lt->n_seqs++] = ps->cur;
	return 0;
}

/* DW_LNE_define_file: one more file, after the header's (DWARF < 5). */
static int define_file(struct line_table *lt, struct cur *c, bool keep)
{
	const char *fname = (const char *)c->p;
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	bool bad = false;
	uint64_t dir;

	if (!z)
		return -EINVAL;
	c->p = z + 1;
	if (c->p >= c->end)
		return -EINVAL;
	dir = (uint32_t)rd_uleb(c, &bad);
	if (dir >= lt->n_dirs)
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		if (c->p >= c->end)
			return -EINVAL;
		rd_uleb(c, &bad);
	}
	if (bad)
		return -EINVAL;
	if (!keep)
		return 0;
	return add_file(lt, lt->dirs[dir], fname);
}

/*
 * Run the program from offset start: in a scan to its end, noting sequences; in a decode up to
 * and including the first end of sequence.
 */
static int run(struct pass *ps, size_t start)
{
	struct line_table *lt = ps->lt;
	struct cur c = {lt->sec + start, lt->sec + lt->prog_end};
	const uint8_t *std_len = lt->std_len;
	const uint8_t opbase = lt->opcode_base, range = lt->line_range;
	const struct state init = {.line = 1, .file = 1};
	struct state st = init;
	bool bad = false;
	int err;

	if (ps->scan)
		ps->cur = (struct lt_seq){.off = start};
	while (c.p < c.end) {
		uint8_t op = *c.p++;

		if (op >= opbase) {
			unsigned int adj = op - opbase;

			if (!range)
				return -EINVAL;
			st.line += lt->line_base + (int)(adj % range);
			st.addr += (uint64_t)lt->min_inst * (adj / range);
			err = emit(ps, &st, false);
			if (err)
				return err;
		} else if (op == 0) {
			size_t len;
			uint8_t sub;

			if (c.end - c.p < 2)
				return -EINVAL;
			len = *c.p++;
			if ((size_t)(c.end - c.p) < len)
				return -EINVAL;
			sub = *c.p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				err = emit(ps, &st, true);
				if (!err)
					err = close_seq(ps);
				if (err)
					return err;
				if (!ps->scan)
					return 0;
				st = init;
				ps->cur = (struct lt_seq){.off = (size_t)(c.p - lt->sec)};
				break;
			case DW_LNE_set_address:
				if ((size_t)(c.end - c.p) < lt->address_size)
					return -EINVAL;
				st.addr = rd_fixed(c.p, lt->address_size);
				c.p += lt->address_size;
				break;
			case DW_LNE_define_file:
				err = define_file(lt, &c, ps->scan);
				if (err)
					return err;
				break;
			case DW_LNE_set_discriminator:
				/* libdw checks a standard opcode's length here; with
				 * fewer than 4 of them it reads past the header: left to it */
				if (sub >= opbase || std_len[sub] != 1 || c.p >= c.end)
					return -EINVAL;
				rd_uleb(&c, &bad);
				break;
			default:
				/* len 0 steps back onto the sub-opcode, as libdw does */
				if ((size_t)(c.end - (c.p - 1)) < len)
					return -EINVAL;
				c.p += len;
				c.p -= 1;
				break;
			}
		} else if (op <= DW_LNS_set_isa) {
			static const uint8_t want[] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
			uint64_t u;

			if (std_len[op] != want[op])
				return -EINVAL;
			if (want[op] && op != DW_LNS_fixed_advance_pc && c.p >= c.end)
				return -EINVAL;
			switch (op) {
			case DW_LNS_copy:
				err = emit(ps, &st, false);
				if (err)
					return err;
				break;
			case DW_LNS_advance_pc:
				/* libdw computes the advance in 32 bits */
				u = (uint32_t)(lt->min_inst * (uint32_t)rd_uleb(&c, &bad));
				st.addr += u;
				break;
			case DW_LNS_advance_line:
				st.line += (int32_t)rd_sleb(&c, &bad);
				break;
			case DW_LNS_set_file:
				st.file = (uint32_t)rd_uleb(&c, &bad);
				break;
			case DW_LNS_set_column:
				st.col = (uint32_t)rd_uleb(&c, &bad);
				break;
			case DW_LNS_const_add_pc:
				if (!range)
					return -EINVAL;
				st.addr += (uint64_t)lt->min_inst * ((255u - opbase) / range);
				break;
			case DW_LNS_fixed_advance_pc:
				if (c.end - c.p < 2)
					return -EINVAL;
				st.addr += rd_fixed(c.p, 2);
				c.p += 2;
				break;
			case DW_LNS_set_isa:
				st.isa = (unsigned int)rd_uleb(&c, &bad);
				break;
			default: /* negate_stmt, basic_block, prologue_end, epilogue_begin */
				break;
			}
		} else {
			for (unsigned int k = std_len[op]; k > 0; k--) {
				if (c.p >= c.end)
					return -EINVAL;
				rd_uleb(&c, &bad);
			}
		}
		if (bad)
			return -EINVAL;
	}
	return close_seq(ps);
}

static int cmp_seq(const void *a, const void *b)
{
	const struct lt_seq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->first_row < y->first_row ? -1 : x->first_row > y->first_row;
}

int line_table__open(const struct lt_sections *sec, uint64_t offset, unsigned int address_size,
		     const char *comp_dir, struct line_table **out)
{
	const uint16_t probe = 1;
	struct line_table *lt;
	struct pass ps = {};
	bool top_end = true;
	int err;

	*out = NULL;
	if (*(const uint8_t *)&probe != 1)
		return -ENOTSUP; /* the readers above are little-endian */
	if (address_size != 4 && address_size != 8)
		return -ENOTSUP;
	if (!sec->line || offset >= sec->line_size)
		return -EINVAL;
	lt = calloc(1, sizeof(*lt));
	if (!lt)
		return -ENOMEM;
	lt->sec = sec->line;
	err = read_header(lt, sec, offset, address_size, comp_dir);
	ps.lt = lt;
	ps.scan = true;
	if (!err)
		err = run(&ps, lt->prog);
	if (err)
		goto fail;
	if (lt->n_seqs > 1)
		qsort(lt->seqs, lt->n_seqs, sizeof(*lt->seqs), cmp_seq);
	lt->pmax_hi = calloc(lt->n_seqs + 1, sizeof(*lt->pmax_hi));
	if (!lt->pmax_hi) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < lt->n_seqs; i++) {
		const struct lt_seq *s = &lt->seqs[i];

		lt->pmax_hi[i] = i && lt->pmax_hi[i - 1] > s->hi ? lt->pmax_hi[i - 1] : s->hi;
		if (i == 0)
			lt->top_addr = s->tail_addr, lt->top_idx = s->tail_idx,
			top_end = s->tail_end;
		else
			key_max(&lt->top_addr, &lt->top_idx, &top_end, s->tail_addr, s->tail_idx,
				s->tail_end);
	}
	*out = lt;
	return 0;
fail:
	line_table__free(lt);
	return err;
}

size_t line_table__trim(struct line_table *lt, bool all)
{
	size_t n = 0;

	if (!lt)
		return 0;
	for (size_t i = 0; i < lt->n_seqs; i++) {
		struct lt_seq *s = &lt->seqs[i];

		if (!s->rows || (!all && s->used == lt->epoch))
			continue;
		n += s->n_rows;
		free(s->rows);
		s->rows = NULL;
	}
	lt->held -= n;
	lt->epoch++;
	return n;
}

size_t line_table__held(const struct line_table *lt)
{
	return lt ? lt->held : 0;
}

void line_table__free(struct line_table *lt)
{
	if (!lt)
		return;
	line_table__trim(lt, true);
	free(lt->seqs);
	free(lt->pmax_hi);
	free(lt->files);
	free(lt->fdirs);
	free(lt->dirs);
	while (lt->blocks) {
		struct lt_block *b = lt->blocks;

		lt->blocks = b->next;
		free(b);
	}
	free(lt);
}

size_t line_table__n_files(const struct line_table *lt)
{
	return lt->n_files;
}

const char *line_table__file(struct line_table *lt, size_t i)
{
	if (i >= lt->n_files)
		return NULL;
	if (lt->fdirs[i]) {
		const char *name = join(lt, lt->fdirs[i], lt->files[i]);

		if (!name)
			return NULL;
		lt->files[i] = name;
		lt->fdirs[i] = NULL;
	}
	return lt->files[i];
}

/* A row and its place in the program, for sorting in libdw's order. */
struct sort_row {
	struct lt_drow r;
	uint32_t pos;
};

static int cmp_sort_row(const void *a, const void *b)
{
	const struct sort_row *x = a, *y = b;

	if (x->r.off != y->r.off)
		return x->r.off < y->r.off ? -1 : 1;
	if (x->r.end != y->r.end)
		return x->r.end ? -1 : 1; /* ends first at one address */
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Rows of a sequence that goes back in address, in libdw's order, so that lookups stay binary
 * searches (a linear scan per lookup would let one crafted sequence cost rows x lookups).
 */
static int sort_rows(struct lt_drow *rows, uint32_t n)
{
	struct sort_row *v = calloc((size_t)n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = (struct sort_row){rows[i], i};
	qsort(v, n, sizeof(*v), cmp_sort_row);
	for (uint32_t i = 0; i < n; i++)
		rows[i] = v[i].r;
	free(v);
	return 0;
}

static int decode_seq(struct line_table *lt, struct lt_seq *s)
{
	struct pass ps = {.lt = lt, .cap = s->n_rows, .base = s->lo};
	int err;

	/* the scan counted the rows */
	ps.rows = malloc((ps.cap + 1) * sizeof(*ps.rows));
	if (!ps.rows)
		return -ENOMEM;
	err = run(&ps, s->off);

	if (!err && ps.n != s->n_rows)
		err = -EINVAL;
	if (!err && !s->monotonic)
		err = sort_rows(ps.rows, s->n_rows);
	if (err) {
		free(ps.rows);
		return err;
	}
	s->rows = ps.rows;
	lt->held += s->n_rows;
	return 0;
}

/* Is (a, end a_end, row a_idx) after (b, ...) in libdw's order? */
static bool after(uint64_t a, bool a_end, uint32_t a_idx, uint64_t b, bool b_end, uint32_t b_idx)
{
	if (a != b)
		return a > b;
	if (a_end != b_end)
		return b_end;
	return a_idx > b_idx;
}

int line_table__find(struct line_table *lt, uint64_t addr, struct lt_row *row)
{
	size_t lo = 0, hi = lt->n_seqs;
	uint64_t best = 0;
	uint32_t best_idx = 0;
	bool best_end = false, found = false;
	const struct lt_drow *best_row = NULL;
	uint64_t best_lo = 0; /* best_row's sequence's lo */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lt->seqs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* every sequence starting at or below addr may hold the row; stop when none can */
	for (size_t j = lo; j > 0; j--) {
		struct lt_seq *s = &lt->seqs[j - 1];
		const struct lt_drow *r = NULL;
		uint32_t idx = 0;

		if (found && lt->pmax_hi[j - 1] < best)
			break;
		if (s->hi <= addr) {
			if (!found || after(s->tail_addr, s->tail_end, s->tail_idx, best, best_end,
					    best_idx)) {
				best = s->tail_addr;
				best_end = s->tail_end;
				best_idx = s->tail_idx;
				best_row = NULL;
				found = true;
			}
			continue;
		}
		if (!s->rows) {
			int err = decode_seq(lt, s);

			if (err)
				return err;
		}
		s->used = lt->epoch;
		/* rows by address (decode_seq sorted those that were not): a binary search */
		{
			size_t a = 0, b = s->n_rows;

			while (a < b) {
				size_t mid = a + (b - a) / 2;

				if (s->lo + s->rows[mid].off <= addr)
					a = mid + 1;
				else
					b = mid;
			}
			if (a) {
				r = &s->rows[a - 1];
				idx = s->first_row + (uint32_t)(a - 1);
			}
		}
		if (r && (!found || after(s->lo + r->off, r->end, idx, best, best_end, best_idx))) {
			best = s->lo + r->off;
			best_end = r->end;
			best_idx = idx;
			best_row = r;
			best_lo = s->lo;
			found = true;
		}
	}
	if (!found || best_end || (best == lt->top_addr && best_idx == lt->top_idx))
		return -ENOENT;
	if (!best_row) {
		/* a non-end tail row of a sequence that ends at or below addr: decode it */
		for (size_t j = 0; j < lt->n_seqs; j++) {
			struct lt_seq *s = &lt->seqs[j];

			if (best_idx < s->first_row || best_idx >= s->first_row + s->n_rows)
				continue;
			if (!s->rows) {
				int err = decode_seq(lt, s);

				if (err)
					return err;
			}
			s->used = lt->epoch;
			best_row = &s->rows[best_idx - s->first_row];
			best_lo = s->lo;
			break;
		}
		if (!best_row)
			return -ENOENT;
	}
	*row = (struct lt_row){best_lo + best_row->off, best_row->line, best_row->col,
			       best_row->file};
	return 0;
}
