// SPDX-License-Identifier: GPL-2.0
/*
 * Watching fds and events (session/watch.h): timers in an epoll set, and the watch thread,
 * which pauses once at the deadline or at a pending stop signal, and not at all when it is
 * ended first. Waits are bounded (5 s) and nothing here measures a time.
 */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include "cmocka_inc.h"
#include "session/watch.h"
#include "util/clock.h"

static atomic_int n_paused;

static void count_pause(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&n_paused, 1);
}

/* Wait until the watch paused, 5 s at most. */
static bool wait_paused(void)
{
	for (int i = 0; i < 500 && !atomic_load(&n_paused); i++)
		usleep(10000);
	return atomic_load(&n_paused) > 0;
}

static void test_timer(void **state)
{
	struct epoll_event ev;
	int epfd = epoll_create1(EPOLL_CLOEXEC), fd = watch_timer(1, 0);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(watch_add(epfd, fd), 0);
	assert_int_equal(watch_add(epfd, fd), -EEXIST);
	assert_int_equal(epoll_wait(epfd, &ev, 1, 5000), 1);
	assert_int_equal(ev.data.fd, fd);
	assert_true(watch_ticked(fd));
	assert_false(watch_ticked(fd)); /* once: no interval */
	close(fd);
	close(epfd);
}

static void test_deadline(void **state)
{
	struct watch w;
	struct timespec when;
	sigset_t none;
	uint64_t deadline = monotonic_ns() + 20 * 1000000ull;

	(void)state;
	sigemptyset(&none);
	atomic_store(&n_paused, 0);
	watch_init(&w);
	assert_int_equal(watch_start(&w, &none, deadline, count_pause, NULL), 0);
	assert_true(wait_paused());
	watch_end(&w);
	assert_int_equal(atomic_load(&n_paused), 1);
	assert_true(watch_paused(&w, &when));
	assert_true((uint64_t)when.tv_sec * 1000000000ull + (uint64_t)when.tv_nsec >= deadline);
	watch_free(&w);
}

/* A stop signal pending (process-directed, blocked everywhere): the watch pauses, unread. */
static void test_signal(void **state)
{
	struct watch w;
	sigset_t set, old;
	int sig = 0;

	(void)state;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, &old), 0);
	atomic_store(&n_paused, 0);
	watch_init(&w);
	assert_int_equal(watch_start(&w, &set, 0, count_pause, NULL), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&n_paused), 0);
	kill(getpid(), SIGUSR1);
	assert_true(wait_paused());
	watch_free(&w);
	assert_int_equal(atomic_load(&n_paused), 1);
	/* still pending: the watch never reads it */
	assert_int_equal(sigwait(&set, &sig), 0);
	assert_int_equal(sig, SIGUSR1);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Ended before the deadline: no pause; a watch never started ends and frees as well. */
static void test_end_first(void **state)
{
	struct watch w;
	sigset_t none;

	(void)state;
	sigemptyset(&none);
	atomic_store(&n_paused, 0);
	watch_init(&w);
	watch_end(&w);
	watch_free(&w);
	watch_init(&w);
	assert_int_equal(
		watch_start(&w, &none, monotonic_ns() + 3600 * 1000000000ull, count_pause, NULL),
		0);
	watch_end(&w);
	assert_false(watch_paused(&w, NULL));
	assert_int_equal(atomic_load(&n_paused), 0);
	watch_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_end_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
