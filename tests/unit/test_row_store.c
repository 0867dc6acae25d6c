// SPDX-License-Identifier: GPL-2.0
/*
 * row_store without BPF: a fake behind the chunk interface (chunks in memory, calls logged,
 * failures on demand). Rows land at the store index they are given across chunk boundaries,
 * chunks are created only when rows reach them, the cap is exact, and a failed chunk or write
 * takes no room.
 */
#include "cmocka_inc.h"
#include "unwind/row_store.h"

#define MAX_CALLS 64

struct fake {
	struct cp_unwind_row *chunk[CP_MAX_ROW_CHUNKS];
	uint32_t n_chunks;
	uint32_t made;	/* chunks made by a failed add_chunks */
	size_t n_adds;	/* add_chunks calls */
	int chunk_fail; /* add_chunks returns it */
	int write_fail; /* write returns it */
	size_t n_writes;
	uint32_t w_chunk[MAX_CALLS], w_off[MAX_CALLS], w_n[MAX_CALLS];
};

static int add_chunks(void *ctx, uint32_t first, uint32_t n)
{
	struct fake *f = ctx;

	f->n_adds++;
	if (f->chunk_fail) {
		/* one made before the failure: made again (empty) next time */
		if (first < CP_MAX_ROW_CHUNKS && !f->chunk[first]) {
			f->chunk[first] = calloc(CP_ROW_CHUNK_ROWS, sizeof(struct cp_unwind_row));
			f->made = first + 1 > f->made ? first + 1 : f->made;
		}
		return f->chunk_fail;
	}
	/* chunks come in order, each once */
	assert_int_equal(first, f->n_chunks);
	assert_true(n >= 1 && first + n <= CP_MAX_ROW_CHUNKS);
	for (uint32_t i = first; i < first + n; i++) {
		free(f->chunk[i]);
		f->chunk[i] = calloc(CP_ROW_CHUNK_ROWS, sizeof(struct cp_unwind_row));
		assert_non_null(f->chunk[i]);
	}
	f->n_chunks = first + n;
	return 0;
}

static int write_rows(void *ctx, uint32_t i, uint32_t off, const struct cp_unwind_row *rows,
		      uint32_t n)
{
	struct fake *f = ctx;

	if (f->write_fail)
		return f->write_fail;
	assert_true(i < f->n_chunks);
	assert_true(n > 0 && off < CP_ROW_CHUNK_ROWS && n <= CP_ROW_CHUNK_ROWS - off);
	assert_true(f->n_writes < MAX_CALLS);
	f->w_chunk[f->n_writes] = i;
	f->w_off[f->n_writes] = off;
	f->w_n[f->n_writes++] = n;
	memcpy(&f->chunk[i][off], rows, n * sizeof(*rows));
	return 0;
}

static struct row_store *new_store(struct fake *f, uint32_t cap)
{
	struct row_store_ops ops = {.add_chunks = add_chunks, .write = write_rows, .ctx = f};
	struct row_store *rs;

	memset(f, 0, sizeof(*f));
	rs = row_store__new(cap, &ops);
	assert_non_null(rs);
	return rs;
}

static void free_fake(struct fake *f)
{
	for (uint32_t i = 0; i < CP_MAX_ROW_CHUNKS; i++)
		free(f->chunk[i]);
}

/* Row i of the fake store, as the BPF walker reads it: chunk i >> shift, element i & mask. */
static const struct cp_unwind_row *at(const struct fake *f, uint32_t i)
{
	assert_true(i >> CP_ROW_CHUNK_SHIFT < f->n_chunks);
	return &f->chunk[i >> CP_ROW_CHUNK_SHIFT][i & (CP_ROW_CHUNK_ROWS - 1)];
}

/* n rows with distinct contents, from pc base on. */
static struct cp_unwind_row *make_rows(uint32_t n, uint32_t base)
{
	struct cp_unwind_row *r = calloc(n, sizeof(*r));

	assert_non_null(r);
	for (uint32_t i = 0; i < n; i++)
		r[i] = (struct cp_unwind_row){
			.pc = base + i, .cfa_off = (int32_t)i, .cfa_type = CP_CFA_RSP};
	return r;
}

static void test_lazy_and_across_chunks(void **state)
{
	struct fake f;
	struct row_store *rs = new_store(&f, 4 * CP_ROW_CHUNK_ROWS);
	struct row_store_stats st;
	uint32_t a_n = CP_ROW_CHUNK_ROWS - 10, b_n = CP_ROW_CHUNK_ROWS + 30, first;
	struct cp_unwind_row *a = make_rows(a_n, 0), *b = make_rows(b_n, 1u << 24);

	(void)state;
	/* nothing allocated before rows come */
	row_store__stats(rs, &st);
	assert_int_equal(st.chunks, 0);
	assert_int_equal(st.used, 0);
	assert_int_equal(f.n_chunks, 0);

	assert_int_equal(row_store__add(rs, a, a_n, &first), 0);
	assert_int_equal(first, 0);
	assert_int_equal(f.n_chunks, 1);
	/* b spans the end of chunk 0, all of chunk 1 and the start of chunk 2: both new chunks
	   made in one call */
	assert_int_equal(row_store__add(rs, b, b_n, &first), 0);
	assert_int_equal(first, a_n);
	assert_int_equal(f.n_chunks, 3);
	assert_int_equal(f.n_adds, 2);
	assert_int_equal(f.n_writes, 4);
	assert_int_equal(f.w_chunk[1], 0);
	assert_int_equal(f.w_off[1], a_n);
	assert_int_equal(f.w_n[1], 10);
	assert_int_equal(f.w_chunk[2], 1);
	assert_int_equal(f.w_off[2], 0);
	assert_int_equal(f.w_n[2], CP_ROW_CHUNK_ROWS);
	assert_int_equal(f.w_chunk[3], 2);
	assert_int_equal(f.w_off[3], 0);
	assert_int_equal(f.w_n[3], 20);
	/* every row where the walker looks for it */
	for (uint32_t i = 0; i < a_n; i++)
		assert_memory_equal(at(&f, i), &a[i], sizeof(*a));
	for (uint32_t i = 0; i < b_n; i++)
		assert_memory_equal(at(&f, a_n + i), &b[i], sizeof(*b));
	row_store__stats(rs, &st);
	assert_int_equal(st.used, a_n + b_n);
	assert_int_equal(st.chunks, 3);
	assert_int_equal(st.cap, 4 * CP_ROW_CHUNK_ROWS);
	free(a);
	free(b);
	row_store__free(rs);
	free_fake(&f);
}

static void test_cap(void **state)
{
	struct fake f;
	struct row_store *rs = new_store(&f, 100);
	struct cp_unwind_row *r = make_rows(101, 0);
	struct row_store_stats st;
	uint32_t first = 7;

	(void)state;
	/* one row too many: refused whole, nothing allocated */
	assert_int_equal(row_store__add(rs, r, 101, &first), -ENOSPC);
	assert_int_equal(first, 7);
	assert_int_equal(f.n_chunks, 0);
	assert_int_equal(row_store__add(rs, r, 0, &first), -EINVAL);
	assert_int_equal(row_store__add(rs, r, 60, &first), 0);
	assert_int_equal(row_store__add(rs, r, 41, &first), -ENOSPC);
	/* to the last row */
	assert_int_equal(row_store__add(rs, r, 40, &first), 0);
	assert_int_equal(first, 60);
	assert_int_equal(row_store__add(rs, r, 1, &first), -ENOSPC);
	row_store__stats(rs, &st);
	assert_int_equal(st.used, 100);
	assert_int_equal(st.chunks, 1);
	row_store__free(rs);
	free_fake(&f);
	/* a cap past what BPF searches is taken as that */
	rs = new_store(&f, UINT32_MAX);
	row_store__stats(rs, &st);
	assert_int_equal(st.cap, CP_MAX_UNWIND_ROWS);
	row_store__free(rs);
	free(r);
}

static void test_failures_take_no_room(void **state)
{
	struct fake f;
	struct row_store *rs = new_store(&f, 4 * CP_ROW_CHUNK_ROWS);
	uint32_t n = CP_ROW_CHUNK_ROWS + 5, first = 0;
	struct cp_unwind_row *r = make_rows(n, 0);
	struct row_store_stats st;

	(void)state;
	f.chunk_fail = -ENOMEM;
	assert_int_equal(row_store__add(rs, r, n, &first), -ENOMEM);
	row_store__stats(rs, &st);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.chunks, 0);
	/* the chunk made before the failure is asked for again */
	assert_int_equal(f.made, 1);
	f.chunk_fail = 0;
	f.write_fail = -EIO;
	assert_int_equal(row_store__add(rs, r, n, &first), -EIO);
	row_store__stats(rs, &st);
	assert_int_equal(st.used, 0);
	/* the chunks made for the failed write stay and serve the next rows */
	assert_int_equal(st.chunks, 2);
	f.write_fail = 0;
	assert_int_equal(row_store__add(rs, r, n, &first), 0);
	assert_int_equal(first, 0);
	assert_int_equal(f.n_chunks, 2);
	assert_memory_equal(at(&f, n - 1), &r[n - 1], sizeof(*r));
	free(r);
	row_store__free(rs);
	free_fake(&f);
}

/*
 * A run (a table streamed as it is built): appended in parts across a chunk boundary, its rows
 * land one after the other from its first index; one not kept takes no room and the next run
 * writes over it; a part past the cap is refused whole; nothing else is added during a run.
 */
static void test_runs(void **state)
{
	struct fake f;
	uint32_t cap = CP_ROW_CHUNK_ROWS + 100, first = 7, first2 = 0, n = CP_ROW_CHUNK_ROWS - 10;
	struct row_store *rs = new_store(&f, cap);
	struct cp_unwind_row *r = make_rows(cap + 1, 0), *q = make_rows(30, 1000000);
	struct row_store_stats st;

	(void)state;
	assert_int_equal(row_store__append(rs, r, 1), -EBUSY);
	assert_int_equal(row_store__begin(rs, &first), 0);
	assert_int_equal(first, 0);
	assert_int_equal(row_store__begin(rs, &first2), -EBUSY);
	assert_int_equal(row_store__add(rs, r, 1, &first2), -EBUSY);
	assert_int_equal(row_store__append(rs, r, n), 0);
	assert_int_equal(row_store__append(rs, r + n, 0), -EINVAL);
	assert_int_equal(row_store__append(rs, r + n, 20), 0); /* crosses into chunk 1 */
	assert_int_equal(row_store__end(rs, true), n + 20);
	for (uint32_t i = 0; i < n + 20; i++)
		assert_memory_equal(at(&f, i), &r[i], sizeof(*r));
	/* a run not kept */
	assert_int_equal(row_store__begin(rs, &first), 0);
	assert_int_equal(first, n + 20);
	assert_int_equal(row_store__append(rs, r, 30), 0);
	assert_int_equal(row_store__end(rs, false), 30);
	row_store__stats(rs, &st);
	assert_int_equal(st.used, n + 20);
	/* the next one starts where it did, and ends at the cap exactly */
	assert_int_equal(row_store__begin(rs, &first), 0);
	assert_int_equal(first, n + 20);
	assert_int_equal(row_store__append(rs, q, 30), 0);
	assert_int_equal(row_store__append(rs, r, cap - (n + 50) + 1), -ENOSPC);
	assert_int_equal(row_store__append(rs, r, cap - (n + 50)), 0);
	assert_int_equal(row_store__end(rs, true), cap - (n + 20));
	assert_memory_equal(at(&f, n + 20), &q[0], sizeof(*q));
	assert_memory_equal(at(&f, n + 49), &q[29], sizeof(*q));
	assert_memory_equal(at(&f, n + 19), &r[n + 19], sizeof(*r));
	row_store__stats(rs, &st);
	assert_int_equal(st.used, cap);
	assert_int_equal(st.chunks, 2);
	/* after a run, add works again */
	assert_int_equal(row_store__add(rs, r, 1, &first2), -ENOSPC);
	free(r);
	free(q);
	row_store__free(rs);
	free_fake(&f);
}

/*
 * Rows that come a chunk at a time create chunks a quarter ahead (fewer creations, each an RCU
 * grace period in BPF), 8 at most, never past the cap.
 */
static void test_grows_ahead(void **state)
{
	struct fake f;
	uint32_t cap = 64 * CP_ROW_CHUNK_ROWS, first;
	struct row_store *rs = new_store(&f, cap);
	struct cp_unwind_row *r = make_rows(CP_ROW_CHUNK_ROWS, 0);
	struct row_store_stats st;

	(void)state;
	for (uint32_t i = 0; i < 60; i++) {
		assert_int_equal(row_store__add(rs, r, CP_ROW_CHUNK_ROWS, &first), 0);
		row_store__stats(rs, &st);
		assert_true(st.chunks >= i + 1 && st.chunks <= i + 1 + (i + 1) / 4 + 1);
		assert_true(st.chunks <= i + 1 + 8);
	}
	/* 60 chunks of rows in fewer than 60 creations */
	assert_true(f.n_adds < 30);
	for (uint32_t i = 60; i < 64; i++)
		assert_int_equal(row_store__add(rs, r, CP_ROW_CHUNK_ROWS, &first), 0);
	assert_int_equal(f.n_chunks, 64);
	assert_int_equal(row_store__add(rs, r, 1, &first), -ENOSPC);
	free(r);
	row_store__free(rs);
	free_fake(&f);
}

static void test_bad_args(void **state)
{
	struct row_store_ops ops = {0};

	(void)state;
	errno = 0;
	assert_null(row_store__new(10, &ops));
	assert_int_equal(errno, EINVAL);
	assert_null(row_store__new(10, NULL));
	row_store__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lazy_and_across_chunks),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_failures_take_no_room),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_grows_ahead),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
