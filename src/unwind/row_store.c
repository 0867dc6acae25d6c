// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "unwind/row_store.h"

struct row_store {
	struct row_store_ops ops;
	uint32_t cap, used, chunks;
	bool open;    /* a run begun (row_store__begin) */
	uint32_t run; /* its rows, written after used */
};

struct row_store *row_store__new(uint32_t cap, const struct row_store_ops *ops)
{
	struct row_store *rs;

	if (!cap || !ops || !ops->add_chunks || !ops->write) {
		errno = EINVAL;
		return NULL;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->ops = *ops;
	rs->cap = cap < CP_MAX_UNWIND_ROWS ? cap : CP_MAX_UNWIND_ROWS;
	return rs;
}

void row_store__free(struct row_store *rs)
{
	free(rs);
}

/* Chunks made ahead of need: kernel memory no row may ever use, so a few MiB at most. */
#define AHEAD_MAX 8u

static uint32_t ahead(uint32_t chunks)
{
	return chunks / 4 < AHEAD_MAX ? chunks / 4 : AHEAD_MAX;
}

/*
 * Create the chunks that rows up to end (exclusive) lie in, and a quarter more than there are,
 * at most AHEAD_MAX (within the cap): tables streamed in come a chunk at a time, and each
 * creation waits for an RCU grace period (60 one at a time took 0.9 s). 0 or the error of ops.
 */
static int grow(struct row_store *rs, uint32_t end)
{
	uint32_t need = (uint32_t)(((uint64_t)end + CP_ROW_CHUNK_ROWS - 1) >> CP_ROW_CHUNK_SHIFT);
	uint32_t most =
		(uint32_t)(((uint64_t)rs->cap + CP_ROW_CHUNK_ROWS - 1) >> CP_ROW_CHUNK_SHIFT);
	int err;

	if (rs->chunks >= need)
		return 0;
	if (need < rs->chunks + ahead(rs->chunks))
		need = rs->chunks + ahead(rs->chunks);
	if (need > most)
		need = most;
	err = rs->ops.add_chunks(rs->ops.ctx, rs->chunks, need - rs->chunks);
	if (!err)
		rs->chunks = need;
	return err;
}

/* Write rows[0, n) at store index at, creating the chunks they need. 0 or the error of ops. */
static int put(struct row_store *rs, uint32_t at, const struct cp_unwind_row *rows, uint32_t n)
{
	uint32_t done = 0;
	int err = grow(rs, at + n);

	/* a chunk at a time: a write never crosses one */
	while (!err && done < n) {
		uint32_t pos = at + done, off = pos & (CP_ROW_CHUNK_ROWS - 1);
		uint32_t len = CP_ROW_CHUNK_ROWS - off;

		if (len > n - done)
			len = n - done;
		err = rs->ops.write(rs->ops.ctx, pos >> CP_ROW_CHUNK_SHIFT, off, rows + done, len);
		done += len;
	}
	return err;
}

int row_store__add(struct row_store *rs, const struct cp_unwind_row *rows, uint32_t n,
		   uint32_t *first)
{
	int err;

	if (rs->open)
		return -EBUSY;
	if (!n)
		return -EINVAL;
	if (n > rs->cap - rs->used)
		return -ENOSPC;
	err = put(rs, rs->used, rows, n);
	if (err)
		return err;
	*first = rs->used;
	rs->used += n;
	return 0;
}

int row_store__begin(struct row_store *rs, uint32_t *first)
{
	if (rs->open)
		return -EBUSY;
	rs->open = true;
	rs->run = 0;
	*first = rs->used;
	return 0;
}

int row_store__append(struct row_store *rs, const struct cp_unwind_row *rows, uint32_t n)
{
	int err;

	if (!rs->open)
		return -EBUSY;
	if (!n)
		return -EINVAL;
	if (n > rs->cap - rs->used - rs->run)
		return -ENOSPC;
	err = put(rs, rs->used + rs->run, rows, n);
	if (!err)
		rs->run += n;
	return err;
}

uint32_t row_store__end(struct row_store *rs, bool keep)
{
	uint32_t n = rs->run;

	if (rs->open && keep)
		rs->used += n;
	rs->open = false;
	rs->run = 0;
	return n;
}

void row_store__stats(const struct row_store *rs, struct row_store_stats *st)
{
	*st = (struct row_store_stats){.cap = rs->cap, .used = rs->used, .chunks = rs->chunks};
}
