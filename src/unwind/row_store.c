// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "unwind/row_store.h"

struct row_store {
	struct row_store_ops ops;
	uint32_t cap, used, chunks;
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

/* Create the chunks that rows up to end (exclusive) lie in. 0 or the error of ops. */
static int grow(struct row_store *rs, uint32_t end)
{
	uint32_t need = (uint32_t)(((uint64_t)end + CP_ROW_CHUNK_ROWS - 1) >> CP_ROW_CHUNK_SHIFT);
	int err;

	if (rs->chunks >= need)
		return 0;
	err = rs->ops.add_chunks(rs->ops.ctx, rs->chunks, need - rs->chunks);
	if (!err)
		rs->chunks = need;
	return err;
}

int row_store__add(struct row_store *rs, const struct cp_unwind_row *rows, uint32_t n,
		   uint32_t *first)
{
	uint32_t at, done = 0;
	int err;

	if (!n)
		return -EINVAL;
	if (n > rs->cap - rs->used)
		return -ENOSPC;
	at = rs->used;
	err = grow(rs, at + n);
	/* a chunk at a time: a write never crosses one */
	while (!err && done < n) {
		uint32_t pos = at + done, off = pos & (CP_ROW_CHUNK_ROWS - 1);
		uint32_t len = CP_ROW_CHUNK_ROWS - off;

		if (len > n - done)
			len = n - done;
		err = rs->ops.write(rs->ops.ctx, pos >> CP_ROW_CHUNK_SHIFT, off, rows + done, len);
		done += len;
	}
	if (err)
		return err;
	rs->used = at + n;
	*first = at;
	return 0;
}

void row_store__stats(const struct row_store *rs, struct row_store_stats *st)
{
	*st = (struct row_store_stats){.cap = rs->cap, .used = rs->used, .chunks = rs->chunks};
}
