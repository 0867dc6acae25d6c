// SPDX-License-Identifier: GPL-2.0
/*
 * When a recording stops (session/stop_rule.h): -d from the start of sampling, a stop signal,
 * the command's exit, the last -p target's exit; what interrupts a busy step while recording
 * and while draining; the wait for the deadline; the exit status of a signal's stop.
 */
#include <signal.h>
#include "cmocka_inc.h"
#include "session/stop_rule.h"

#define MS 1000000ull

static void test_duration(void **state)
{
	struct stop_rule s = {0};

	(void)state;
	stop_rule_start(&s, 1000 * MS, 250);
	stop_rule_time(&s, 1249 * MS);
	assert_int_equal(s.stop, STOP_NONE);
	assert_false(stop_rule_interrupts(&s));
	stop_rule_time(&s, 1250 * MS);
	assert_int_equal(s.stop, STOP_DURATION);
	assert_true(stop_rule_interrupts(&s));
	assert_false(stop_rule_by_signal(&s));
	/* without -d the clock never stops it */
	s = (struct stop_rule){0};
	stop_rule_start(&s, 1000 * MS, 0);
	stop_rule_time(&s, UINT64_MAX);
	assert_int_equal(s.stop, STOP_NONE);
	stop_rule_deadline(&s); /* the timer's word */
	assert_int_equal(s.stop, STOP_DURATION);
}

/* A signal says why even after another stop; the first other reason stays. */
static void test_reasons(void **state)
{
	struct stop_rule s = {0};

	(void)state;
	stop_rule_command_exited(&s);
	stop_rule_deadline(&s);
	assert_int_equal(s.stop, STOP_COMMAND);
	stop_rule_signal(&s, SIGTERM);
	assert_int_equal(s.stop, STOP_SIGNAL);
	assert_true(stop_rule_by_signal(&s));
	assert_int_equal(stop_rule_exit_status(&s), 128 + SIGTERM);
	assert_string_equal(stop_rule_signal_name(s.signal), "SIGTERM");
	assert_string_equal(stop_rule_signal_name(SIGINT), "SIGINT");
	assert_string_equal(stop_rule_signal_name(SIGHUP), "SIGHUP");
	assert_string_equal(stop_rule_signal_name(SIGUSR1), "a signal");
}

/* Only the last of the -p targets stops the recording; no target: never. */
static void test_targets(void **state)
{
	struct stop_rule s = {.n_targets = 2};

	(void)state;
	stop_rule_target_exited(&s);
	assert_int_equal(s.stop, STOP_NONE);
	stop_rule_target_exited(&s);
	assert_int_equal(s.stop, STOP_TARGETS);
	s = (struct stop_rule){0};
	stop_rule_target_exited(&s);
	assert_int_equal(s.stop, STOP_NONE);
	assert_int_equal(s.n_targets, 0);
}

/* Draining: the first signal ended sampling and no longer interrupts; a second hurries. */
static void test_draining(void **state)
{
	struct stop_rule s = {0};

	(void)state;
	stop_rule_signal(&s, SIGINT);
	assert_true(stop_rule_interrupts(&s));
	assert_false(stop_rule_hurry(&s));
	stop_rule_drain(&s);
	assert_false(stop_rule_interrupts(&s));
	stop_rule_signal(&s, SIGINT);
	assert_true(stop_rule_hurry(&s));
	assert_true(stop_rule_interrupts(&s));
}

/* Signals are looked for every STOP_CHECK_NS at most, whatever the number of questions. */
static void test_check_due(void **state)
{
	struct stop_rule s = {0};

	(void)state;
	assert_true(stop_rule_check_due(&s, 100 * MS));
	assert_false(stop_rule_check_due(&s, 100 * MS));
	assert_false(stop_rule_check_due(&s, 100 * MS + STOP_CHECK_NS - 1));
	assert_true(stop_rule_check_due(&s, 100 * MS + STOP_CHECK_NS));
}

static void test_wait_ms(void **state)
{
	(void)state;
	assert_int_equal(stop_rule_wait_ms(0, 5), -1);
	assert_int_equal(stop_rule_wait_ms(10 * MS, 10 * MS), 0);
	assert_int_equal(stop_rule_wait_ms(10 * MS, 11 * MS), 0);
	assert_int_equal(stop_rule_wait_ms(10 * MS, 9 * MS), 1);
	assert_int_equal(stop_rule_wait_ms(10 * MS, 9 * MS + 1), 1); /* rounded up: never early */
	assert_int_equal(stop_rule_wait_ms(UINT64_MAX, 0), INT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),  cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_targets),	  cmocka_unit_test(test_draining),
		cmocka_unit_test(test_check_due), cmocka_unit_test(test_wait_ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
