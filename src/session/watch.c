// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include "session/stop_rule.h"
#include "session/watch.h"
#include "util/clock.h"

int watch_timer(uint64_t first_ms, uint64_t interval_ms)
{
	struct itimerspec its = {
		.it_value = {.tv_sec = first_ms / 1000, .tv_nsec = (first_ms % 1000) * 1000000},
		.it_interval = {.tv_sec = interval_ms / 1000,
				.tv_nsec = (interval_ms % 1000) * 1000000},
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int watch_add(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

bool watch_ticked(int fd)
{
	uint64_t ticks;

	return read(fd, &ticks, sizeof(ticks)) > 0;
}

void watch_init(struct watch *w)
{
	*w = (struct watch){.quitfd = -1, .sigfd = -1};
}

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	struct pollfd p[2] = {{.fd = w->quitfd, .events = POLLIN},
			      {.fd = w->sigfd, .events = POLLIN}};

	for (;;) {
		int timeout = stop_rule_wait_ms(w->deadline_ns, monotonic_ns()), n;

		if (timeout == 0)
			break;
		n = poll(p, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return NULL;
		if (p[1].revents)
			break; /* a stop signal is pending: the session reads it when it can */
	}
	w->pause(w->ctx);
	clock_gettime(CLOCK_MONOTONIC, &w->t_pause);
	atomic_store(&w->paused, true);
	return NULL;
}

int watch_start(struct watch *w, const sigset_t *stop, uint64_t deadline_ns,
		void (*pause)(void *ctx), void *ctx)
{
	w->sigfd = signalfd(-1, stop, SFD_CLOEXEC | SFD_NONBLOCK);
	w->quitfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->deadline_ns = deadline_ns;
	w->pause = pause;
	w->ctx = ctx;
	if (w->sigfd < 0 || w->quitfd < 0)
		return -errno;
	if (pthread_create(&w->thread, NULL, watch_main, w))
		return -EAGAIN;
	w->running = true;
	return 0;
}

void watch_end(struct watch *w)
{
	uint64_t one = 1;
	ssize_t n;

	if (!w->running)
		return;
	/* an eventfd write of 1 fails only on overflow: the thread sees it readable anyway */
	n = write(w->quitfd, &one, sizeof(one));
	(void)n;
	pthread_join(w->thread, NULL);
	w->running = false;
}

bool watch_paused(const struct watch *w, struct timespec *when)
{
	if (!atomic_load(&w->paused))
		return false;
	if (when)
		*when = w->t_pause;
	return true;
}

void watch_free(struct watch *w)
{
	watch_end(w);
	if (w->quitfd >= 0)
		close(w->quitfd);
	if (w->sigfd >= 0)
		close(w->sigfd);
	w->quitfd = w->sigfd = -1;
}
