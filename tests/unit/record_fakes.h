/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The world test_record.c runs the session (session/record.c) in: record.c is linked with the
 * units it sequences (stop_rule, set_queue, proc_track) and, in place of everything else it
 * calls (the BPF loader and its copies, the setup steps of record_setup.c, naming, the
 * profile, the outputs, the command, the watch, libbpf's ring buffer), with the fakes of
 * record_fakes.c, at link time (the Makefile's rule for test_record). The kernel's clock and
 * poll are the linker's --wrap of clock_gettime and epoll_wait: the monotonic clock is
 * fw.now_ns, and each epoll_wait of the loop plays the next action of fw.script (a timer fires,
 * a signal arrives, the command exits) on real fds (the session's signalfd, eventfds for the
 * timers and the ring buffer). Every call that matters to the order is written to fw.trace.
 * When record.c comes to call a function of another module, the link of test_record names it:
 * its fake goes in record_fakes.c (or the module, when it is a pure unit, in the Makefile's
 * RECORD_TEST_OBJS).
 */
#ifndef CPUPROF_RECORD_FAKES_H
#define CPUPROF_RECORD_FAKES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "session/report.h"
#include "shared.h"

#define FAKE_MS	       1000000ull
#define FAKE_TRACE_MAX 1024
#define FAKE_COPIES    16
#define FAKE_NONE      ((size_t)-1)

/* What one epoll_wait of the session's loop does before it polls (without blocking). */
enum fake_act_kind {
	FA_IDLE,     /* nothing: the poll finds nothing ready */
	FA_TICK,     /* fw.tick_ns pass, the drain timer fires */
	FA_DEADLINE, /* the clock reaches the end of -d, its timer fires */
	FA_SIGNAL,   /* the signal arg arrives */
	FA_EXIT,     /* the command exits with status arg (SIGCHLD) */
	FA_TARGET,   /* -p target arg exits (its pidfd becomes readable) */
	FA_EVENTS,   /* arg requests from BPF (first samples of new processes) are queued */
};

struct fake_act {
	enum fake_act_kind kind;
	int arg;
};

struct fake_world {
	/* the loop's script, played one action per epoll_wait */
	const struct fake_act *script;
	size_t n_script, next_act;
	bool script_over; /* the loop waited once more than the script has actions */
	uint64_t now_ns;  /* the monotonic clock */
	uint64_t tick_ns; /* what FA_TICK adds */
	uint64_t t_start; /* the clock when sampling started */
	/* the setup steps (record_setup.c): which fails, which receives a signal */
	const char *fail_step; /* "check_environment", ..., "start_sampling" */
	int fail_rc;
	const char *signal_step;
	int signal;
	size_t n_outs; /* -o given */
	/* the sets: copy i holds copy_total[i] samples and is named in copy_steps[i] steps */
	uint64_t copy_total[FAKE_COPIES];
	unsigned int copy_steps[FAKE_COPIES];
	uint64_t step_ns; /* the clock per naming step */
	size_t n_copies;
	int copy_fail_at;      /* the copy that fails (-ENOMEM), -1: none */
	uint64_t recorded;     /* the kernel's count: every sample of the copies */
	unsigned int fill_pct; /* how full the active set is */
	uint64_t named;	       /* samples the naming put into the profile */
	int kill_at_step;      /* raise kill_sig before this naming step (all copies), 0: never */
	int kill_sig;
	unsigned int n_steps;
	/* the watch: with watch_thread, it pauses sampling at the deadline (in a naming step) */
	bool watch_thread;
	uint64_t watch_deadline;
	void (*watch_pause)(void *ctx);
	void *watch_ctx;
	bool watch_paused;
	/* the requests from BPF: each one's mappings read in refresh_ns */
	unsigned int rb_queued, n_events, n_refreshed, refreshed_at_stop, kill_at_refresh;
	uint64_t refresh_ns;
	/* -p: the targets' pidfds (eventfds) */
	int target_fd[4];
	/* the command */
	bool wl_exited;
	int wl_status;
	/* what reached the output */
	unsigned int n_writes;
	size_t n_written; /* outputs given to report_write */
	size_t n_aborted; /* outputs aborted, not written */
	struct report rep;
	uint64_t rep_stats[CP_STAT_MAX];
	uint64_t rep_total; /* samples of the profile written */
	/* fds of the fakes */
	int dur_fd, drain_fd, rb_fd;
	int live; /* fake objects allocated and not freed */
	char trace[FAKE_TRACE_MAX][40];
	size_t n_trace;
};

extern struct fake_world fw;

/* A new world: nothing happened, every copy holds 10 + i samples named in one step. */
void fake_reset(void);
/* Index in fw.trace of the first (last) event ev, FAKE_NONE when there is none. */
size_t fake_first(const char *ev);
size_t fake_last(const char *ev);
/* How many times ev is in fw.trace. */
size_t fake_count(const char *ev);
/* Print fw.trace (when a test fails, to see the order). */
void fake_dump(void);

#endif
