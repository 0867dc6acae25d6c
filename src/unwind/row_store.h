/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind dwarf: the store of unwind rows the BPF walker searches, grown as tables are
 * loaded. Rows are appended (a bump allocator: nothing is freed during a recording) into
 * chunks of CP_ROW_CHUNK_ROWS rows (bpf/shared.h) created on demand, up to a cap in rows
 * (--max-unwind-memory). The chunks themselves are behind row_store_ops: BPF array maps in
 * an array of maps when recording (session/bpf_loader.c), a test's buffers in unit tests.
 * Nothing here prints.
 */
#ifndef CPUPROF_ROW_STORE_H
#define CPUPROF_ROW_STORE_H
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

void row_store__stats(const struct row_store *rs, struct row_store_stats *st);

#endif
