// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include "elf/elf_syms.h"
#include "elf/elf_unpack.h"
#include "symbol/demangle.h"
#include "symbol/dwarf_index.h"
#include "symbol/line_table.h"
#include "util/fmap.h"

/* One address range of a CU. */
struct di_cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

/* A line table row. */
struct di_row {
	uint64_t addr;
	uint32_t line, col;
	uint32_t file; /* index into the CU's file table */
	bool end;      /* end of a sequence: no line from here on */
};

/* A concrete function (parent -1) or an inlined instance inside node parent. */
struct di_node {
	Dwarf_Off die;
	int32_t parent;
	uint32_t depth;
	uint32_t call_file, call_line, call_col;
	bool has_call_file, inlined, resolved;
	const char *name, *mangled;
};

/* From sorted scope ranges to "the innermost scope from lo up to the next segment". */
struct di_seg {
	uint64_t lo;
	int32_t node; /* -1: no function */
};

struct di_cu {
	Dwarf_Off die;
	uint64_t size; /* bytes of .debug_info up to the next unit: the work of indexing it */
	bool indexed, broken;
	const char *comp_dir;
	Dwarf_Files *files;
	size_t n_files;
	char **paths; /* joined file names, lazily; owned unless equal to the raw name */
	const char **raw;
	struct line_table *lt; /* the line program, decoded a sequence at a time; or: */
	struct di_row *rows;   /* libdw's rows, for the programs line_table leaves to it */
	size_t n_rows;
	struct di_node *nodes;
	size_t n_nodes, cap_nodes;
	struct di_seg *segs;
	size_t n_segs;
};

/*
 * What one thread reads DWARF through: its own Dwarf handle (libdw 0.188's caches are not
 * safe to share between threads) over its own Elf handle of the same mapping, and its own
 * demangled names. ctx[0] is the index's own; the others are made for batches (-j).
 */
struct di_ctx {
	Elf *elf; /* NULL for ctx[0] (the index's) */
	Dwarf *dw;
	struct demangle_cache *dc;
	/* scratch of index_cu, kept from CU to CU: no realloc per CU */
	struct scope_range *ranges;
	size_t cap_ranges;
	struct di_node *nodes;
	size_t cap_nodes;
};

/*
 * Decoded line rows (12 bytes each) one index keeps between trims of its lookups: past this,
 * the sequences not looked up since the last such trim are forgotten (and decoded again if
 * needed). A drain of a busy machine held 10 MB of rows at the peak, over many indexes: this
 * bounds one index with a big line program whose addresses are all named.
 */
#define DI_HELD_ROWS (1u << 19)

#define DI_MAX_JOBS  64
/* DIE bytes to index that make one more thread worth its set-up */
#define DI_BYTES_PER_THREAD (4 << 20)

/* compressed sections remembered to give their file pages back (more are kept mapped) */
#define DI_MAX_ZSEC 32

struct dwarf_index {
	size_t held_rows; /* decoded line rows held: at the last trim, and added by lookups since */
	size_t held_cap;  /* past it, cap_rows trims (DI_HELD_ROWS) */
	Elf *elf, *dbg_elf, *mini_elf;
	struct fmap map, dbg_map; /* whole files, guarded (see map_elf) */
	int dbg_fd;
	char *dbg_path;
	void *mini_image;
	Dwarf *dw;
	struct di_cu *cus;
	size_t n_cus;
	struct di_cu_range *ranges;
	size_t n_ranges;
	struct elf_syms *syms;	  /* what llvm-symbolizer uses: the object's own symbols */
	struct elf_syms *fb_syms; /* the debug file's .symtab, for code nothing else names */
	struct demangle_cache *dc;
	struct lt_sections lt_sec; /* .debug_line and its strings, for line_table */
	struct fmap *dw_map;	   /* the mapping DWARF is read from, for more contexts */
	bool serial;		   /* sections decompressed in place: one context only */
	struct di_zsec {
		uint64_t off, size;
	} zsec[DI_MAX_ZSEC]; /* compressed sections' bytes in the file (release_compressed) */
	unsigned int n_zsec;
	bool populated; /* the debug sections' page tables filled (a batch) */
	struct di_ctx ctx[DI_MAX_JOBS];
	unsigned int n_ctx;
	uint64_t thread_bytes; /* DIE bytes to index per thread of a batch */
	unsigned int flags;    /* set atomically (set_flag): batch threads report damage */
};

static void set_flag(struct dwarf_index *di, unsigned int f)
{
	__atomic_fetch_or(&di->flags, f, __ATOMIC_RELAXED);
}

/* ---- symbols -------------------------------------------------------------------------- */

/*
 * The object's .symtab, else its .dynsym plus MiniDebugInfo's .symtab, under llvm-symbolizer's
 * rules (elf_syms.h, ELF_SYMS_LLVM); the debug file's .symtab apart. A table that cannot be
 * read only costs its names. The names stay in the Elf data, so the symbol indexes are freed
 * before the Elf handles (dwarf_index__free).
 */
static int read_symbols(struct dwarf_index *di)
{
	di->syms = elf_syms__from_elf(di->elf, di->mini_elf, ELF_SYMS_LLVM);
	if (!di->syms && errno == ENOMEM)
		return -ENOMEM;
	if (di->dbg_elf) {
		di->fb_syms = elf_syms__from_elf(di->dbg_elf, NULL, ELF_SYMS_LLVM);
		if (!di->fb_syms && errno == ENOMEM)
			return -ENOMEM;
	}
	if (elf_syms__tables(di->syms) & ELF_SYMS_EXTRA)
		di->flags |= DI_MINIDEBUG;
	if (elf_syms__count(di->syms) || elf_syms__count(di->fb_syms))
		di->flags |= DI_SYMBOLS;
	return 0;
}

/* ---- CUs ------------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct di_cu_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int read_cus(struct dwarf_index *di)
{
	size_t cap_cus = 0, cap_ranges = 0;
	Dwarf_CU *cu = NULL, *next;
	uint8_t unit_type;
	Dwarf_Half version;
	Dwarf_Die cudie;

	int rc;

	while ((rc = dwarf_get_units(di->ctx[0].dw, cu, &next, &version, &unit_type, &cudie,
				     NULL)) == 0) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		cu = next;
		if (di->n_cus && !di->cus[di->n_cus - 1].size)
			di->cus[di->n_cus - 1].size =
				dwarf_dieoffset(&cudie) - di->cus[di->n_cus - 1].die;
		if (unit_type != DW_UT_compile)
			continue;
		if (di->n_cus == cap_cus) {
			size_t nc = cap_cus ? 2 * cap_cus : 64;
			struct di_cu *v = reallocarray(di->cus, nc, sizeof(*v));

			if (!v)
				return -ENOMEM;
			di->cus = v;
			cap_cus = nc;
		}
		di->cus[di->n_cus] = (struct di_cu){.die = dwarf_dieoffset(&cudie)};
		while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0) {
			if (start >= end)
				continue;
			if (di->n_ranges == cap_ranges) {
				size_t nc = cap_ranges ? 2 * cap_ranges : 64;
				struct di_cu_range *v = reallocarray(di->ranges, nc, sizeof(*v));

				if (!v)
					return -ENOMEM;
				di->ranges = v;
				cap_ranges = nc;
			}
			di->ranges[di->n_ranges++] =
				(struct di_cu_range){start, end, (uint32_t)di->n_cus};
		}
		di->n_cus++;
	}
	/* 1 is the end of the units; -1 a unit header libdw cannot read: the rest is lost */
	if (rc < 0)
		set_flag(di, DI_DAMAGED);
	if (di->n_ranges > 1)
		qsort(di->ranges, di->n_ranges, sizeof(*di->ranges), cmp_range);
	return 0;
}

static struct di_cu *find_cu(struct dwarf_index *di, uint64_t addr)
{
	size_t lo = 0, hi = di->n_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (di->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of different CUs rarely overlap; look back a little when they do */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++)
		if (addr < di->ranges[i - 1].hi)
			return &di->cus[di->ranges[i - 1].cu];
	return NULL;
}

/* ---- per-CU index --------------------------------------------------------------------- */

struct scope_range {
	uint64_t lo, hi;
	int32_t node;
	uint32_t depth;
};

struct cu_builder {
	struct dwarf_index *di;
	struct di_cu *cu;
	struct scope_range *v;
	size_t n, cap;
};

/* What one pass over a DIE's attributes tells. */
struct die_attrs {
	bool declaration, has_pc;
	bool has_call_file;
	Dwarf_Word call_file, call_line, call_col;
};

static int attr_cb(Dwarf_Attribute *a, void *arg)
{
	struct die_attrs *d = arg;

	switch (dwarf_whatattr(a)) {
	case DW_AT_declaration:
		d->declaration = true;
		break;
	case DW_AT_low_pc:
	case DW_AT_ranges:
	case DW_AT_entry_pc:
		d->has_pc = true;
		break;
	case DW_AT_call_file:
		d->has_call_file = dwarf_formudata(a, &d->call_file) == 0;
		break;
	case DW_AT_call_line:
		dwarf_formudata(a, &d->call_line);
		break;
	case DW_AT_call_column:
		dwarf_formudata(a, &d->call_col);
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

static int add_node(struct cu_builder *b, Dwarf_Die *die, int32_t parent, bool inlined,
		    const struct die_attrs *a)
{
	struct di_cu *cu = b->cu;
	struct di_node *nd;

	if (cu->n_nodes == cu->cap_nodes) {
		size_t nc = cu->cap_nodes ? 2 * cu->cap_nodes : 64;
		struct di_node *v = reallocarray(cu->nodes, nc, sizeof(*v));

		if (!v)
			return -ENOMEM;
		cu->nodes = v;
		cu->cap_nodes = nc;
	}
	nd = &cu->nodes[cu->n_nodes];
	*nd = (struct di_node){
		.die = dwarf_dieoffset(die),
		.parent = parent,
		.depth = parent >= 0 ? cu->nodes[parent].depth + 1 : 0,
		.call_file = (uint32_t)a->call_file,
		.call_line = (uint32_t)a->call_line,
		.call_col = (uint32_t)a->call_col,
		.has_call_file = a->has_call_file,
		.inlined = inlined,
	};
	return (int)cu->n_nodes++;
}

/* Record the ranges of node id; false when it has none (an abstract or declared function). */
static int add_ranges(struct cu_builder *b, Dwarf_Die *die, int32_t id, bool *any)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	*any = false;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (b->n == b->cap) {
			size_t nc = b->cap ? 2 * b->cap : 256;
			struct scope_range *v = reallocarray(b->v, nc, sizeof(*v));

			if (!v)
				return -ENOMEM;
			b->v = v;
			b->cap = nc;
		}
		b->v[b->n++] = (struct scope_range){start, end, id, b->cu->nodes[id].depth};
		*any = true;
	}
	return 0;
}

/*
 * Collect functions and inlined instances below die. Types are not entered: member functions
 * with code are defined outside their class (DW_AT_specification).
 */
static int walk(struct cu_builder *b, Dwarf_Die *die, int32_t parent, unsigned int depth)
{
	Dwarf_Die child;
	int r, err;

	if (depth > 256)
		return 0;
	r = dwarf_child(die, &child);
	if (r)
		return r < 0 ? -EIO : 0;
	do {
		int tag = dwarf_tag(&child);
		struct die_attrs a = {};
		bool any;
		int id;

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			dwarf_getattrs(&child, attr_cb, &a, 0);
			if (a.declaration || !a.has_pc)
				break;
			id = add_node(b, &child, tag == DW_TAG_subprogram ? -1 : parent,
				      tag == DW_TAG_inlined_subroutine, &a);
			if (id < 0)
				return id;
			err = add_ranges(b, &child, id, &any);
			if (err)
				return err;
			if (!any) {
				b->cu->n_nodes--;
				break;
			}
			err = walk(b, &child, id, depth + 1);
			if (err)
				return err;
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (parent < 0)
				break;
			/* fallthrough */
		case DW_TAG_namespace:
		case DW_TAG_module:
			err = walk(b, &child, parent, depth + 1);
			if (err)
				return err;
			break;
		default:
			break;
		}
	} while ((r = dwarf_siblingof(&child, &child)) == 0);
	return r < 0 ? -EIO : 0;
}

/* Outer scopes first at one start, so the innermost is pushed last. */
static int cmp_scope(const void *a, const void *b)
{
	const struct scope_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int emit_seg(struct di_cu *cu, size_t *cap, uint64_t lo, int32_t node)
{
	struct di_seg *last = cu->n_segs ? &cu->segs[cu->n_segs - 1] : NULL;

	/* nesting that is not strict (it should be) must not make the table go backwards */
	if (last && last->lo >= lo) {
		last->node = node;
		return 0;
	}
	if (last && last->node == node)
		return 0;
	if (cu->n_segs == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		struct di_seg *v = reallocarray(cu->segs, nc, sizeof(*v));

		if (!v)
			return -ENOMEM;
		cu->segs = v;
		*cap = nc;
	}
	cu->segs[cu->n_segs++] = (struct di_seg){lo, node};
	return 0;
}

/* Sweep the nested ranges into segments that each name their innermost scope. */
static int build_segments(struct cu_builder *b)
{
	struct scope_range *stack;
	size_t top = 0, cap = 0;
	int err = 0;

	if (b->n > 1)
		qsort(b->v, b->n, sizeof(*b->v), cmp_scope);
	stack = calloc(b->n + 1, sizeof(*stack));
	/* each range makes at most two segments */
	b->cu->segs = calloc(2 * b->n + 1, sizeof(*b->cu->segs));
	if (!stack || !b->cu->segs) {
		free(stack);
		return -ENOMEM;
	}
	cap = 2 * b->n + 1;
	for (size_t i = 0; i < b->n && !err; i++) {
		while (top && stack[top - 1].hi <= b->v[i].lo && !err) {
			top--;
			err = emit_seg(b->cu, &cap, stack[top].hi, top ? stack[top - 1].node : -1);
		}
		if (!err)
			err = emit_seg(b->cu, &cap, b->v[i].lo, b->v[i].node);
		stack[top++] = b->v[i];
	}
	while (top && !err) {
		top--;
		err = emit_seg(b->cu, &cap, stack[top].hi, top ? stack[top - 1].node : -1);
	}
	free(stack);
	return err;
}

/* A file name pointer of the CU's table and its index (libdw has no accessor for the index). */
struct file_ref {
	const char *p;
	uint32_t i;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct file_ref *x = a, *y = b;

	return (uintptr_t)x->p < (uintptr_t)y->p ? -1 : (uintptr_t)x->p > (uintptr_t)y->p;
}

static uint32_t file_index(const struct file_ref *refs, size_t n, const char *name)
{
	struct file_ref key = {name, 0};
	const struct file_ref *r = bsearch(&key, refs, n, sizeof(*refs), cmp_ref);

	return r ? r->i : UINT32_MAX;
}

/* The CU's line program through line_table: 0, -ENOMEM, or another error to try libdw. */
static int own_lines(struct dwarf_index *di, struct di_cu *cu, Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;
	Dwarf_Word off;
	uint8_t asize, osize;
	Dwarf_Die die;
	int err;

	if (!di->lt_sec.line || !dwarf_attr(cudie, DW_AT_stmt_list, &attr) ||
	    dwarf_formudata(&attr, &off) || !dwarf_diecu(cudie, &die, &asize, &osize))
		return -ENOENT;
	err = line_table__open(&di->lt_sec, off, asize, cu->comp_dir, &cu->lt);
	if (err)
		return err;
	/* the names are asked of the table when a row names them (file_path) */
	cu->n_files = line_table__n_files(cu->lt);
	cu->paths = calloc(cu->n_files + 1, sizeof(*cu->paths));
	return cu->paths ? 0 : -ENOMEM;
}

static int read_lines(struct dwarf_index *di, struct di_cu *cu, Dwarf_Die *cudie)
{
	struct file_ref *refs;
	Dwarf_Lines *lines;
	Dwarf_Attribute attr;
	size_t n;
	int err = own_lines(di, cu, cudie);

	if (err != -ENOENT && err != -EINVAL && err != -ENOTSUP)
		return err;
	line_table__free(cu->lt);
	cu->lt = NULL;
	if (dwarf_getsrclines(cudie, &lines, &n) ||
	    dwarf_getsrcfiles(cudie, &cu->files, &cu->n_files)) {
		/* functions without lines; damage when the CU says it has a line table */
		if (dwarf_attr(cudie, DW_AT_stmt_list, &attr))
			set_flag(di, DI_DAMAGED);
		return 0;
	}
	cu->paths = calloc(cu->n_files + 1, sizeof(*cu->paths));
	cu->raw = calloc(cu->n_files + 1, sizeof(*cu->raw));
	cu->rows = calloc(n + 1, sizeof(*cu->rows));
	refs = calloc(cu->n_files + 1, sizeof(*refs));
	if (!cu->paths || !cu->raw || !cu->rows || !refs) {
		free(refs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cu->n_files; i++) {
		cu->raw[i] = dwarf_filesrc(cu->files, i, NULL, NULL);
		refs[i] = (struct file_ref){cu->raw[i], (uint32_t)i};
	}
	qsort(refs, cu->n_files, sizeof(*refs), cmp_ref);
	/* libdw hands the rows sorted by address, end-of-sequence rows first at one address */
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct di_row *r = &cu->rows[cu->n_rows];
		Dwarf_Addr addr;
		int line = 0, col = 0;
		bool end = false;

		if (!l || dwarf_lineaddr(l, &addr))
			continue;
		dwarf_lineno(l, &line);
		dwarf_linecol(l, &col);
		dwarf_lineendsequence(l, &end);
		r->addr = addr;
		r->line = line > 0 ? (uint32_t)line : 0;
		r->col = col > 0 ? (uint32_t)col : 0;
		r->end = end;
		r->file = file_index(refs, cu->n_files, dwarf_linesrc(l, NULL, NULL));
		cu->n_rows++;
	}
	free(refs);
	return 0;
}

static int index_cu(struct dwarf_index *di, struct di_ctx *ctx, struct di_cu *cu)
{
	struct cu_builder b = {.di = di, .cu = cu};
	Dwarf_Attribute attr;
	Dwarf_Die cudie;
	int err;

	cu->indexed = true;
	if (!dwarf_offdie(ctx->dw, cu->die, &cudie)) {
		cu->broken = true;
		set_flag(di, DI_DAMAGED);
		return 0;
	}
	cu->comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
	err = read_lines(di, cu, &cudie);
	/* nodes and ranges grow in the context's scratch; the CU keeps an exact copy */
	b.v = ctx->ranges;
	b.cap = ctx->cap_ranges;
	cu->nodes = ctx->nodes;
	cu->cap_nodes = ctx->cap_nodes;
	if (!err)
		err = walk(&b, &cudie, -1, 0);
	/* a DIE libdw cannot read (-EIO) ends the walk: what was collected before it is kept */
	if (!err || err == -EIO) {
		int serr = build_segments(&b);

		err = serr ? serr : err;
	}
	ctx->ranges = b.v;
	ctx->cap_ranges = b.cap;
	ctx->nodes = cu->nodes;
	ctx->cap_nodes = cu->cap_nodes;
	cu->nodes = NULL;
	cu->cap_nodes = 0;
	if (cu->n_nodes) {
		cu->nodes = malloc(cu->n_nodes * sizeof(*cu->nodes));
		if (cu->nodes)
			memcpy(cu->nodes, ctx->nodes, cu->n_nodes * sizeof(*cu->nodes));
		else
			cu->n_nodes = 0, err = err ? err : -ENOMEM;
		cu->cap_nodes = cu->n_nodes;
	}
	if (err == -EIO) {
		cu->broken = true;
		set_flag(di, DI_DAMAGED);
		err = 0;
	}
	return err;
}

/* The line row at addr, into *out: 0, -ENOENT (none) or -ENOMEM. */
static int find_row(struct dwarf_index *di, struct di_cu *cu, uint64_t addr, struct di_row *out)
{
	size_t lo = 0, hi = cu->n_rows;

	if (cu->lt) {
		struct lt_row r;
		int err = line_table__find(cu->lt, addr, &r);

		if (err == -EINVAL)
			set_flag(di, DI_DAMAGED);
		if (err)
			return err == -ENOMEM ? err : -ENOENT;
		*out = (struct di_row){
			.addr = r.addr, .line = r.line, .col = r.col, .file = r.file};
		return 0;
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || cu->rows[lo - 1].end)
		return -ENOENT;
	*out = cu->rows[lo - 1];
	return 0;
}

static int32_t find_node(const struct di_cu *cu, uint64_t addr)
{
	size_t lo = 0, hi = cu->n_segs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->segs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? cu->segs[lo - 1].node : -1;
}

/* The name llvm-symbolizer prints: DW_AT_name joined to comp_dir when relative. */
static const char *file_path(struct di_cu *cu, uint32_t idx)
{
	const char *raw;

	if (idx >= cu->n_files)
		return NULL;
	if (cu->paths[idx])
		return cu->paths[idx];
	raw = cu->lt ? line_table__file(cu->lt, idx) : cu->raw[idx];
	if (!raw)
		return NULL;
	if (raw[0] == '/' || !cu->comp_dir || !*cu->comp_dir ||
	    asprintf(&cu->paths[idx], "%s/%s", cu->comp_dir, raw) < 0) {
		cu->paths[idx] = NULL;
		return raw;
	}
	return cu->paths[idx];
}

/* Name a node from its DIE: the linkage name (demangled) or DW_AT_name, through origins. */
static void resolve_node(struct di_ctx *ctx, struct di_node *nd)
{
	Dwarf_Attribute attr;
	const char *lk = NULL;
	Dwarf_Die die;

	nd->resolved = true;
	if (!dwarf_offdie(ctx->dw, nd->die, &die))
		return;
	if (dwarf_attr_integrate(&die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &attr))
		lk = dwarf_formstring(&attr);
	if (lk) {
		nd->name = demangle_cache__get(ctx->dc, lk);
		nd->mangled = nd->name != lk ? lk : NULL;
		return;
	}
	if (dwarf_attr_integrate(&die, DW_AT_name, &attr))
		nd->name = dwarf_formstring(&attr);
}

/* ---- open / lookup -------------------------------------------------------------------- */

/*
 * Map the whole file, private and writable because libelf may convert data in place (nothing
 * is written back), and guarded: the file's owner may truncate it under us (fmap.h; the index
 * then answers -ESTALE). Page tables are not filled here: MAP_POPULATE on a writable private
 * mapping copies every page of the file (a write fault each), which made a 96 MB program
 * 96 MB of cpuprof's own memory when only its symbols were read. populate() fills those of
 * the debug sections read-only for a batch (read from everywhere: faulting them in page by
 * page cost a fifth of a cold run of symbolize). A file that cannot be mapped is read by
 * libelf with pread.
 */
static Elf *map_elf(int fd, struct fmap *m)
{
	Elf *elf;

	if (fmap_open(fd, m))
		return elf_begin(fd, ELF_C_READ, NULL);
	elf = elf_memory(m->p, m->size);
	if (!elf)
		fmap_close(m);
	return elf;
}

/* Whether one of the files read shrank under a read: nothing read from them is trusted. */
static bool changed(struct dwarf_index *di)
{
	if (fmap_faulted(&di->map) || fmap_faulted(&di->dbg_map))
		set_flag(di, DI_CHANGED);
	return __atomic_load_n(&di->flags, __ATOMIC_RELAXED) & DI_CHANGED;
}

/*
 * Fill the page tables of m's debug sections from the page cache, read-only (no copy): the
 * span from the first .debug_ section to the end of the last, not the whole file (a program
 * of 96 MB may carry 2 MB of DWARF). An old kernel says no, and pages then fault in.
 */
static void populate(Elf *elf, const struct fmap *m)
{
#ifdef MADV_POPULATE_READ
	uint64_t lo = UINT64_MAX, hi = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!m->p || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)) ||
		    (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8)))
			continue;
		if (shdr.sh_offset >= m->size || shdr.sh_size > m->size - shdr.sh_offset)
			continue;
		lo = shdr.sh_offset < lo ? shdr.sh_offset : lo;
		hi = shdr.sh_offset + shdr.sh_size > hi ? shdr.sh_offset + shdr.sh_size : hi;
	}
	if (lo >= hi)
		return;
	lo &= ~(page - 1);
	madvise((char *)m->p + lo, hi - lo, MADV_POPULATE_READ);
#else
	(void)elf;
	(void)m;
#endif
}

/*
 * .debug_line, .debug_line_str and .debug_str as libdw left them (it decompresses sections in
 * place when it opens them), for line_table; no .debug_line (line_table unused) when a section
 * is still compressed or the object is not little-endian.
 */
static void line_sections(Elf *elf, struct lt_sections *sec)
{
	static const char *const names[] = {".debug_line", ".debug_line_str", ".debug_str"};
	const uint8_t *p[3] = {};
	size_t size[3] = {}, shstrndx;
	const char *ident = elf_getident(elf, NULL);
	Elf_Scn *scn = NULL;

	if (!ident || ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)))
			continue;
		for (int i = 0; i < 3; i++) {
			if (strcmp(name, names[i]))
				continue;
			if (shdr.sh_flags & SHF_COMPRESSED)
				return;
			d = elf_getdata(scn, NULL);
			if (d && d->d_buf) {
				p[i] = d->d_buf;
				size[i] = d->d_size;
			}
		}
	}
	*sec = (struct lt_sections){p[0], p[1], p[2], size[0], size[1], size[2]};
}

/* Compressed debug sections cpuprof never reads (see prepare_compressed). */
static bool never_read(const char *name)
{
	static const char *const names[] = {
		".debug_loclists", ".debug_loc",      ".debug_macro",	     ".debug_macinfo",
		".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
		".debug_aranges" /* the index walks the units' own ranges */};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * Whether elf has compressed sections: libdw decompresses sections in place, the shared
 * mapping then no longer describes what a second Elf handle would read, so such objects keep
 * to one context. In the same pass, the compressed sections cpuprof never reads are hidden
 * from libdw (their name made ""): it inflates every compressed section it knows when it
 * opens a file. libc6-dbg's location lists alone are 2.4 MB of zlib data; hiding them took a
 * tenth off naming 25,000 libc addresses. Only the section headers in memory change (the file
 * is mapped private).
 */
static bool prepare_compressed(struct dwarf_index *di, Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool any = false;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			return true;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strncmp(name, ".zdebug", 7))
			any = true;
		if (!(shdr.sh_flags & SHF_COMPRESSED) && !(name && !strncmp(name, ".zdebug", 7)))
			continue;
		any = true;
		if (di->n_zsec < DI_MAX_ZSEC && shdr.sh_type != SHT_NOBITS)
			di->zsec[di->n_zsec++] = (struct di_zsec){shdr.sh_offset, shdr.sh_size};
		if ((shdr.sh_flags & SHF_COMPRESSED) && never_read(name)) {
			shdr.sh_name = 0;
			gelf_update_shdr(scn, &shdr);
		}
	}
	return any;
}

/* bytes an index may write to its unpacked file (elf_unpack): the copy and the inflated */
#define DI_MAX_UNPACK (1ull << 30)

/*
 * *src's zlib-compressed sections inflated into an unnamed file of dir (elf_unpack.h), the
 * sections cpuprof never reads left out, and *src (the object or its debug file) that file
 * from now on: libdw then finds nothing to inflate into memory of its own, and the pages
 * release_files gives back include those bytes. On any failure *src stays as it was (libdw
 * inflates them, as before). The file shrinking under the copy leaves it as it was too:
 * changed() says so after.
 */
static void unpack(struct dwarf_index *di, Elf **src, const char *dir)
{
	bool dbg = *src == di->dbg_elf;
	struct fmap *m = dbg ? &di->dbg_map : &di->map, nm = {.slot = -1};
	Elf *ne;
	int fd;

	if (!dir || !m->p)
		return;
	fd = elf_unpack(m->p, m->size, dir, DI_MAX_UNPACK, never_read);
	if (fd < 0)
		return;
	if (fmap_faulted(m) || fmap_open(fd, &nm)) {
		close(fd);
		return;
	}
	close(fd); /* the mapping keeps the file */
	ne = elf_memory(nm.p, nm.size);
	if (!ne || elf_kind(ne) != ELF_K_ELF) {
		if (ne)
			elf_end(ne);
		fmap_close(&nm);
		return;
	}
	elf_end(*src);
	fmap_close(m);
	*m = nm;
	*src = ne;
	di->flags |= DI_UNPACKED;
	if (dbg)
		di->dbg_elf = ne;
	else
		di->elf = ne;
}

static void open_debug(struct dwarf_index *di, const char *path, const struct debug_paths *dp)
{
	char found[PATH_MAX];
	Elf *src = di->elf;
	void *img;
	size_t size;

	if (!debug_has_dwarf(di->elf)) {
		di->dbg_fd = debug_find_file(di->elf, path, dp, found, sizeof(found));
		if (di->dbg_fd >= 0) {
			di->dbg_elf = map_elf(di->dbg_fd, &di->dbg_map);
			di->dbg_path = strdup(found);
			if (di->dbg_elf && debug_has_dwarf(di->dbg_elf)) {
				src = di->dbg_elf;
				di->flags |= DI_DEBUG_FILE;
			}
		}
	}
	if (debug_has_zstd_sections(src))
		di->flags |= DI_ZSTD;
	if (debug_has_dwarf(src)) {
		if (!(di->flags & DI_ZSTD))
			unpack(di, &src, dp ? dp->unpack_dir : NULL);
		/* before libdw decompresses anything in place */
		di->serial = prepare_compressed(di, src);
		di->ctx[0].dw = dwarf_begin_elf(src, DWARF_C_READ, NULL);
		if (di->ctx[0].dw) {
			di->flags |= DI_DWARF;
			line_sections(src, &di->lt_sec);
			di->dw_map = src == di->dbg_elf ? &di->dbg_map : &di->map;
			di->serial |= !di->dw_map->p;
		} else if (!(di->flags & DI_ZSTD))
			set_flag(di, DI_DAMAGED); /* e.g. a section marked compressed that is not */
	}
	if (debug_minidebuginfo(di->elf, &img, &size) == 0) {
		di->mini_image = img;
		di->mini_elf = elf_memory(img, size);
	}
}

static void release_files(struct dwarf_index *di);

struct dwarf_index *dwarf_index__open(int fd, const char *path, const struct debug_paths *dp)
{
	struct dwarf_index *di = calloc(1, sizeof(*di));
	int err = -ENOMEM;

	if (!di)
		goto fail;
	di->dbg_fd = -1;
	di->map.slot = -1;
	di->dbg_map.slot = -1;
	di->n_ctx = 1;
	di->thread_bytes = DI_BYTES_PER_THREAD;
	di->held_cap = DI_HELD_ROWS;
	elf_version(EV_CURRENT);
	di->ctx[0].dc = demangle_cache__new();
	if (!di->ctx[0].dc)
		goto fail;
	di->elf = map_elf(fd, &di->map);
	if (!di->elf || elf_kind(di->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto fail;
	}
	open_debug(di, path, dp);
	err = read_symbols(di);
	if (!err && di->ctx[0].dw)
		err = read_cus(di);
	if (!err && changed(di))
		err = -ESTALE;
	if (err)
		goto fail;
	/*
	 * What opening read of the files (symbol tables, the CU headers) is read again only in
	 * part, if at all: the rest of a drain's naming goes on without those pages in cpuprof's
	 * RSS (libLLVM's .dynsym and names were 5.6 MB of it at the peak of a recording).
	 */
	release_files(di);
	return di;
fail:
	dwarf_index__free(di);
	errno = -err;
	return NULL;
}

static void free_cu(struct di_cu *cu)
{
	for (size_t i = 0; cu->paths && i < cu->n_files; i++)
		free(cu->paths[i]);
	free(cu->paths);
	free(cu->raw);
	line_table__free(cu->lt);
	free(cu->rows);
	free(cu->nodes);
	free(cu->segs);
}

/*
 * Give back the page tables of a file mapping nothing was written to: its pages stay in the
 * page cache and fault in again when read (only a little-endian object without compressed
 * sections is sure to be unwritten: libelf converts other data in place).
 */
static void release_pages(const struct fmap *m, Elf *elf, bool serial)
{
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;

	if (!m->p || serial || !ident || ident[EI_DATA] != ELFDATA2LSB)
		return;
	(void)madvise(m->p, m->size, MADV_DONTNEED);
}

/*
 * Give back the file pages of the compressed sections: libelf inflates a section into memory
 * of its own and never reads (nor writes) its compressed bytes again, so the pages of a
 * private mapping are unwritten and fault in again from the file should they be read. Only
 * whole pages inside a section (its neighbours may be written). libc6-dbg's debug file is
 * 4 MB of such sections, read in full when libdw inflates them.
 */
static void release_compressed(const struct dwarf_index *di)
{
	const struct fmap *m = di->dw_map;
	Elf *elf = m == &di->dbg_map ? di->dbg_elf : di->elf;
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!m || !m->p || !ident || ident[EI_DATA] != ELFDATA2LSB)
		return;
	for (unsigned int i = 0; i < di->n_zsec; i++) {
		uint64_t lo = (di->zsec[i].off + page - 1) & ~(page - 1);
		uint64_t hi = (di->zsec[i].off + di->zsec[i].size) & ~(page - 1);

		if (hi > m->size)
			hi = m->size & ~(page - 1);
		if (lo < hi)
			(void)madvise((char *)m->p + lo, hi - lo, MADV_DONTNEED);
	}
}

/* The file pages read so far: mapped again as lookups read them (populate: a batch's). */
static void release_files(struct dwarf_index *di)
{
	release_pages(&di->map, di->elf, di->serial);
	release_pages(&di->dbg_map, di->dbg_elf, di->serial);
	if (di->serial)
		release_compressed(di);
	di->populated = false;
}

size_t dwarf_index__trim(struct dwarf_index *di)
{
	size_t n = 0;

	if (!di)
		return 0;
	release_files(di);
	di->held_rows = 0;
	for (size_t i = 0; i < di->n_cus; i++) {
		n += line_table__trim(di->cus[i].lt, false);
		di->held_rows += line_table__held(di->cus[i].lt);
	}
	for (unsigned int i = 0; i < di->n_ctx; i++) {
		free(di->ctx[i].ranges);
		free(di->ctx[i].nodes);
		di->ctx[i].ranges = NULL;
		di->ctx[i].nodes = NULL;
		di->ctx[i].cap_ranges = 0;
		di->ctx[i].cap_nodes = 0;
	}
	return n;
}

void dwarf_index__free(struct dwarf_index *di)
{
	if (!di)
		return;
	for (size_t i = 0; i < di->n_cus; i++)
		free_cu(&di->cus[i]);
	free(di->cus);
	free(di->ranges);
	elf_syms__free(di->syms);
	elf_syms__free(di->fb_syms);
	for (unsigned int i = 0; i < di->n_ctx; i++) {
		free(di->ctx[i].ranges);
		free(di->ctx[i].nodes);
	}
	for (unsigned int i = 1; i < di->n_ctx; i++) {
		dwarf_end(di->ctx[i].dw);
		elf_end(di->ctx[i].elf);
		demangle_cache__free(di->ctx[i].dc);
	}
	demangle_cache__free(di->ctx[0].dc);
	if (di->ctx[0].dw)
		dwarf_end(di->ctx[0].dw);
	if (di->mini_elf)
		elf_end(di->mini_elf);
	free(di->mini_image);
	if (di->dbg_elf)
		elf_end(di->dbg_elf);
	fmap_close(&di->dbg_map);
	if (di->dbg_fd >= 0)
		close(di->dbg_fd);
	free(di->dbg_path);
	if (di->elf)
		elf_end(di->elf);
	fmap_close(&di->map);
	free(di);
}

unsigned int dwarf_index__flags(const struct dwarf_index *di)
{
	return di->flags;
}

const char *dwarf_index__debug_path(const struct dwarf_index *di)
{
	return di->flags & DI_DEBUG_FILE ? di->dbg_path : NULL;
}

const char *dwarf_index__debug_symbol(struct dwarf_index *di, uint64_t vaddr)
{
	struct elf_sym sym;
	const char *name;

	if (changed(di))
		return NULL;
	name = elf_syms__get(di->fb_syms, vaddr, &sym)
		       ? demangle_cache__get(di->ctx[0].dc, sym.name)
		       : NULL;
	return changed(di) ? NULL : name;
}

static int lookup(struct dwarf_index *di, struct di_ctx *ctx, struct di_cu *cu, uint64_t vaddr,
		  struct di_frame *out, size_t max, size_t *n)
{
	struct elf_sym sym_mem;
	const struct elf_sym *sym = elf_syms__get(di->syms, vaddr, &sym_mem) ? &sym_mem : NULL;
	const struct di_row *row = NULL;
	struct di_row row_mem;
	int32_t chain[256];
	size_t depth = 0, k = 0;
	int err;

	*n = 0;
	if (!max)
		return -EINVAL;
	if (cu && !cu->indexed) {
		err = index_cu(di, ctx, cu);
		if (err)
			return err;
	}
	if (cu) {
		err = find_row(di, cu, vaddr, &row_mem);
		if (err == -ENOMEM)
			return err;
		row = err ? NULL : &row_mem;
		for (int32_t id = find_node(cu, vaddr); id >= 0 && depth < 256;
		     id = cu->nodes[id].parent)
			chain[depth++] = id;
	}
	for (size_t i = 0; i < depth; i++) {
		struct di_node *nd = &cu->nodes[chain[i]];
		struct di_frame *f;

		/* past max: keep the innermost max - 1 and the outermost */
		if (k == max - 1 && i != depth - 1)
			continue;
		f = &out[k++];
		if (!nd->resolved)
			resolve_node(ctx, nd);
		f->name = nd->name;
		f->mangled = nd->mangled;
		f->inlined = nd->inlined;
		if (i == 0) {
			f->file = row ? file_path(cu, row->file) : NULL;
			f->line = row ? row->line : 0;
			f->column = row ? row->col : 0;
		} else {
			/* a caller's position is the call site of the instance inlined into it */
			const struct di_node *in = &cu->nodes[chain[i - 1]];

			f->file = in->has_call_file ? file_path(cu, in->call_file) : NULL;
			f->line = in->call_line;
			f->column = in->call_col;
		}
	}
	if (!k && (row || sym)) {
		out[k++] = (struct di_frame){
			.file = row ? file_path(cu, row->file) : NULL,
			.line = row ? row->line : 0,
			.column = row ? row->col : 0,
		};
	}
	if (k && sym) {
		struct di_frame *f = &out[k - 1];

		f->name = demangle_cache__get(ctx->dc, sym->name);
		f->mangled = f->name != sym->name ? sym->name : NULL;
		/* the source file of a local symbol, as llvm-symbolizer gives it */
		if (!f->file)
			f->file = sym->file;
	}
	*n = k;
	return 0;
}

/*
 * After a lookup in cu that changed the rows its line table holds from before: past
 * DI_HELD_ROWS in all since the last call that trimmed, the sequences of every CU not looked up
 * since then go.
 */
static void cap_rows(struct dwarf_index *di, const struct di_cu *cu, size_t before)
{
	size_t after = cu ? line_table__held(cu->lt) : 0;

	if (after <= before)
		return;
	di->held_rows += after - before;
	if (di->held_rows <= di->held_cap)
		return;
	di->held_rows = 0;
	for (size_t i = 0; i < di->n_cus; i++) {
		line_table__trim(di->cus[i].lt, false);
		di->held_rows += line_table__held(di->cus[i].lt);
	}
}

int dwarf_index__lookup(struct dwarf_index *di, uint64_t vaddr, struct di_frame *out, size_t max,
			size_t *n)
{
	struct di_cu *cu;
	size_t before;
	int err;

	*n = 0;
	if (changed(di))
		return -ESTALE;
	cu = di->ctx[0].dw ? find_cu(di, vaddr) : NULL;
	before = cu ? line_table__held(cu->lt) : 0;
	err = lookup(di, &di->ctx[0], cu, vaddr, out, max, n);
	cap_rows(di, cu, before);
	if (changed(di)) {
		*n = 0;
		err = -ESTALE;
	}
	return err;
}

/* ---- batches ---------------------------------------------------------------------------- */

/* One address of a batch: its CU (UINT32_MAX: none) and its place in the caller's order. */
struct bitem {
	uint64_t vaddr;
	uint32_t cu;
	uint32_t idx;
};

/* Where an answer's frames are: in the frames of thread t, from first, n of them. */
struct banswer {
	uint32_t t, n;
	size_t first;
};

struct bframes {
	struct di_frame *v;
	size_t n, cap;
};

struct di_batch {
	size_t n;
	struct banswer *ans;
	struct bframes fr[DI_MAX_JOBS];
};

/* A run of items of one CU (or of no CU): the unit of work a thread takes. */
struct brun {
	size_t start, end;
};

struct bwork {
	struct dwarf_index *di;
	struct di_batch *b;
	struct bitem *items;
	struct brun *runs;
	size_t n_runs, max;
	size_t next; /* the next run to take, atomically */
	int err;
};

struct bthread {
	struct bwork *w;
	unsigned int t;
	pthread_t tid;
};

static int cmp_item(const void *a, const void *b)
{
	const struct bitem *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void *bthread_main(void *arg)
{
	struct bthread *th = arg;
	struct bwork *w = th->w;
	struct di_ctx *ctx = &w->di->ctx[th->t];
	struct bframes *fr = &w->b->fr[th->t];
	size_t r;

	while ((r = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n_runs) {
		for (size_t i = w->runs[r].start; i < w->runs[r].end; i++) {
			const struct bitem *it = &w->items[i];
			struct di_cu *cu = it->cu == UINT32_MAX ? NULL : &w->di->cus[it->cu];
			size_t n = 0;
			int err;

			if (fr->cap - fr->n < w->max) {
				/* about three frames an address */
				size_t nc = fr->cap ? 2 * fr->cap : 4 * (w->runs[r].end - i) + 1024;
				struct di_frame *v;

				while (nc - fr->n < w->max)
					nc *= 2;
				v = reallocarray(fr->v, nc, sizeof(*v));
				if (!v) {
					__atomic_store_n(&w->err, -ENOMEM, __ATOMIC_RELAXED);
					return NULL;
				}
				fr->v = v;
				fr->cap = nc;
			}
			err = lookup(w->di, ctx, cu, it->vaddr, fr->v + fr->n, w->max, &n);
			if (err) {
				__atomic_store_n(&w->err, err, __ATOMIC_RELAXED);
				return NULL;
			}
			w->b->ans[it->idx] = (struct banswer){th->t, (uint32_t)n, fr->n};
			fr->n += n;
		}
	}
	return NULL;
}

/* One more context over the mapping DWARF is read from; false when it cannot be made. */
static bool add_ctx(struct dwarf_index *di)
{
	struct di_ctx *c = &di->ctx[di->n_ctx];

	c->elf = elf_memory(di->dw_map->p, di->dw_map->size);
	c->dw = c->elf ? dwarf_begin_elf(c->elf, DWARF_C_READ, NULL) : NULL;
	c->dc = c->dw ? demangle_cache__new() : NULL;
	if (!c->dc) {
		if (c->dw)
			dwarf_end(c->dw);
		if (c->elf)
			elf_end(c->elf);
		*c = (struct di_ctx){};
		return false;
	}
	di->n_ctx++;
	return true;
}

int dwarf_index__lookup_batch(struct dwarf_index *di, const uint64_t *vaddrs, size_t n, size_t max,
			      unsigned int jobs, struct di_batch **out)
{
	struct bthread th[DI_MAX_JOBS];
	struct bwork w = {.di = di, .max = max};
	struct di_batch *b = calloc(1, sizeof(*b));
	unsigned int started = 0;
	int err = -ENOMEM;

	*out = NULL;
	if (!max || n > UINT32_MAX) {
		free(b);
		return -EINVAL;
	}
	if (!b)
		return -ENOMEM;
	if (changed(di)) {
		free(b);
		return -ESTALE;
	}
	/*
	 * A batch reads much of the DWARF: its pages in at once. Single lookups (a profiler
	 * naming a few addresses of many objects) fault in only what they read.
	 */
	if (!di->populated && di->dw_map) {
		di->populated = true;
		populate(di->dw_map == &di->dbg_map ? di->dbg_elf : di->elf, di->dw_map);
	}
	b->n = n;
	b->ans = calloc(n + 1, sizeof(*b->ans));
	w.b = b;
	w.items = calloc(n + 1, sizeof(*w.items));
	w.runs = calloc(n + 1, sizeof(*w.runs));
	if (!b->ans || !w.items || !w.runs)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct di_cu *cu = di->ctx[0].dw ? find_cu(di, vaddrs[i]) : NULL;

		w.items[i] = (struct bitem){vaddrs[i], cu ? (uint32_t)(cu - di->cus) : UINT32_MAX,
					    (uint32_t)i};
	}
	qsort(w.items, n, sizeof(*w.items), cmp_item);
	/* a run per CU; addresses of no CU (symbols only) in runs of 256 */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && w.items[j].cu == w.items[i].cu &&
		       (w.items[i].cu != UINT32_MAX || j - i < 256))
			j++;
		w.runs[w.n_runs++] = (struct brun){i, j};
		i = j;
	}
	if (jobs > DI_MAX_JOBS)
		jobs = DI_MAX_JOBS;
	if (jobs > w.n_runs)
		jobs = (unsigned int)w.n_runs;
	/*
	 * A thread's own libdw handle reads unit headers and the abbreviations of the CUs it
	 * touches again: worth it only for several MB of DIEs still to index (a small LTO
	 * program ran slower with two threads than with one).
	 */
	{
		uint64_t todo = 0;
		unsigned int want;

		for (size_t r = 0; r < w.n_runs; r++) {
			uint32_t c = w.items[w.runs[r].start].cu;

			if (c != UINT32_MAX && !di->cus[c].indexed)
				todo += di->cus[c].size ? di->cus[c].size : 1 << 20;
		}
		want = (unsigned int)(1 + todo / di->thread_bytes);
		if (jobs > want)
			jobs = want;
	}
	if (di->serial || !di->dw_map)
		jobs = 1;
	while (di->n_ctx < jobs && add_ctx(di))
		;
	if (jobs > di->n_ctx)
		jobs = di->n_ctx;
	for (unsigned int t = 0; t < jobs; t++)
		th[t] = (struct bthread){.w = &w, .t = t};
	for (unsigned int t = 1; t < jobs; t++) {
		if (pthread_create(&th[t].tid, NULL, bthread_main, &th[t]))
			break;
		started = t;
	}
	bthread_main(&th[0]);
	for (unsigned int t = 1; t <= started; t++)
		pthread_join(th[t].tid, NULL);
	err = changed(di) ? -ESTALE : w.err;
out:
	free(w.items);
	free(w.runs);
	if (err)
		di_batch__free(b);
	else
		*out = b;
	return err;
}

size_t di_batch__frames(const struct di_batch *b, size_t i, const struct di_frame **frames)
{
	const struct banswer *a = &b->ans[i];

	*frames = a->n ? b->fr[a->t].v + a->first : NULL;
	return a->n;
}

void di_batch__free(struct di_batch *b)
{
	if (!b)
		return;
	for (unsigned int t = 0; t < DI_MAX_JOBS; t++)
		free(b->fr[t].v);
	free(b->ans);
	free(b);
}

void dwarf_index__set_held_rows(struct dwarf_index *di, size_t rows)
{
	di->held_cap = rows;
}

size_t dwarf_index__held_rows(const struct dwarf_index *di)
{
	size_t n = 0;

	for (size_t i = 0; i < di->n_cus; i++)
		n += line_table__held(di->cus[i].lt);
	return n;
}

void dwarf_index__set_thread_bytes(struct dwarf_index *di, uint64_t bytes)
{
	di->thread_bytes = bytes ? bytes : 1;
}
