// SPDX-License-Identifier: GPL-2.0
/*
 * Go's pclntab, read from a copy of the section. Layout facts from Go's sources: debug/gosym
 * (pclntab.go: the header words and _func fields of each version), runtime/symtab.go (pcvalue
 * encoding, inlinedCall, moduledata), cmd/link/internal/ld/pcln.go.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "elf/gopclntab.h"
#include "util/leb128.h"

#define GOPCLN_MAX_SIZE	  (512u << 20) /* a table larger than this is not read */
#define GOFUNC_MAX_SIZE	  (512u << 20)
#define PCVALUE_MAX_STEPS (1u << 20) /* per walk: a function has far fewer pc-value rows */
#define INLINE_MAX_DEPTH  32

/* runtime/symtab.go: _PCDATA_InlTreeIndex, _FUNCDATA_InlTree */
#define PCDATA_INLTREE	 2
#define FUNCDATA_INLTREE 3

struct gopclntab {
	uint8_t *tab;
	size_t size;
	uint8_t *gofunc;
	size_t gofunc_size;
	enum gopclntab_layout layout;
	unsigned int ptrsize;
	unsigned int quantum;
	uint64_t nfunc;
	uint64_t text; /* text start (1.18+) */
	/* table offsets: names, CU file indexes, file names, pc-value data, function table */
	uint64_t nameoff, cuoff, fileoff, pcoff, funcoff;
	uint64_t nfiles; /* 1.2: entries of the file table */
	char build_id[128];
	char version[64];
	struct go_runtime_offsets dwarf_off; /* from the object's DWARF, when the table has none */
	bool has_dwarf_off;
	uint8_t tls_slot; /* gopclntab__tls_slot of the ELF it was read from */
};

/* n bytes at off of a buffer of size size: in it, without overflow. */
static bool in(size_t size, uint64_t off, uint64_t n)
{
	return off <= size && n <= size - off;
}

static uint64_t rd(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	/* little-endian only: Go's amd64 and arm64 */
	for (unsigned int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The word of size n at off, or 0 when it is not inside the table (*ok false). */
static uint64_t word(const struct gopclntab *gt, uint64_t off, unsigned int n, bool *ok)
{
	if (!in(gt->size, off, n)) {
		*ok = false;
		return 0;
	}
	return rd(gt->tab + off, n);
}

/* The NUL-terminated string at off of the table, or NULL. */
static const char *str_at(const struct gopclntab *gt, uint64_t off)
{
	if (off >= gt->size || !memchr(gt->tab + off, 0, gt->size - off))
		return NULL;
	return (const char *)gt->tab + off;
}

static int parse_header(struct gopclntab *gt, uint64_t text_vaddr)
{
	uint32_t magic;
	unsigned int ps;
	bool ok = true;

	if (gt->size < 16)
		return -ENOEXEC;
	magic = (uint32_t)rd(gt->tab, 4);
	if (gt->tab[4] || gt->tab[5])
		return -ENOEXEC;
	gt->quantum = gt->tab[6];
	gt->ptrsize = ps = gt->tab[7];
	if ((ps != 4 && ps != 8) || (gt->quantum != 1 && gt->quantum != 2 && gt->quantum != 4))
		return -ENOEXEC;
	switch (magic) {
	case 0xfffffffb:
		gt->layout = GOPCLN_12;
		break;
	case 0xfffffffa:
		gt->layout = GOPCLN_116;
		break;
	case 0xfffffff0:
		gt->layout = GOPCLN_118;
		break;
	case 0xfffffff1:
		gt->layout = GOPCLN_120;
		break;
	default:
		return -ENOEXEC;
	}
	gt->nfunc = word(gt, 8, ps, &ok);
	if (gt->layout == GOPCLN_12) {
		uint64_t ftab = 8 + ps, end = ftab + (gt->nfunc * 2 + 1) * ps;

		/* after the function table, the file table's offset */
		if (gt->nfunc > gt->size)
			return -ENOEXEC;
		gt->funcoff = ftab;
		gt->fileoff = word(gt, end, 4, &ok);
		gt->nfiles = word(gt, gt->fileoff, 4, &ok);
		gt->nameoff = gt->pcoff = 0;
		gt->text = text_vaddr;
		return ok && in(gt->size, ftab, end - ftab) ? 0 : -ENOEXEC;
	}
	/* 1.16: nfunc, nfiles, then 5 offsets; 1.18 puts the text start before them */
	{
		unsigned int w = 8 + 2 * ps;

		if (gt->layout >= GOPCLN_118) {
			gt->text = word(gt, w, ps, &ok);
			w += ps;
			if (!gt->text)
				gt->text = text_vaddr;
		}
		gt->nameoff = word(gt, w, ps, &ok);
		gt->cuoff = word(gt, w + ps, ps, &ok);
		gt->fileoff = word(gt, w + 2 * ps, ps, &ok);
		gt->pcoff = word(gt, w + 3 * ps, ps, &ok);
		gt->funcoff = word(gt, w + 4 * ps, ps, &ok);
	}
	{
		unsigned int fs = gt->layout >= GOPCLN_118 ? 4 : ps;

		if (!ok || gt->nfunc > gt->size ||
		    !in(gt->size, gt->funcoff, (gt->nfunc * 2 + 1) * fs) ||
		    gt->nameoff > gt->size || gt->cuoff > gt->size || gt->fileoff > gt->size ||
		    gt->pcoff > gt->size)
			return -ENOEXEC;
	}
	return 0;
}

struct gopclntab *gopclntab__new(const void *tab, size_t size, uint64_t text_vaddr)
{
	struct gopclntab *gt = NULL;
	int err = -ENOEXEC;

	if (!tab || size > GOPCLN_MAX_SIZE)
		goto out;
	err = -ENOMEM;
	gt = calloc(1, sizeof(*gt));
	if (!gt || !(gt->tab = malloc(size ? size : 1)))
		goto out;
	memcpy(gt->tab, tab, size);
	gt->size = size;
	err = parse_header(gt, text_vaddr);
out:
	if (err) {
		gopclntab__free(gt);
		gt = NULL;
		errno = -err;
	}
	return gt;
}

int gopclntab__set_gofunc(struct gopclntab *gt, const void *data, size_t size)
{
	uint8_t *copy;

	if (gt->layout < GOPCLN_118 || size > GOFUNC_MAX_SIZE)
		return -EINVAL;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	free(gt->gofunc);
	gt->gofunc = copy;
	gt->gofunc_size = size;
	return 0;
}

void gopclntab__free(struct gopclntab *gt)
{
	if (!gt)
		return;
	free(gt->tab);
	free(gt->gofunc);
	free(gt);
}

enum gopclntab_layout gopclntab__layout(const struct gopclntab *gt)
{
	return gt->layout;
}

size_t gopclntab__count(const struct gopclntab *gt)
{
	return gt->nfunc;
}

const char *gopclntab__build_id(const struct gopclntab *gt)
{
	return gt->build_id;
}

const char *gopclntab__go_version(const struct gopclntab *gt)
{
	return gt->version;
}

/* Entry address of function table slot i (i <= nfunc: the last is the end of the text). */
static uint64_t entry_at(const struct gopclntab *gt, uint64_t i, bool *ok)
{
	if (gt->layout >= GOPCLN_118)
		return gt->text + word(gt, gt->funcoff + i * 8, 4, ok);
	return word(gt, gt->funcoff + i * 2 * gt->ptrsize, gt->ptrsize, ok);
}

/* Offset in the table of function i's _func, or 0 when it is outside. */
static uint64_t func_off(const struct gopclntab *gt, uint64_t i)
{
	bool ok = true;
	uint64_t off;

	if (gt->layout >= GOPCLN_118)
		off = gt->funcoff + word(gt, gt->funcoff + i * 8 + 4, 4, &ok);
	else if (gt->layout == GOPCLN_116)
		off = gt->funcoff +
		      word(gt, gt->funcoff + (i * 2 + 1) * gt->ptrsize, gt->ptrsize, &ok);
	else
		off = word(gt, gt->funcoff + (i * 2 + 1) * gt->ptrsize, gt->ptrsize, &ok);
	/* the fixed part of _func, up to nfuncdata, must be inside */
	return ok && in(gt->size, off, 44) ? off : 0;
}

/* _func field n (debug/gosym funcData.field: 1 nameoff ... 8 cuOffset), 32 bits. */
static uint32_t field(const struct gopclntab *gt, uint64_t fo, unsigned int n)
{
	unsigned int first = gt->layout >= GOPCLN_118 ? 4 : gt->ptrsize;

	return (uint32_t)rd(gt->tab + fo + first + (n - 1) * 4, 4);
}

static const char *func_name(const struct gopclntab *gt, uint64_t fo)
{
	uint32_t off = field(gt, fo, 1);

	return str_at(gt, gt->layout == GOPCLN_12 ? off : gt->nameoff + off);
}

bool gopclntab__func_at(const struct gopclntab *gt, size_t i, struct go_func *out)
{
	bool ok = true;
	uint64_t fo;

	if (i >= gt->nfunc || !(fo = func_off(gt, i)))
		return false;
	out->entry = entry_at(gt, i, &ok);
	out->end = entry_at(gt, i + 1, &ok);
	out->name = func_name(gt, fo);
	out->index = i;
	out->flag = gt->layout == GOPCLN_120   ? gt->tab[fo + 41]
		    : gt->layout == GOPCLN_118 ? gt->tab[fo + 37]
					       : 0;
	return ok && out->name && out->end > out->entry;
}

/* The slot of the function holding vaddr, or -1. */
static int64_t find(const struct gopclntab *gt, uint64_t vaddr)
{
	uint64_t lo = 0, hi = gt->nfunc;
	bool ok = true;

	if (!gt->nfunc || vaddr < entry_at(gt, 0, &ok) || vaddr >= entry_at(gt, gt->nfunc, &ok))
		return -1;
	/* the last entry <= vaddr */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (entry_at(gt, mid, &ok) <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return ok ? (int64_t)lo : -1;
}

bool gopclntab__func(const struct gopclntab *gt, uint64_t vaddr, struct go_func *out)
{
	int64_t i = find(gt, vaddr);

	return i >= 0 && gopclntab__func_at(gt, i, out);
}

/* Offset in the table of pc-value table off (a _func field), 0 when none. */
static uint64_t pctab(const struct gopclntab *gt, uint32_t off)
{
	if (!off)
		return 0;
	return gt->layout == GOPCLN_12 ? off : gt->pcoff + off;
}

/*
 * Walk the pc-value table at off for a function starting at entry: fn(ctx, start, end, value)
 * for each row, until fn returns non-zero (returned) or the table ends (0). -ENOENT: no table.
 */
static int pcvalue_walk(const struct gopclntab *gt, uint64_t off, uint64_t entry,
			int (*fn)(void *, uint64_t, uint64_t, int32_t), void *ctx)
{
	const uint8_t *p, *end = gt->tab + gt->size;
	uint64_t pc = entry;
	int32_t val = -1;

	if (!off || off >= gt->size)
		return -ENOENT;
	p = gt->tab + off;
	for (unsigned int step = 0; step < PCVALUE_MAX_STEPS; step++) {
		bool trunc = false;
		uint64_t uv = leb128_u(&p, end, &trunc), pcd;
		uint32_t u = (uint32_t)uv;
		int err;

		if (trunc || (u == 0 && step))
			return 0;
		/* zig-zag; a value that wraps is the table's nonsense, not undefined behaviour */
		val = (int32_t)((uint32_t)val + ((u & 1) ? ~(u >> 1) : (u >> 1)));
		pcd = leb128_u(&p, end, &trunc);
		if (trunc || !pcd)
			return 0;
		err = fn(ctx, pc, pc + pcd * gt->quantum, val);
		if (err)
			return err;
		pc += pcd * gt->quantum;
	}
	return 0;
}

struct pc_find {
	uint64_t pc;
	int32_t val;
	bool found;
};

static int find_row(void *ctx, uint64_t start, uint64_t end, int32_t val)
{
	struct pc_find *f = ctx;

	if (f->pc < start)
		return 1;
	if (f->pc < end) {
		f->val = val;
		f->found = true;
		return 1;
	}
	return 0;
}

/* The value of pc-value table field n of _func fo at pc: 0 or -ENOENT. */
static int pcvalue(const struct gopclntab *gt, uint64_t fo, uint64_t entry, uint32_t tab,
		   uint64_t pc, int32_t *val)
{
	struct pc_find f = {.pc = pc};

	pcvalue_walk(gt, pctab(gt, tab), entry, find_row, &f);
	if (!f.found)
		return -ENOENT;
	(void)fo;
	*val = f.val;
	return 0;
}

int gopclntab__sp_delta(const struct gopclntab *gt, uint64_t vaddr, int32_t *delta)
{
	int64_t i = find(gt, vaddr);
	bool ok = true;
	uint64_t fo, entry;

	if (i < 0 || !(fo = func_off(gt, i)))
		return -ENOENT;
	entry = entry_at(gt, i, &ok);
	return pcvalue(gt, fo, entry, field(gt, fo, 4), vaddr, delta);
}

struct rows_ctx {
	gopclntab_row_fn fn;
	void *ctx;
	size_t left;
	uint64_t limit;
};

static int one_row(void *ctx, uint64_t start, uint64_t end, int32_t val)
{
	struct rows_ctx *r = ctx;

	if (!r->left-- || start >= r->limit)
		return 1;
	return r->fn(r->ctx, start, end < r->limit ? end : r->limit, val);
}

int gopclntab__sp_rows(const struct gopclntab *gt, size_t i, size_t max_rows, gopclntab_row_fn fn,
		       void *ctx)
{
	struct go_func f;
	struct rows_ctx r = {fn, ctx, max_rows, 0};
	uint64_t fo;
	int err;

	if (!gopclntab__func_at(gt, i, &f) || !(fo = func_off(gt, i)))
		return -ENOENT;
	r.limit = f.end;
	err = pcvalue_walk(gt, pctab(gt, field(gt, fo, 4)), f.entry, one_row, &r);
	return err == 1 ? 0 : err;
}

/* The name of file number fno of the CU at cu (1.16+) or of the table (1.2), or NULL. */
static const char *file_name(const struct gopclntab *gt, uint32_t cu, int32_t fno)
{
	bool ok = true;
	uint64_t off;

	if (fno < 0)
		return NULL;
	if (gt->layout == GOPCLN_12) {
		if ((uint64_t)fno >= gt->nfiles)
			return NULL;
		off = word(gt, gt->fileoff + 4 * (uint64_t)fno, 4, &ok);
		return ok ? str_at(gt, off) : NULL;
	}
	if (cu == UINT32_MAX)
		return NULL;
	off = word(gt, gt->cuoff + 4 * ((uint64_t)cu + (uint64_t)fno), 4, &ok);
	if (!ok || off == UINT32_MAX)
		return NULL;
	return str_at(gt, gt->fileoff + off);
}

/* The file and line at pc of _func fo. */
static void position(const struct gopclntab *gt, uint64_t fo, uint64_t entry, uint64_t pc,
		     struct go_frame *f)
{
	int32_t fno, line;

	f->file = NULL;
	f->line = 0;
	if (!pcvalue(gt, fo, entry, field(gt, fo, 5), pc, &fno))
		f->file = file_name(gt, gt->layout == GOPCLN_12 ? 0 : field(gt, fo, 8), fno);
	if (!pcvalue(gt, fo, entry, field(gt, fo, 6), pc, &line) && line > 0)
		f->line = (uint32_t)line;
}

/*
 * The inline tree of _func fo (1.18+): the offset of its first entry in gofunc, and the offset of
 * its pcdata 2 table; false when it has none.
 */
static bool inline_tree(const struct gopclntab *gt, uint64_t fo, uint64_t *tree, uint32_t *pcd)
{
	uint64_t base = gt->layout == GOPCLN_120 ? 44 : 40, npcdata, nfuncdata;
	bool ok = true;
	uint64_t fd;

	if (gt->layout < GOPCLN_118 || !gt->gofunc)
		return false;
	npcdata = field(gt, fo, 7);
	nfuncdata = gt->tab[fo + base - 1];
	if (npcdata <= PCDATA_INLTREE || nfuncdata <= FUNCDATA_INLTREE)
		return false;
	*pcd = (uint32_t)word(gt, fo + base + 4 * PCDATA_INLTREE, 4, &ok);
	fd = word(gt, fo + base + 4 * npcdata + 4 * FUNCDATA_INLTREE, 4, &ok);
	if (!ok || !*pcd || fd == UINT32_MAX || fd >= gt->gofunc_size)
		return false;
	*tree = fd;
	return true;
}

int gopclntab__frames(const struct gopclntab *gt, uint64_t vaddr, struct go_frame *out, size_t max,
		      size_t *n)
{
	unsigned int isz = gt->layout == GOPCLN_120 ? 16 : 20;
	int64_t i = find(gt, vaddr);
	uint64_t fo, entry, tree, pc = vaddr;
	bool ok = true;
	uint32_t pcd;
	size_t k = 0;

	*n = 0;
	if (!max)
		return -EINVAL;
	if (i < 0 || !(fo = func_off(gt, i)))
		return 0;
	entry = entry_at(gt, i, &ok);
	if (inline_tree(gt, fo, &tree, &pcd)) {
		/* innermost first: each entry's parentPc is an instruction at its call site */
		while (k + 1 < max && k < INLINE_MAX_DEPTH) {
			struct pc_find f = {.pc = pc};
			uint64_t e;
			uint32_t nameoff, parent;

			pcvalue_walk(gt, pctab(gt, pcd), entry, find_row, &f);
			if (!f.found || f.val < 0)
				break;
			e = tree + (uint64_t)f.val * isz;
			if (!in(gt->gofunc_size, e, isz))
				break;
			/* 1.20: funcID, pad[3], nameOff, parentPc; 1.18: parent, funcID, pad,
			 * file, line, func_, parentPc */
			nameoff = (uint32_t)rd(gt->gofunc + e + (isz == 16 ? 4 : 12), 4);
			parent = (uint32_t)rd(gt->gofunc + e + (isz == 16 ? 8 : 16), 4);
			out[k].name = str_at(gt, gt->nameoff + nameoff);
			if (!out[k].name)
				break;
			position(gt, fo, entry, pc, &out[k]);
			out[k].inlined = true;
			k++;
			pc = entry + parent;
		}
	}
	out[k].name = func_name(gt, fo);
	if (!out[k].name) {
		*n = 0;
		return 0;
	}
	position(gt, fo, entry, pc, &out[k]);
	out[k].inlined = false;
	*n = k + 1;
	return 0;
}

/*
 * The minor version of a released Go ("go1.19", "go1.21.11", "go1.21.11 X:exp"): 0 for anything
 * else, development and pre-release builds among them ("go1.22-20231128-RC02", "go1.22rc1",
 * "devel ..."), whose structures may differ from the release's.
 */
static unsigned int release_minor(const char *v)
{
	unsigned int minor = 0, n = 0;

	if (strncmp(v, "go1.", 4))
		return 0;
	for (v += 4; *v >= '0' && *v <= '9' && n < 3; v++, n++)
		minor = minor * 10 + (unsigned int)(*v - '0');
	if (!n || n == 3)
		return 0;
	if (*v == '.') {
		size_t digits = strspn(v + 1, "0123456789");

		if (!digits || digits > 3)
			return 0;
		v += 1 + digits;
	}
	return *v == 0 || *v == ' ' ? minor : 0;
}

/*
 * amd64 offsets by Go release (runtime/runtime2.go of each: g.m and g.sched follow stack,
 * stackguard0/1, _panic, _defer in every release here; gobuf is sp, pc, g, ctxt, ret, lr, bp
 * until 1.24, without ret from 1.25, so bp moves from 48 to 40 and m.curg, after m.morebuf
 * (a gobuf), from 192 to 184). Sources of each row:
 *   1.17  runtime2.go go1.17.13, laid out by hand (m.fastrand [2]uint32, doesPark, mFixup)
 *   1.18  runtime2.go go1.18, by hand: the fields up to vdsoSP as 1.19's
 *   1.19  DWARF of Go 1.19.8 programs (Debian bookworm), and the machine code of its stripped
 *         toolchain (runtime.systemstack, gosave_systemstack_switch, runtime.nanotime1)
 *   1.20  runtime2.go go1.20.6, by hand: 1.19's plus m.isextra (a bool in padding)
 *   1.21  machine code of a stripped go1.21.11 program; DWARF of go1.21.13 programs (Debian)
 *   1.22  machine code of a stripped go1.22.12 program (a 1.22 pre-release differs: 1104);
 *         DWARF of go1.22.12 programs (Debian)
 *   1.23  machine code of stripped go1.23.1, go1.23.3 and go1.23.8 programs; DWARF of
 *         go1.23.5 programs (Debian)
 *   1.24  DWARF of a go1.24.3 program, machine code of it and of a stripped go1.24.4 one
 *   1.25+ the OTel eBPF profiler's Go offsets (interpreter/go/offsets.go: m.curg 184,
 *         g.sched.bp 96 for 1.25 and 1.26) and runtime2.go go1.25.3; m.vdsoSP not known (0:
 *         no vDSO linkage without DWARF)
 * g.labels (runtime/pprof's labels): 360 in the DWARF of Go 1.19.8, 344 in that of go1.21.13
 * and go1.22.12, 352 in that of go1.23.5 (Debian bookworm-backports' golang-1.2x-go: the
 * fixtures built by `make unit-go-extra`, whose test_dwarf_offsets compares); for the other
 * releases the OTel profiler's (Labels: 360 from 1.17, 344 in 1.25, 352 in 1.26), unchecked.
 * (scripts/go-offsets-check.sh compares a program's rows with its machine code.)
 */
static const struct {
	unsigned int first, last; /* minor versions */
	struct go_runtime_offsets off;
} go_offsets[] = {
	{17, 17, {48, 56, 192, 832, 48, 360}}, {18, 20, {48, 56, 192, 800, 48, 360}},
	{21, 21, {48, 56, 192, 808, 48, 344}}, {22, 22, {48, 56, 192, 1120, 48, 344}},
	{23, 23, {48, 56, 192, 856, 48, 352}}, {24, 24, {48, 56, 192, 880, 48, 352}},
	{25, 25, {48, 56, 184, 0, 40, 344}},   {26, 26, {48, 56, 184, 0, 40, 352}},
};

int gopclntab__offsets_for(const char *version, struct go_runtime_offsets *out)
{
	unsigned int minor = release_minor(version);

	for (size_t i = 0; i < sizeof(go_offsets) / sizeof(go_offsets[0]); i++)
		if (minor >= go_offsets[i].first && minor <= go_offsets[i].last) {
			*out = go_offsets[i].off;
			return 0;
		}
	return -ENOENT;
}

int gopclntab__runtime_offsets(const struct gopclntab *gt, struct go_runtime_offsets *out)
{
	/* the program's own DWARF first: exact for any version, pre-releases too */
	if (gt->has_dwarf_off) {
		*out = gt->dwarf_off;
		return 0;
	}
	return gopclntab__offsets_for(gt->version, out);
}

/* The data_member_location of member name of structure die, or -1. */
static int64_t member_offset(Dwarf_Die *die, const char *name)
{
	Dwarf_Die m;

	if (dwarf_child(die, &m))
		return -1;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w;
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member || !(n = dwarf_diename(&m)) || strcmp(n, name))
			continue;
		if (!dwarf_attr(&m, DW_AT_data_member_location, &a) || dwarf_formudata(&a, &w) ||
		    w > 0xffff)
			return -1;
		return (int64_t)w;
	} while (!dwarf_siblingof(&m, &m));
	return -1;
}

int gopclntab__dwarf_offsets(Elf *elf, struct go_runtime_offsets *out)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	int64_t gm = -1, gs = -1, mc = -1, mv = -1, bp = -1, gl = -1;
	Dwarf_Off off = 0, next;
	size_t hsize, cus = 0;

	if (!dw)
		return -ENOENT;
	/* the runtime's types are in one CU; at most 100000 CUs looked at */
	while (cus++ < 100000 && (gm < 0 || mc < 0 || bp < 0) &&
	       !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_child(&cu, &d)) {
			do {
				const char *n;

				if (dwarf_tag(&d) != DW_TAG_structure_type ||
				    !(n = dwarf_diename(&d)))
					continue;
				if (!strcmp(n, "runtime.g")) {
					gm = member_offset(&d, "m");
					gs = member_offset(&d, "sched");
					gl = member_offset(&d, "labels");
				} else if (!strcmp(n, "runtime.m")) {
					mc = member_offset(&d, "curg");
					mv = member_offset(&d, "vdsoSP");
				} else if (!strcmp(n, "runtime.gobuf")) {
					bp = member_offset(&d, "bp");
				}
			} while ((gm < 0 || mc < 0 || bp < 0) && !dwarf_siblingof(&d, &d));
		}
		off = next;
	}
	dwarf_end(dw);
	if (gm < 0 || gs < 0 || mc < 0 || bp < 0 || gm % 8 || gs % 8 || bp % 8 || gm > 2040 ||
	    gs > 2040 || bp > 56 || mc > 4095)
		return -ENOENT;
	*out = (struct go_runtime_offsets){.g_m = (uint32_t)gm,
					   .g_sched = (uint32_t)gs,
					   .m_curg = (uint32_t)mc,
					   .m_vdsosp = mv > 0 && mv <= 4095 ? (uint32_t)mv : 0,
					   .gobuf_bp = (uint32_t)bp,
					   .g_labels = gl > 0 ? (uint32_t)gl : 0};
	return 0;
}

/* The minor version of "go1.N..." (N), or -1. */
static int go_minor(const char *v)
{
	char *end;
	long n;

	if (strncmp(v, "go1.", 4) || !isdigit((unsigned char)v[4]))
		return -1;
	n = strtol(v + 4, &end, 10);
	return n > 0 && n < 1000 && (*end == '.' || *end == 0 || isalpha((unsigned char)*end))
		       ? (int)n
		       : -1;
}

int gopclntab__labels_layout(const struct gopclntab *gt)
{
	return gopclntab_labels_layout_for(gt->version);
}

int gopclntab_labels_layout_for(const char *go_version)
{
	int minor = go_minor(go_version);

	/*
	 * runtime/pprof/label.go: `type labelMap map[string]string` up to go1.23; go1.24 made it
	 * labelMap{LabelSet}, a sorted []label (and switched maps to Swiss tables).
	 */
	if (minor < 0)
		return 0;
	return minor < 24 ? GO_LABELS_MAP : GO_LABELS_SLICE;
}

/*
 * Where a Go program keeps g: fsbase - 8 without a PT_TLS (internal linking: runtime.tlsg at
 * -8, cmd/link) or with one of 8 bytes, Go's slot alone (cgo: the executable's TLS block ends
 * at fsbase, the x86-64 TLS ABI); 0 (unknown) when C code adds TLS of its own, and for shared
 * objects (an executable: ET_EXEC, or a PIE with its interpreter).
 */
uint8_t gopclntab__tls_slot(Elf *elf)
{
	uint64_t tls_size = 0, tls_align = 0;
	bool exe = false;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(elf, &n) || !gelf_getehdr(elf, &eh))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_TLS) {
			tls_size = ph.p_memsz;
			tls_align = ph.p_align;
		}
		exe = exe || ph.p_type == PT_INTERP;
	}
	/* a Go shared object (-buildmode=c-shared) has its TLS elsewhere: only executables */
	if (eh.e_type != ET_EXEC && !exe)
		return 0;
	return tls_size <= 8 && tls_align <= 8 ? 1 : 0;
}

/* ---- from an ELF file ------------------------------------------------------------------- */

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

static Elf_Scn *section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		const char *n;

		if (!gelf_getshdr(s, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

static Elf_Data *section_data(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *s = section(elf, shstrndx, name, sh);

	if (!s || sh->sh_type == SHT_NOBITS)
		return NULL;
	return elf_getdata(s, NULL);
}

/* The value of the R_X86_64_RELATIVE relocation at vaddr (PIE: the file holds 0 there). */
static bool relocated(Elf *elf, size_t shstrndx, uint64_t vaddr, uint64_t *val)
{
	GElf_Shdr sh;
	Elf_Data *d = section_data(elf, shstrndx, ".rela.dyn", &sh);
	size_t n;

	if (!d || sh.sh_entsize != sizeof(Elf64_Rela))
		return false;
	n = d->d_size / sizeof(Elf64_Rela);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;

		if (gelf_getrela(d, (int)i, &r) && r.r_offset == vaddr) {
			*val = (uint64_t)r.r_addend;
			return true;
		}
	}
	return false;
}

/* The pointer-size word at vaddr of the section holding it, relocations applied. */
static bool read_ptr(Elf *elf, size_t shstrndx, uint64_t vaddr, uint64_t *val)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr + 8 > sh.sh_size)
			continue;
		d = elf_getdata(s, NULL);
		if (!d || vaddr - sh.sh_addr + 8 > d->d_size)
			return false;
		*val = rd((const uint8_t *)d->d_buf + (vaddr - sh.sh_addr), 8);
		if (!*val)
			return relocated(elf, shstrndx, vaddr, val);
		return true;
	}
	return false;
}

/*
 * The runtime's firstmoduledata: the word that points at the table's start, in the sections
 * that may hold it (.noptrdata; .data.rel.ro in PIE, where it is a relocation). Its gofunc
 * field (runtime/symtab.go moduledata: after 38 words in 1.18-1.19, 40 from 1.20 with covctrs)
 * locates go:func.*.
 */
static void find_gofunc(struct gopclntab *gt, Elf *elf, size_t shstrndx, uint64_t tab_vaddr)
{
	static const char *const secs[] = {".noptrdata", ".data.rel.ro", ".data"};
	uint64_t md = 0, gofunc, rodata_end = 0;
	GElf_Shdr sh;

	for (size_t k = 0; k < sizeof(secs) / sizeof(secs[0]) && !md; k++) {
		Elf_Data *d = section_data(elf, shstrndx, secs[k], &sh);

		for (size_t o = 0; d && o + 8 <= d->d_size; o += 8)
			if (rd((const uint8_t *)d->d_buf + o, 8) == tab_vaddr) {
				md = sh.sh_addr + o;
				break;
			}
	}
	if (!md) {
		/* PIE: a relocation to the table's start */
		Elf_Data *d = section_data(elf, shstrndx, ".rela.dyn", &sh);

		for (size_t i = 0;
		     d && sh.sh_entsize == sizeof(Elf64_Rela) && i < d->d_size / sizeof(Elf64_Rela);
		     i++) {
			GElf_Rela r;

			if (gelf_getrela(d, (int)i, &r) && (uint64_t)r.r_addend == tab_vaddr &&
			    ELF64_R_TYPE(r.r_info) == R_X86_64_RELATIVE) {
				md = r.r_offset;
				break;
			}
		}
	}
	if (!md || !read_ptr(elf, shstrndx, md + 8 * (gt->layout == GOPCLN_120 ? 40 : 38), &gofunc))
		return;
	/* go:func.* is in .rodata: from gofunc to the end of its section */
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type == SHT_NOBITS || gofunc < sh.sh_addr ||
		    gofunc >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(s, NULL);
		rodata_end = sh.sh_addr + sh.sh_size;
		if (d && gofunc - sh.sh_addr <= d->d_size && d->d_size == sh.sh_size)
			gopclntab__set_gofunc(gt, (const uint8_t *)d->d_buf + (gofunc - sh.sh_addr),
					      rodata_end - gofunc);
		return;
	}
}

/*
 * Printable ASCII text of len bytes at p into out (size > len), spaces inside only ("go1.21.11
 * X:nocoverageredesign"); false when any byte is not.
 */
static bool copy_text(char *out, size_t size, const uint8_t *p, uint64_t len)
{
	if (!len || len >= size || p[0] == ' ' || p[len - 1] == ' ')
		return false;
	for (uint64_t i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	memcpy(out, p, len);
	out[len] = 0;
	return true;
}

/* .note.go.buildid: name "Go", type 4, the build ID as text (as `go tool buildid` prints it). */
static void read_build_id(char *build_id, size_t size, Elf *elf, size_t shstrndx)
{
	GElf_Shdr sh;
	Elf_Data *d = section_data(elf, shstrndx, ".note.go.buildid", &sh);
	GElf_Nhdr nh;
	size_t off = 0, next, noff, doff, len;

	while (d && (next = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		off = next;
		if (nh.n_type != 4 || (nh.n_namesz != 3 && nh.n_namesz != 4) ||
		    memcmp((const char *)d->d_buf + noff, "Go", 3))
			continue;
		len = nh.n_descsz;
		while (len && ((const char *)d->d_buf)[doff + len - 1] == 0)
			len--;
		copy_text(build_id, size, (const uint8_t *)d->d_buf + doff, len);
		return;
	}
}

/* n bytes at vaddr of the allocated section holding them all, into out; false when none does. */
static bool read_at(Elf *elf, uint64_t vaddr, void *out, size_t n)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr > sh.sh_size || n > sh.sh_size - (vaddr - sh.sh_addr))
			continue;
		d = elf_getdata(s, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return false;
		memcpy(out, (const uint8_t *)d->d_buf + (vaddr - sh.sh_addr), n);
		return true;
	}
	return false;
}

/*
 * The Go version from .go.buildinfo (cmd/link/internal/ld/data.go, debug/buildinfo): a 32-byte
 * header "\xff Go buildinf:", pointer size, flags. Flag 2 (Go 1.18 and later): the version
 * follows inline as a varint-length string. Before: the header's word at 16 points at
 * runtime.buildVersion, a Go string (data pointer, length).
 */
static void read_version(char *version, size_t size, Elf *elf, size_t shstrndx)
{
	GElf_Shdr sh;
	Elf_Data *d = section_data(elf, shstrndx, ".go.buildinfo", &sh);
	const uint8_t *p, *end;
	uint8_t text[64];
	bool trunc = false;
	uint64_t len, str, data;

	if (!d || !d->d_buf || d->d_size < 33 || memcmp(d->d_buf, "\xff Go buildinf:", 14))
		return;
	p = (const uint8_t *)d->d_buf;
	end = p + d->d_size;
	if (p[15] & 2) {
		p += 32;
		len = leb128_u(&p, end, &trunc);
		if (!trunc && len <= (uint64_t)(end - p))
			copy_text(version, size, p, len);
		return;
	}
	/* 8-byte pointers, little-endian (flag 1 clear) only */
	if (p[14] != 8 || (p[15] & 1) || !read_ptr(elf, shstrndx, sh.sh_addr + 16, &str) ||
	    !read_ptr(elf, shstrndx, str, &data) || !read_at(elf, str + 8, text, 8))
		return;
	len = rd(text, 8);
	if (len && len < sizeof(text) && len < size && read_at(elf, data, text, len))
		copy_text(version, size, text, len);
}

/*
 * A cgo program built as PIE: the external linker put the table into .data.rel.ro with the
 * rest (its default script merges .data.rel.ro.*). The table is where a header of a known
 * layout starts, on an 8-byte boundary (the linker aligns it). Only in a Go program: one whose
 * linker wrote .go.buildinfo (every Go 1.13+ build, cmd/link/internal/ld/data.go) or
 * .note.go.buildid; the headers looked for are Go 1.18's and later. Any other object's
 * .data.rel.ro is not read (libLLVM's 7.6 MB, scanned and faulted in, were a fifth of the
 * time of building its unwind table).
 */
static bool find_in_relro(Elf *elf, size_t shstrndx, const uint8_t **tab, size_t *size,
			  uint64_t *vaddr)
{
	GElf_Shdr sh;
	Elf_Data *d;
	const uint8_t *p;

	if (!section(elf, shstrndx, ".go.buildinfo", &sh) &&
	    !section(elf, shstrndx, ".note.go.buildid", &sh))
		return false;
	d = section_data(elf, shstrndx, ".data.rel.ro", &sh);
	if (!d || !d->d_buf || d->d_size != sh.sh_size)
		return false;
	p = d->d_buf;
	for (size_t o = 0; o + 64 <= d->d_size; o += 8) {
		uint32_t magic = (uint32_t)rd(p + o, 4);
		struct gopclntab *gt;

		if ((magic != 0xfffffff0 && magic != 0xfffffff1) || p[o + 4] || p[o + 5] ||
		    p[o + 6] != 1 || p[o + 7] != 8)
			continue;
		/* a header whose tables all lie inside the rest of the section */
		gt = gopclntab__new(p + o, d->d_size - o, 0);
		if (!gt)
			continue;
		gopclntab__free(gt);
		*tab = p + o;
		*size = d->d_size - o;
		*vaddr = sh.sh_addr + o;
		return true;
	}
	return false;
}

static int from_elf(Elf *elf, struct gopclntab **out)
{
	struct gopclntab *gt = NULL;
	GElf_Shdr sh, text;
	Elf_Data *d;
	size_t shstrndx, size;
	uint64_t text_vaddr = 0, tab_vaddr;
	const uint8_t *tab;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	d = section_data(elf, shstrndx, ".gopclntab", &sh);
	if (!d)
		d = section_data(elf, shstrndx, ".data.rel.ro.gopclntab", &sh);
	if (d && d->d_buf && d->d_size == sh.sh_size) {
		tab = d->d_buf;
		size = d->d_size;
		tab_vaddr = sh.sh_addr;
	} else if (!find_in_relro(elf, shstrndx, &tab, &size, &tab_vaddr)) {
		return -ENOENT;
	}
	if (section(elf, shstrndx, ".text", &text))
		text_vaddr = text.sh_addr;
	gt = gopclntab__new(tab, size, text_vaddr);
	if (!gt)
		return -errno;
	/* PIE: the text start is a relocation */
	if (gt->layout >= GOPCLN_118 && !rd(gt->tab + 8 + 2 * gt->ptrsize, gt->ptrsize)) {
		uint64_t v;

		if (relocated(elf, shstrndx, tab_vaddr + 8 + 2 * gt->ptrsize, &v))
			gt->text = v;
	}
	if (gt->layout >= GOPCLN_118)
		find_gofunc(gt, elf, shstrndx, tab_vaddr);
	read_build_id(gt->build_id, sizeof(gt->build_id), elf, shstrndx);
	read_version(gt->version, sizeof(gt->version), elf, shstrndx);
	/* a build with symbols: its DWARF has the offsets of its own runtime */
	gt->has_dwarf_off = !gopclntab__dwarf_offsets(elf, &gt->dwarf_off);
	gt->tls_slot = gopclntab__tls_slot(elf);
	*out = gt;
	return 0;
}

uint8_t gopclntab__exe_tls_slot(const struct gopclntab *gt)
{
	return gt->tls_slot;
}

struct gopclntab *gopclntab__from_elf(Elf *elf)
{
	struct gopclntab *gt = NULL;
	int err;

	pthread_once(&libelf_once, libelf_init);
	err = from_elf(elf, &gt);
	if (err)
		errno = -err;
	return gt;
}

int gopclntab__ident_fd(int fd, struct go_ident *out)
{
	struct elf_file ef = {.map.slot = -1};
	size_t shstrndx;
	int err = -ENOEXEC;

	memset(out, 0, sizeof(*out));
	pthread_once(&libelf_once, libelf_init);
	if (elf_file_open(fd, &ef))
		goto out;
	if (elf_kind(ef.elf) != ELF_K_ELF || elf_getshdrstrndx(ef.elf, &shstrndx))
		goto out;
	read_build_id(out->build_id, sizeof(out->build_id), ef.elf, shstrndx);
	read_version(out->version, sizeof(out->version), ef.elf, shstrndx);
	err = elf_file_changed(&ef) ? -ESTALE : *out->build_id || *out->version ? 0 : -ENOENT;
	if (err)
		memset(out, 0, sizeof(*out));
out:
	elf_file_close(&ef);
	return err;
}

struct gopclntab *gopclntab__from_fd(int fd)
{
	struct elf_file ef = {.map.slot = -1};
	struct gopclntab *gt = NULL;
	int err = -ENOEXEC;

	pthread_once(&libelf_once, libelf_init);
	if (elf_file_open(fd, &ef))
		goto out;
	err = from_elf(ef.elf, &gt);
	if (!err && elf_file_changed(&ef)) {
		gopclntab__free(gt);
		gt = NULL;
		err = -ESTALE;
	}
out:
	elf_file_close(&ef);
	if (err)
		errno = -err;
	return gt;
}
