// SPDX-License-Identifier: GPL-2.0
/*
 * gzpipe: the pieces given, in order, come out as one gzip member with zlib's plain header
 * (mtime 0, no name), whether the second thread or the caller compresses them.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "cmocka_inc.h"
#include "output/gzpipe.h"

/* Compress the pieces through a gzpipe into a memory stream; the bytes in *buf, *len. */
static void compress_pieces(const char *const *pieces, size_t n, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	struct gzpipe *g;

	assert_non_null(f);
	assert_int_equal(gzpipe_open(&g, f, 1), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gzpipe_put(g, strdup(pieces[i]), strlen(pieces[i])), 0);
	assert_int_equal(gzpipe_close(g), 0);
	fclose(f);
}

static void test_gzip(void **state)
{
	const char *const pieces[] = {"hello ", "pprof"};
	char *buf = NULL;
	size_t len = 0;
	unsigned char out[64];
	uLongf outlen = sizeof(out);
	z_stream zs = {0};

	(void)state;
	compress_pieces(pieces, 2, &buf, &len);
	/* magic, deflate, no flags, mtime 0 */
	assert_true(len > 18);
	assert_memory_equal(buf, "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)outlen;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, 11);
	assert_memory_equal(out, "hello pprof", 11);
	inflateEnd(&zs);
	free(buf);
}

/*
 * Many pieces of bytes that compress badly, so the encoder outruns gzip and waits for room in
 * the queue: the file is still every piece, in order.
 */
static void test_many_pieces(void **state)
{
	enum { PIECES = 64, LEN = 64 << 10 };
	unsigned char *all = malloc((size_t)PIECES * LEN), *back = malloc((size_t)PIECES * LEN);
	uint32_t x = 12345;
	struct gzpipe *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	z_stream zs = {0};

	(void)state;
	assert_non_null(all);
	assert_non_null(back);
	assert_non_null(f);
	for (size_t i = 0; i < (size_t)PIECES * LEN; i++) {
		x = x * 1103515245u + 12345u;
		all[i] = (unsigned char)(x >> 16);
	}
	assert_int_equal(gzpipe_open(&g, f, 6), 0);
	for (size_t i = 0; i < PIECES; i++) {
		unsigned char *p = malloc(LEN);

		assert_non_null(p);
		memcpy(p, all + i * LEN, LEN);
		assert_int_equal(gzpipe_put(g, p, LEN), 0);
	}
	assert_int_equal(gzpipe_close(g), 0);
	fclose(f);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = back;
	zs.avail_out = (uInt)PIECES * LEN;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, (uLong)PIECES * LEN);
	assert_memory_equal(back, all, (size_t)PIECES * LEN);
	inflateEnd(&zs);
	free(buf);
	free(all);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_many_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
