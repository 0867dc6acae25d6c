// SPDX-License-Identifier: GPL-2.0
/*
 * The queue of processes an interpreter's attach tries again (session/interp_queue.h): one
 * entry per (pid, gen), newer generations seen, an entry kept while its try asks for it and at
 * most max_tries times, and what a tick has no time for kept for the next.
 */
#include "cmocka_inc.h"
#include "session/interp_queue.h"

struct calls {
	int n;
	uint32_t pids[16];
	bool again;
};

static bool try_log(void *ctx, uint32_t pid, uint32_t gen)
{
	struct calls *c = ctx;

	(void)gen;
	if (c->n < 16)
		c->pids[c->n] = pid;
	c->n++;
	return c->again;
}

static void test_add_newer(void **state)
{
	struct interp_queue q = {0};

	(void)state;
	interp_queue_add(&q, 10, 1);
	interp_queue_add(&q, 10, 1);
	interp_queue_add(&q, 11, 0);
	assert_int_equal(q.n, 2);
	assert_true(interp_queue_has_newer(&q, 10, 0));
	assert_false(interp_queue_has_newer(&q, 10, 1));
	assert_false(interp_queue_has_newer(&q, 12, 0));
	interp_queue_free(&q);
	assert_int_equal(q.n, 0);
}

static void test_tries(void **state)
{
	struct interp_queue q = {0};
	struct calls c = {.again = true};

	(void)state;
	interp_queue_add(&q, 1, 0);
	interp_queue_add(&q, 2, 0);
	for (int i = 0; i < 5; i++)
		interp_queue_tick(&q, UINT64_MAX, 3, try_log, &c);
	/* each tried 3 times, in order, then dropped */
	assert_int_equal(c.n, 6);
	assert_int_equal(c.pids[0], 1);
	assert_int_equal(c.pids[1], 2);
	assert_int_equal(q.n, 0);

	/* done at the first try: dropped at once */
	c = (struct calls){.again = false};
	interp_queue_add(&q, 3, 0);
	interp_queue_tick(&q, UINT64_MAX, 3, try_log, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(q.n, 0);
	interp_queue_free(&q);
}

/* A tick whose time is up keeps the rest, untried, for the next one. */
static void test_budget(void **state)
{
	struct interp_queue q = {0};
	struct calls c = {.again = false};

	(void)state;
	for (uint32_t pid = 1; pid <= 4; pid++)
		interp_queue_add(&q, pid, 0);
	interp_queue_tick(&q, 0, 3, try_log, &c);
	assert_true(c.n >= 1 && c.n <= 4);
	assert_int_equal(q.n, 4 - (size_t)c.n);
	while (q.n)
		interp_queue_tick(&q, 0, 3, try_log, &c);
	assert_int_equal(c.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c.pids[i], i + 1);
	interp_queue_free(&q);
}

struct item {
	uint32_t pid, gen;
	char name[12];
};

static int n_dropped;

static void count_drop(void *item)
{
	assert_int_equal(((struct item *)item)->pid, 7);
	n_dropped++;
}

/*
 * Pruning ended processes: the items of the keys given go (each seen by drop), whatever their
 * place, other generations of the same pid stay, the rest keep their order.
 */
static void test_prune(void **state)
{
	struct item v[] = {{7, 1, "a"}, {3, 0, "b"}, {7, 2, "c"}, {7, 1, "d"}, {9, 0, "e"}};
	const uint64_t keys[] = {(uint64_t)5 << 32, (uint64_t)7 << 32 | 1, (uint64_t)9 << 32 | 1};

	(void)state;
	assert_int_equal(interp_prune(v, 5, sizeof(v[0]), keys, 3, count_drop), 3);
	assert_int_equal(n_dropped, 2);
	assert_string_equal(v[0].name, "b");
	assert_string_equal(v[1].name, "c");
	assert_string_equal(v[2].name, "e");
	assert_int_equal(interp_prune(v, 3, sizeof(v[0]), keys, 0, NULL), 3);
	assert_int_equal(interp_prune(v, 0, sizeof(v[0]), keys, 3, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_newer),
		cmocka_unit_test(test_tries),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_prune),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
