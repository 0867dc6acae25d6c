// SPDX-License-Identifier: GPL-2.0
/*
 * Batched reads and clears of BPF hash maps (session/map_batch.h) on real maps: every key and
 * value handed on exactly once, the map empty after a clear, for 0, 1, many per bucket (a
 * batch of 1 element) and more than a batch of elements; the per-key path (forced) the same.
 * Needs root (bpf_map_create); with CI set, a map that cannot be created fails the test.
 */
#include "cmocka_inc.h"
#include <bpf/bpf.h>
#include "session/map_batch.h"

/* A key larger than the u32 a hash map's batch token is, as the counts' key is. */
struct key {
	uint32_t id;
	uint32_t pad;
	char fill[72];
};

struct val {
	uint64_t v[5];
};

struct seen {
	uint32_t max;
	uint8_t *hits; /* times each id was handed on */
	size_t chunks;
	int bad;
};

static int map_new(uint32_t max)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "cp_test", sizeof(struct key),
				sizeof(struct val), max, NULL);

	if (fd < 0) {
		char why[96];

		snprintf(why, sizeof(why), "bpf_map_create: %s (needs root)", strerror(errno));
		cp_skip(why);
	}
	return fd;
}

static struct key key_of(uint32_t id)
{
	struct key k;

	memset(&k, 0, sizeof(k));
	k.id = id;
	memset(k.fill, (int)(id & 0x7f), sizeof(k.fill));
	return k;
}

static struct val val_of(uint32_t id)
{
	struct val v;

	for (int i = 0; i < 5; i++)
		v.v[i] = (uint64_t)id * 1000003u + (uint64_t)i;
	return v;
}

static void fill(int fd, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct key k = key_of(i);
		struct val v = val_of(i);

		assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
	}
}

static int take(const void *keys, const void *vals, size_t n, void *ctx)
{
	const struct key *k = keys;
	const struct val *v = vals;
	struct seen *s = ctx;

	s->chunks++;
	for (size_t i = 0; i < n; i++) {
		struct key want = key_of(k[i].id);
		struct val wv = val_of(k[i].id);

		if (k[i].id >= s->max || memcmp(&k[i], &want, sizeof(want)) ||
		    memcmp(&v[i], &wv, sizeof(wv))) {
			s->bad++;
			continue;
		}
		/* a key seen before: stop at once (a walk that starts over would never end) */
		if (s->hits[k[i].id]++)
			return -EEXIST;
	}
	return 0;
}

static bool map_empty(int fd)
{
	struct key k;

	return bpf_map_get_next_key(fd, NULL, &k) && errno == ENOENT;
}

/* n elements in a map of max, read and cleared by a map_batch that starts as given. */
static void run(uint32_t max, uint32_t n, enum map_batch_mode mode, uint32_t batch,
		struct map_batch *out)
{
	struct map_batch mb = {.mode = mode, .batch = batch};
	struct seen s = {.max = n, .hits = calloc(n + 1, 1)};
	int fd = map_new(max);

	assert_non_null(s.hits);
	fill(fd, n);
	assert_int_equal(map_batch__read(&mb, fd, sizeof(struct key), sizeof(struct val), take, &s),
			 0);
	assert_int_equal(s.bad, 0);
	for (uint32_t i = 0; i < n; i++)
		if (s.hits[i] != 1)
			fail_msg("key %u handed on %u times (of %u)", i, s.hits[i], n);
	/* the read leaves the map as it was */
	assert_false(map_empty(fd) && n);
	assert_int_equal(map_batch__clear(&mb, fd, sizeof(struct key), sizeof(struct val)), 0);
	assert_true(map_empty(fd));
	/* a clear of an empty map is fine too */
	assert_int_equal(map_batch__clear(&mb, fd, sizeof(struct key), sizeof(struct val)), 0);
	close(fd);
	free(s.hits);
	*out = mb;
}

static void test_empty(void **state)
{
	struct map_batch a, b;

	(void)state;
	run(64, 0, MAP_BATCH_UNKNOWN, 0, &a);
	assert_int_equal(a.mode, MAP_BATCH_ON);
	run(64, 0, MAP_BATCH_PER_KEY, 0, &b);
	assert_int_equal(b.mode, MAP_BATCH_PER_KEY);
}

static void test_one(void **state)
{
	struct map_batch a, b;

	(void)state;
	run(64, 1, MAP_BATCH_UNKNOWN, 0, &a);
	assert_int_equal(a.mode, MAP_BATCH_ON);
	run(64, 1, MAP_BATCH_PER_KEY, 0, &b);
}

/*
 * 4000 keys in 4096 buckets, read one element a call to begin with: buckets with two and
 * more keys are certain, and each must make the batch grow (ENOSPC) without losing a key.
 */
static void test_bucket_collisions(void **state)
{
	struct map_batch a, b;

	(void)state;
	run(4000, 4000, MAP_BATCH_UNKNOWN, 1, &a);
	assert_int_equal(a.mode, MAP_BATCH_ON);
	assert_true(a.regrown > 0);
	run(4000, 4000, MAP_BATCH_PER_KEY, 1, &b);
}

/* More than a batch: several calls, the token carried from one to the next. */
static void test_more_than_a_batch(void **state)
{
	struct map_batch a, b;
	uint32_t n = 3 * MAP_BATCH_DEF + 17;

	(void)state;
	run(8192, n, MAP_BATCH_UNKNOWN, 0, &a);
	assert_int_equal(a.mode, MAP_BATCH_ON);
	/* a read and two clears took a few calls, not one per key */
	assert_true(a.calls < n / 8);
	run(8192, n, MAP_BATCH_PER_KEY, 0, &b);
	assert_true(b.calls >= 2 * (uint64_t)n);
}

/* A map type without batch operations: refused on the first call, then per key, and kept. */
static void test_fallback_on_refusal(void **state)
{
	struct map_batch mb = {0};
	struct seen s = {.max = 4, .hits = calloc(5, 1)};
	int fd;

	(void)state;
	assert_non_null(s.hits);
	/* a stack trace map takes no batch (the kernel answers EINVAL or ENOTSUPP) */
	fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "cp_test_st", sizeof(uint32_t),
			    8 * sizeof(uint64_t), 16, NULL);
	if (fd < 0)
		cp_skip("bpf_map_create of a stack trace map (needs root)");
	/* it takes no updates from user space either: an empty one is read and cleared */
	assert_int_equal(map_batch__read(&mb, fd, sizeof(uint32_t), 8 * sizeof(uint64_t), take, &s),
			 0);
	assert_int_equal(mb.mode, MAP_BATCH_PER_KEY);
	assert_int_equal(map_batch__clear(&mb, fd, sizeof(uint32_t), 8 * sizeof(uint64_t)), 0);
	close(fd);
	free(s.hits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_bucket_collisions),
		cmocka_unit_test(test_more_than_a_batch),
		cmocka_unit_test(test_fallback_on_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
