/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind dwarf: the store of unwind rows the BPF walker searches, grown as tables are
 * loaded. Rows are appended (a bump allocator: nothing is freed during a recording) into
 * chunks of CP_ROW_CHUNK_ROWS rows (bpf/shared.h) created on demand (a quarter more than there
 * are when more are needed, 8 at most), up to a cap in rows
 * (--max-unwind-memory). The chunks themselves are behind row_store_ops: BPF array maps in
 * an array of maps when recording (session/bpf_loader.c), a test's buffers in unit tests.
 * Nothing here prints.
 */
#ifndef CPUPROF_ROW_STORE_H
#define CPUPROF_ROW_STORE_H
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"

struct row_store;

struct row_store_ops {
	/*
	 * Create chunks [first, first + n) (CP_ROW_CHUNK_ROWS zeroed rows each) where the walker
	 * finds them, at once: in BPF each change of the array of maps waits for an RCU grace
	 * period (tens of ms on a loaded machine). 0 or -errno; after an error some of them may
	 * exist, empty: they are asked for again.
	 */
	int (*add_chunks)(void *ctx, uint32_t first, uint32_t n);
	/* copy rows to [off, off + n) of chunk (within it, created before); 0 or -errno */
	int (*write)(void *ctx, uint32_t chunk, uint32_t off, const struct cp_unwind_row *rows,
		     uint32_t n);
	void *ctx;
};

struct row_store_stats {
	uint32_t cap;	 /* rows at most */
	uint32_t used;	 /* rows stored */
	uint32_t chunks; /* chunks created */
};

/*
 * A store of at most cap rows (1 to CP_MAX_UNWIND_ROWS; more is taken as that), nothing
 * allocated yet. NULL with errno on failure.
 */
struct row_store *row_store__new(uint32_t cap, const struct row_store_ops *ops);

/* NULL-safe; the chunks stay (they belong to whoever holds them behind ops). */
void row_store__free(struct row_store *rs);

/*
 * Append rows[0, n) (n >= 1), creating the chunks they need; *first is the store index of
 * rows[0]. 0; -ENOSPC when they would pass the cap (nothing done); -EINVAL for n 0; or the
 * error of ops, after which the rows take no room (chunks created stay, for later rows).
 */
int row_store__add(struct row_store *rs, const struct cp_unwind_row *rows, uint32_t n,
		   uint32_t *first);

/*
 * The same in parts, for a table streamed as it is built: begin a run at the end of the store
 * (*first: its first row's index), append rows[0, n) to it in as many calls as it takes, then
 * end it: kept, the rows take their room; not kept, none (they are overwritten by the next
 * run). One run at a time, nothing else added meanwhile (-EBUSY). append: 0, -ENOSPC when the
 * run would pass the cap (nothing appended), -EINVAL for n 0, or the error of ops (nothing
 * appended).
 */
int row_store__begin(struct row_store *rs, uint32_t *first);
int row_store__append(struct row_store *rs, const struct cp_unwind_row *rows, uint32_t n);
/* Rows in the run; the run ends either way. */
uint32_t row_store__end(struct row_store *rs, bool keep);

void row_store__stats(const struct row_store *rs, struct row_store_stats *st);

#endif
