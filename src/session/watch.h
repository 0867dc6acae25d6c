/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching fds and events for the recording session: the timers and the epoll set of its
 * loop, and the watch, a thread that acts (pauses sampling) at the end of -d or as soon as a
 * stop signal is pending, even while the session names a long backlog on a starved machine.
 * The watch only calls the pause given to it, once, from its thread; it reads no signal (the
 * session does) and never calls into the session's loop. Nothing here prints.
 */
#ifndef CPUPROF_WATCH_H
#define CPUPROF_WATCH_H
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* A monotonic timer fd: first after first_ms, then every interval_ms (0: once). Or -errno. */
int watch_timer(uint64_t first_ms, uint64_t interval_ms);
/* Add fd to the epoll set epfd (readable). 0 or a negative errno. */
int watch_add(int epfd, int fd);
/* Read a timer fd's ticks: true if it had fired. */
bool watch_ticked(int fd);

struct watch {
	pthread_t thread;
	bool running;
	int quitfd;		  /* eventfd: the watch is over */
	int sigfd;		  /* the stop signals, polled and never read */
	uint64_t deadline_ns;	  /* monotonic end of -d, 0: none */
	void (*pause)(void *ctx); /* what the watch does, from its thread */
	void *ctx;
	atomic_bool paused;	 /* it called pause */
	struct timespec t_pause; /* when */
};

/* A watch not started: watch_end and watch_free do nothing. */
void watch_init(struct watch *w);

/*
 * Start the watch: it calls pause(ctx) once, at deadline_ns (monotonic; 0: none) or when one
 * of stop (blocked in every thread) is pending, unless watch_end comes first. 0 or a
 * negative errno (then there is no watch: the session alone stops).
 */
int watch_start(struct watch *w, const sigset_t *stop, uint64_t deadline_ns,
		void (*pause)(void *ctx), void *ctx);

/* End the watch and wait for its thread. */
void watch_end(struct watch *w);

/* Whether the watch paused, and when (*when, CLOCK_MONOTONIC). Once watch_end has returned. */
bool watch_paused(const struct watch *w, struct timespec *when);

/* End it and close its fds. */
void watch_free(struct watch *w);

#endif
