/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a recording stops, decided from what happened (signals, the command's exit, the -p
 * targets' exits, the clock): pure functions over struct stop_rule, no system call, no
 * printing. The session feeds it events and times and asks it questions; it owns no fd.
 */
#ifndef CPUPROF_STOP_RULE_H
#define CPUPROF_STOP_RULE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stop_reason {
	STOP_NONE = 0,
	STOP_DURATION,
	STOP_SIGNAL,
	STOP_COMMAND,
	STOP_TARGETS, /* every -p process has exited */
};

/* Signals are looked for at most this often while the loop is busy (ns). */
#define STOP_CHECK_NS (50 * 1000000ull)

struct stop_rule {
	enum stop_reason stop;	/* the first reason to stop, STOP_NONE while recording */
	int signal;		/* the last stop signal */
	unsigned int n_signals; /* stop signals (SIGINT, SIGTERM, SIGHUP) so far */
	size_t n_targets;	/* -p processes still alive */
	uint64_t deadline_ns;	/* monotonic end of -d; 0: none */
	bool draining;		/* sampling has stopped: the counts are being named */
	uint64_t next_check_ns; /* stop_rule_check_due */
};

/* Sampling started at t0_ns (monotonic): -d (duration_ms, 0: none) counts from there. */
void stop_rule_start(struct stop_rule *s, uint64_t t0_ns, uint64_t duration_ms);

/* A stop signal arrived. */
void stop_rule_signal(struct stop_rule *s, int signo);
/* The command has exited. */
void stop_rule_command_exited(struct stop_rule *s);
/* A -p target has exited: the last one stops the recording. */
void stop_rule_target_exited(struct stop_rule *s);
/* The time is now_ns: past the deadline of -d, the recording stops. */
void stop_rule_time(struct stop_rule *s, uint64_t now_ns);
/* The -d timer has fired. */
void stop_rule_deadline(struct stop_rule *s);
/* Sampling has stopped: from now on only a second stop signal interrupts. */
void stop_rule_drain(struct stop_rule *s);

/* Whether it is time to look for signals again (every STOP_CHECK_NS); if so, counts from now. */
bool stop_rule_check_due(struct stop_rule *s, uint64_t now_ns);
/*
 * Whether a busy step (requests from BPF, naming) should give way: while recording, any stop;
 * while draining, a second stop signal.
 */
bool stop_rule_interrupts(const struct stop_rule *s);
/* A stop signal came after the one that ended sampling: name from symbol tables only. */
bool stop_rule_hurry(const struct stop_rule *s);
/* A stop signal has stopped the recording (before sampling: the steps give up). */
bool stop_rule_by_signal(const struct stop_rule *s);
/* Milliseconds to wait for the deadline (rounded up), -1: no deadline, 0: it has passed. */
int stop_rule_wait_ms(uint64_t deadline_ns, uint64_t now_ns);
/* The exit status of a recording a stop signal ended: 128 + the signal, as the shell has it. */
int stop_rule_exit_status(const struct stop_rule *s);
/* "SIGINT", "SIGTERM", "SIGHUP" or "a signal". */
const char *stop_rule_signal_name(int signo);

#endif
