// SPDX-License-Identifier: GPL-2.0
/*
 * Which set to drain when (session/set_queue.h): copies named oldest first, a drain by the
 * interval or by a filling set (counted), the fill levels looked at every SET_QUEUE_FILL_NS
 * while naming, when a gone process's snapshot may go, and the accounts that must add up.
 */
#include "cmocka_inc.h"
#include "session/options.h"
#include "session/set_queue.h"

#define MS 1000000ull

static int n_freed;

static void free_set(void *set)
{
	n_freed++;
	free(set);
}

static void test_order(void **state)
{
	struct set_queue q;
	int *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));

	(void)state;
	set_queue_init(&q, 100, 0);
	assert_null(set_queue_oldest(&q));
	set_queue_named(&q, 0); /* nothing to name: nothing counted */
	assert_int_equal(q.n_named, 0);
	assert_int_equal(set_queue_push(&q, a, 5), 0);
	assert_int_equal(set_queue_push(&q, b, 7), 0);
	assert_ptr_equal(set_queue_oldest(&q), a);
	set_queue_named(&q, 5);
	free(a);
	assert_ptr_equal(set_queue_oldest(&q), b);
	/* a set taken while naming joins the end */
	assert_int_equal(set_queue_push(&q, c, 1), 0);
	set_queue_named(&q, 7);
	free(b);
	assert_ptr_equal(set_queue_oldest(&q), c);
	assert_int_equal(q.n_taken, 3);
	assert_int_equal(q.n_named, 2);
	assert_false(set_queue_adds_up(&q, 13)); /* c is not named yet */
	n_freed = 0;
	set_queue_free(&q, free_set);
	assert_int_equal(n_freed, 1);
	assert_null(set_queue_oldest(&q));
}

static void test_adds_up(void **state)
{
	struct set_queue q;
	int x, y;

	(void)state;
	set_queue_init(&q, 100, 0);
	assert_true(set_queue_adds_up(&q, 0));
	set_queue_push(&q, &x, 10);
	set_queue_push(&q, &y, 0);
	set_queue_named(&q, 10);
	set_queue_named(&q, 0);
	assert_true(set_queue_adds_up(&q, 10));
	assert_false(set_queue_adds_up(&q, 11)); /* counted in the kernel, never copied */
	q.n_agg--;				 /* copied, lost in naming */
	assert_false(set_queue_adds_up(&q, 10));
	set_queue_free(&q, free_set);
}

/* The interval, and the fill level only when it is not up; a drain for the fill counted. */
static void test_tick(void **state)
{
	struct set_queue q;

	(void)state;
	set_queue_init(&q, 100, 1000 * MS);
	assert_false(set_queue_tick(&q, 1050 * MS, -1));
	assert_false(set_queue_tick(&q, 1050 * MS, CP_DRAIN_FILL_PCT - 1));
	assert_int_equal(q.n_fill, 0);
	assert_true(set_queue_tick(&q, 1050 * MS, CP_DRAIN_FILL_PCT));
	assert_int_equal(q.n_fill, 1);
	set_queue_drained(&q, 1060 * MS);
	assert_false(set_queue_interval_up(&q, 1159 * MS));
	assert_true(set_queue_tick(&q, 1160 * MS, -1));
	assert_true(set_queue_tick(&q, 1160 * MS, 100));
	assert_int_equal(q.n_fill, 1); /* due anyway: not for the fill */
	assert_true(set_queue_filling(100));
	assert_false(set_queue_filling(0));
}

static void test_fill_due(void **state)
{
	struct set_queue q;

	(void)state;
	set_queue_init(&q, 100, 0);
	assert_true(set_queue_fill_due(&q, 10 * MS));
	assert_false(set_queue_fill_due(&q, 10 * MS + SET_QUEUE_FILL_NS - 1));
	assert_true(set_queue_fill_due(&q, 10 * MS + SET_QUEUE_FILL_NS));
}

/* A process gone now may have a sample in the set taken next, not in the one after. */
static void test_release_at(void **state)
{
	struct set_queue q;
	int x;

	(void)state;
	set_queue_init(&q, 100, 0);
	assert_int_equal(set_queue_release_at(&q), 2);
	set_queue_push(&q, &x, 1);
	assert_int_equal(set_queue_release_at(&q), 3);
	set_queue_named(&q, 1);
	set_queue_free(&q, free_set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),	   cmocka_unit_test(test_adds_up),
		cmocka_unit_test(test_tick),	   cmocka_unit_test(test_fill_due),
		cmocka_unit_test(test_release_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
