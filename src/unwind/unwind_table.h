/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 unwind table of one ELF object: the rows of bpf/shared.h (struct cp_unwind_row) built
 * from .eh_frame, or from .debug_frame when the object has no .eh_frame. CIEs and FDEs are
 * split and read here (CIEs parsed by libdw's dwarf_next_cfi); their CFA programs are run by
 * cfi_eval (one pass per FDE) and the rules made rows by unwind_row. The object is a file or
 * an image in memory (the vDSO).
 *
 * A table depends only on the file's contents: callers that see one object in several
 * processes share the table by build-id (or dev, inode, mtime); this module keeps no cache.
 */
#ifndef CPUPROF_UNWIND_TABLE_H
#define CPUPROF_UNWIND_TABLE_H
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "elf/go_tables.h"

struct unwind_table;

struct unwind_table_stats {
	size_t rows;	      /* rows in the table (after dropping redundant ones) */
	size_t raw_rows;      /* rows the CFA programs produced, before compaction */
	size_t fdes;	      /* FDEs turned into rows */
	size_t fdes_skipped;  /* empty, overlapping an earlier one, or outside executable code */
	size_t bytes_skipped; /* of the section, from the first entry that cannot be read (a bad
				 length: nothing after it can be found) to its end */
	size_t end_func;      /* CP_CFA_END_FUNC rows */
	size_t end_stack;     /* CP_CFA_END_STACK rows */
	size_t plt;	      /* CP_CFA_PLT1/2 rows */
	size_t signal;	      /* CP_CFA_SIGNAL rows */
	size_t unsupported[CP_UNW_MAX]; /* rows by reason; [CP_UNW_OK] stays 0 */
	uint64_t build_ns;		/* time to build the table (monotonic clock) */
	int debug_frame;		/* the rows come from .debug_frame, not .eh_frame */
};

/*
 * Build the table of the x86-64 ELF object open on fd (not kept, not closed). Returns NULL and
 * sets errno: ENOEXEC not an x86-64 ELF executable or shared object; ENODATA neither .eh_frame
 * nor .debug_frame; EFBIG executable code spans 4 GiB or more; EINVAL malformed section;
 * ENOMEM; ESTALE the file shrank while it was read (its owner truncated it: the reads past its
 * new end found zeros instead of raising SIGBUS, elf/elf_file.h). Malformed or unsupported FDEs do
 * not fail the build: their rows are marked.
 */
struct unwind_table *unwind_table__from_fd(int fd);

/*
 * Rows handed over as they are built: rows[0, n) (n >= 1) follow those of the call before,
 * sorted by pc. 0, or a negative errno that stops the build (the build fails with it).
 */
typedef int (*unwind_rows_fn)(void *ctx, const struct cp_unwind_row *rows, size_t n);

/*
 * The same, streamed: the rows go to emit as they are final, in batches of about batch rows
 * (at an FDE's start once that many are held, and the rest at the end), not into the table,
 * which keeps its base and stats (st.rows: the rows emitted) and no rows. On NULL (errno as
 * above) what emit was given is not a table: a caller that stored it throws it away (e.g.
 * ESTALE comes after the last row).
 */
struct unwind_table *unwind_table__stream_fd(int fd, size_t batch, unwind_rows_fn emit, void *ctx);

/*
 * unwind_table__from_fd and __stream_fd with Go's function table taken from tables (read there
 * once for every user of the file, elf/go_tables.h), not read again here. tables NULL: read here.
 */
struct unwind_table *unwind_table__from_fd_go(int fd, struct go_tables *tables);
struct unwind_table *unwind_table__stream_fd_go(int fd, struct go_tables *tables, size_t batch,
						unwind_rows_fn emit, void *ctx);

/*
 * The same from an ELF image of size bytes in memory (the vDSO, which has no file). The image
 * is copied, never written; it need not outlive the call. errno as above; EINVAL image NULL.
 */
struct unwind_table *unwind_table__from_mem(const void *image, size_t size);

/* NULL-safe. */
void unwind_table__free(struct unwind_table *ut);

/* The rows, sorted by pc; *n gets their number. Owned by ut. */
const struct cp_unwind_row *unwind_table__rows(const struct unwind_table *ut, size_t *n);

/* The rows, now the caller's to free: ut keeps none. NULL (and *n 0) when it had none. */
struct cp_unwind_row *unwind_table__take_rows(struct unwind_table *ut, size_t *n);

/* The vaddr that row pcs are relative to (lowest PT_LOAD p_vaddr). */
uint64_t unwind_table__base(const struct unwind_table *ut);

/*
 * The row in force at file virtual address vaddr: the last row with base + pc <= vaddr. NULL
 * before the first row or outside [base, base + 4 GiB); past the last function the result is
 * the final CP_CFA_END_FUNC row.
 */
const struct cp_unwind_row *unwind_table__lookup(const struct unwind_table *ut, uint64_t vaddr);

/* Counters of the build. */
void unwind_table__stats(const struct unwind_table *ut, struct unwind_table_stats *st);

/* Short names for messages: "rsp", "plt1", "end-func"...; "?" when out of range. */
const char *unwind_table_cfa_name(unsigned int cfa_type);
const char *unwind_table_reason_name(unsigned int reason);

#endif
