// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <signal.h>
#include "session/stop_rule.h"

void stop_rule_start(struct stop_rule *s, uint64_t t0_ns, uint64_t duration_ms)
{
	s->deadline_ns = duration_ms ? t0_ns + duration_ms * 1000000ull : 0;
}

static void stop_for(struct stop_rule *s, enum stop_reason why)
{
	if (s->stop == STOP_NONE)
		s->stop = why;
}

void stop_rule_signal(struct stop_rule *s, int signo)
{
	/* a signal is the user's word: it says why, whatever stopped first */
	s->stop = STOP_SIGNAL;
	s->signal = signo;
	s->n_signals++;
}

void stop_rule_command_exited(struct stop_rule *s)
{
	stop_for(s, STOP_COMMAND);
}

void stop_rule_target_exited(struct stop_rule *s)
{
	if (s->n_targets && --s->n_targets == 0)
		stop_for(s, STOP_TARGETS);
}

void stop_rule_time(struct stop_rule *s, uint64_t now_ns)
{
	if (s->deadline_ns && now_ns >= s->deadline_ns)
		stop_for(s, STOP_DURATION);
}

void stop_rule_deadline(struct stop_rule *s)
{
	stop_for(s, STOP_DURATION);
}

void stop_rule_drain(struct stop_rule *s)
{
	s->draining = true;
}

bool stop_rule_check_due(struct stop_rule *s, uint64_t now_ns)
{
	if (now_ns < s->next_check_ns)
		return false;
	s->next_check_ns = now_ns + STOP_CHECK_NS;
	return true;
}

bool stop_rule_interrupts(const struct stop_rule *s)
{
	return s->draining ? stop_rule_hurry(s) : s->stop != STOP_NONE;
}

bool stop_rule_hurry(const struct stop_rule *s)
{
	return s->n_signals >= 2;
}

bool stop_rule_by_signal(const struct stop_rule *s)
{
	return s->stop == STOP_SIGNAL;
}

int stop_rule_wait_ms(uint64_t deadline_ns, uint64_t now_ns)
{
	uint64_t ms;

	if (!deadline_ns)
		return -1;
	if (now_ns >= deadline_ns)
		return 0;
	/* rounded up (never early), without overflow near UINT64_MAX */
	ms = (deadline_ns - now_ns) / 1000000 + ((deadline_ns - now_ns) % 1000000 != 0);
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int stop_rule_exit_status(const struct stop_rule *s)
{
	return 128 + s->signal;
}

const char *stop_rule_signal_name(int signo)
{
	return signo == SIGINT	  ? "SIGINT"
	       : signo == SIGTERM ? "SIGTERM"
	       : signo == SIGHUP  ? "SIGHUP"
				  : "a signal";
}
