// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "session/options.h"
#include "session/set_queue.h"
#include "util/grow.h"

void set_queue_init(struct set_queue *q, uint64_t interval_ms, uint64_t now_ns)
{
	*q = (struct set_queue){.interval_ns = interval_ms * 1000000ull};
	q->next_drain_ns = now_ns + q->interval_ns;
}

int set_queue_push(struct set_queue *q, void *set, uint64_t samples)
{
	if (array_grow((void **)&q->v, &q->cap, q->n + 1, sizeof(*q->v)))
		return -ENOMEM;
	q->v[q->n++] = set;
	q->n_taken++;
	q->n_copied += samples;
	return 0;
}

void *set_queue_oldest(const struct set_queue *q)
{
	return q->n ? q->v[0] : NULL;
}

void set_queue_named(struct set_queue *q, uint64_t samples)
{
	if (!q->n)
		return;
	memmove(q->v, q->v + 1, --q->n * sizeof(*q->v));
	q->n_named++;
	q->n_agg += samples;
}

bool set_queue_interval_up(const struct set_queue *q, uint64_t now_ns)
{
	return now_ns >= q->next_drain_ns;
}

bool set_queue_filling(unsigned int pct)
{
	return pct >= CP_DRAIN_FILL_PCT;
}

bool set_queue_tick(struct set_queue *q, uint64_t now_ns, int pct)
{
	if (set_queue_interval_up(q, now_ns))
		return true;
	if (pct < 0 || !set_queue_filling((unsigned int)pct))
		return false;
	q->n_fill++;
	return true;
}

void set_queue_drained(struct set_queue *q, uint64_t now_ns)
{
	q->next_drain_ns = now_ns + q->interval_ns;
}

bool set_queue_fill_due(struct set_queue *q, uint64_t now_ns)
{
	if (now_ns < q->next_fill_ns)
		return false;
	q->next_fill_ns = now_ns + SET_QUEUE_FILL_NS;
	return true;
}

uint64_t set_queue_release_at(const struct set_queue *q)
{
	return (uint64_t)q->n_taken + 2;
}

bool set_queue_adds_up(const struct set_queue *q, uint64_t recorded)
{
	return recorded == q->n_copied && q->n_copied == q->n_agg;
}

void set_queue_free(struct set_queue *q, void (*free_set)(void *set))
{
	for (size_t i = 0; i < q->n; i++)
		free_set(q->v[i]);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}
