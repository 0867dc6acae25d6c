/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Go's function table (.gopclntab): the names, source positions, inlined calls and stack-pointer
 * deltas of every Go function, which every Go executable keeps, stripped or not (the runtime
 * needs it for its own tracebacks). Read for stripped Go programs, whose ELF tables have no
 * names, and for unwinding them (Go emits no .eh_frame).
 *
 * Layouts, by the magic number at the table's start (Go's cmd/link/internal/ld/pcln.go and
 * runtime/symtab.go, debug/gosym/pclntab.go of each version):
 *   0xfffffffb  Go 1.2-1.15: offsets from the table's start, entries as uintptr
 *   0xfffffffa  Go 1.16-1.17: separate name, CU, file and pc-value tables
 *   0xfffffff0  Go 1.18-1.19: entries as 32-bit offsets from the text start
 *   0xfffffff1  Go 1.20 and later: as 1.18, _func gains startLine, inlinedCall changes
 * Inlined frames (the inline tree, funcdata 3 and pcdata 2) are read for 1.18 and later only,
 * when the go:func.* data was found (gopclntab__set_gofunc). Tested: 1.18 on Go 1.19 programs
 * (test_gopclntab against go tool addr2line), 1.2 and 1.16 on tables made from their
 * specification (against debug/gosym), 1.20 on the names of Go 1.21-1.24 programs, and on
 * Debian's go1.21.13, go1.22.12 and go1.23.5 (make unit-go-extra: names and positions against
 * that Go's addr2line and DWARF).
 *
 * Every byte of the table is hostile: each offset is checked against the data it points into,
 * each string must end inside it, each pc-value walk is bounded.
 *
 * Addresses are the object's link-time virtual addresses (as nm and `go tool addr2line` print).
 */
#ifndef CPUPROF_GOPCLNTAB_H
#define CPUPROF_GOPCLNTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct gopclntab;

enum gopclntab_layout {
	GOPCLN_12 = 1, /* Go 1.2 to 1.15 */
	GOPCLN_116,    /* Go 1.16, 1.17 */
	GOPCLN_118,    /* Go 1.18, 1.19 */
	GOPCLN_120,    /* Go 1.20 and later */
};

/* A function of the table; strings owned by the table. */
struct go_func {
	const char *name;
	uint64_t entry; /* first address */
	uint64_t end;	/* the next function's entry (or the table's end) */
	size_t index;
	uint8_t flag; /* GOPCLN_FLAG_* (1.18 and later; 0 before) */
};

/* runtime/symtab.go funcFlag */
#define GOPCLN_FLAG_TOPFRAME 0x1 /* the outermost frame of a stack (goexit, mstart, rt0_go) */
#define GOPCLN_FLAG_SPWRITE  0x2 /* writes SP other than by its frame: pcsp says nothing after */

/* One source-level frame at an address; strings owned by the table. */
struct go_frame {
	const char *name;
	const char *file; /* NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	bool inlined;	  /* an inlined call: the next frame is its caller */
};

/*
 * The table in tab[0, size) (copied), for an object whose text starts at text_vaddr (used when
 * the table's own text start is 0, as in position-independent executables, where it is
 * relocated at load time, and by layouts before 1.18, which have none). NULL and errno:
 * ENOEXEC (no known magic, or a header that points outside the table), ENOMEM.
 */
struct gopclntab *gopclntab__new(const void *tab, size_t size, uint64_t text_vaddr);

/*
 * The go:func.* data (funcdata of 1.18 and later are offsets into it), copied: inlined frames
 * need it. 0, -ENOMEM, -EINVAL (a layout before 1.18).
 */
int gopclntab__set_gofunc(struct gopclntab *gt, const void *data, size_t size);

/*
 * The table of the ELF object open on fd (not kept, not closed): section .gopclntab, or
 * .data.rel.ro.gopclntab (position-independent executables), with the go:func.* data found
 * through the runtime's module data, the Go build ID (.note.go.buildid) and the Go version
 * (.go.buildinfo). NULL and errno: ENOENT (no Go table), ENOEXEC, ENOMEM, EIO, ESTALE (the file
 * shrank while read).
 */
struct gopclntab *gopclntab__from_fd(int fd);

/* The same from an Elf handle the caller keeps (not kept here); NULL and errno as above. */
struct gopclntab *gopclntab__from_elf(Elf *elf);

/* NULL-safe. */
void gopclntab__free(struct gopclntab *gt);

enum gopclntab_layout gopclntab__layout(const struct gopclntab *gt);

/* Number of functions. */
size_t gopclntab__count(const struct gopclntab *gt);

/* The function holding vaddr: true, or false when none does. */
bool gopclntab__func(const struct gopclntab *gt, uint64_t vaddr, struct go_func *out);

/* The i-th function by address (i < gopclntab__count): true, or false when its entry is bad. */
bool gopclntab__func_at(const struct gopclntab *gt, size_t i, struct go_func *out);

/*
 * The source-level frames at vaddr, innermost (inlined) first, the function holding it last:
 * its name is what `go tool addr2line` prints, the first frame's file and line what it prints
 * as the position. 0 with *n frames (0 when no function holds vaddr), -EINVAL (max 0).
 */
int gopclntab__frames(const struct gopclntab *gt, uint64_t vaddr, struct go_frame *out, size_t max,
		      size_t *n);

/*
 * The stack pointer's distance below the frame's CFA - 8 at vaddr (the pcsp table: 0 at the
 * entry, the frame size in the body), so that CFA = SP + delta + 8. 0, -ENOENT (no function or
 * no value there).
 */
int gopclntab__sp_delta(const struct gopclntab *gt, uint64_t vaddr, int32_t *delta);

/*
 * The pcsp rows of function i: fn(ctx, start, end, delta) for each range of addresses with one
 * delta, in address order, at most max_rows of them. 0, fn's non-zero return, -ENOENT.
 */
typedef int (*gopclntab_row_fn)(void *ctx, uint64_t start, uint64_t end, int32_t delta);
int gopclntab__sp_rows(const struct gopclntab *gt, size_t i, size_t max_rows, gopclntab_row_fn fn,
		       void *ctx);

/*
 * Offsets of the runtime's structures the profiler reads for the object's Go version (amd64):
 * g.m, g.sched, m.curg, m.vdsoSP, gobuf.bp, g.labels (runtime/runtime2.go). From the DWARF when
 * it has the runtime's types, else from a table by release (Go 1.17 to 1.26; sources in
 * gopclntab.c). 0, or -ENOENT when neither has them (other versions, pre-releases).
 */
struct go_runtime_offsets {
	uint32_t g_m, g_sched, m_curg;
	uint32_t m_vdsosp; /* m.vdsoSP, m.vdsoPC right after it; 0: unknown */
	uint32_t gobuf_bp; /* bp in a gobuf (g.sched): 48 to Go 1.24, 40 from 1.25 */
	uint32_t g_labels; /* g.labels (runtime/pprof's label map); 0: unknown */
};
int gopclntab__runtime_offsets(const struct gopclntab *gt, struct go_runtime_offsets *out);

/*
 * The table's offsets for a version as runtime.buildVersion gives it ("go1.21.11",
 * "go1.21.11 X:nocoverageredesign"): 0, or -ENOENT (not a release the table has).
 */
int gopclntab__offsets_for(const char *version, struct go_runtime_offsets *out);

/*
 * The same offsets from the DWARF of elf (runtime.g's members m and sched, runtime.m's curg and
 * vdsoSP, runtime.gobuf's bp), which gopclntab__from_elf reads first. 0, -ENOENT.
 */
int gopclntab__dwarf_offsets(Elf *elf, struct go_runtime_offsets *out);

/*
 * How runtime/pprof keeps a goroutine's labels in the object's Go version: GO_LABELS_MAP up to
 * Go 1.23, GO_LABELS_SLICE from 1.24 (the values of bpf/shared.h's enum cp_go_layout); 0 when
 * the version is unknown.
 */
enum go_labels_layout {
	GO_LABELS_MAP = 1,
	GO_LABELS_SLICE = 2,
};
int gopclntab__labels_layout(const struct gopclntab *gt);
/* The same for a version string ("go1.19.8", "go1.24rc1"). */
int gopclntab_labels_layout_for(const char *go_version);

/*
 * Where a Go executable keeps the current g: at fsbase - 8 * the result (1: Go's own slot);
 * 0 when unknown (C code with TLS of its own, shared objects).
 */
uint8_t gopclntab__tls_slot(Elf *elf);

/* The same of the ELF file the table was read from (0: read from memory, gopclntab__new). */
uint8_t gopclntab__exe_tls_slot(const struct gopclntab *gt);

/*
 * The Go build ID and the Go version ("go1.19.8"), "" when unknown. The version is Go's
 * runtime.buildVersion, read from .go.buildinfo (inline from Go 1.18, through pointers
 * before); experiments follow it after a space ("go1.21.11 X:nocoverageredesign").
 */
const char *gopclntab__build_id(const struct gopclntab *gt);
const char *gopclntab__go_version(const struct gopclntab *gt);

/* The same two without reading the table (cheap: one note and one small section). */
struct go_ident {
	char build_id[128];
	char version[64];
};

/*
 * The Go build ID and version of the ELF object open on fd (not kept, not closed): 0 with at
 * least one of them, -ENOENT (not a Go program), -ENOEXEC, -ESTALE (the file changed while
 * read). *out is zeroed on error.
 */
int gopclntab__ident_fd(int fd, struct go_ident *out);

#endif
