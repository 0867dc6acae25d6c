// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "session/interp_queue.h"
#include "util/grow.h"

static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void interp_queue_add(struct interp_queue *q, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->v[i].pid == pid && q->v[i].gen == gen)
			return;
	if (array_grow((void **)&q->v, &q->cap, q->n + 1, sizeof(*q->v)))
		return;
	q->v[q->n++] = (struct interp_pending){.pid = pid, .gen = gen};
}

bool interp_queue_has_newer(const struct interp_queue *q, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->v[i].pid == pid && q->v[i].gen > gen)
			return true;
	return false;
}

void interp_queue_tick(struct interp_queue *q, uint64_t budget_ns, unsigned int max_tries,
		       bool (*try)(void *ctx, uint32_t pid, uint32_t gen), void *ctx)
{
	uint64_t t0 = clock_ns();
	size_t keep = 0;

	for (size_t i = 0; i < q->n; i++) {
		struct interp_pending pe = q->v[i];

		/* a tick's time is bounded (many processes at the start): the rest waits; the
		 * first is always tried, so that each tick makes progress */
		if (i && clock_ns() - t0 > budget_ns) {
			q->v[keep++] = pe;
			continue;
		}
		if (try(ctx, pe.pid, pe.gen) && ++pe.tries < max_tries)
			q->v[keep++] = pe;
	}
	q->n = keep;
}

void interp_queue_free(struct interp_queue *q)
{
	free(q->v);
	*q = (struct interp_queue){0};
}

/* Is k among keys (sorted)? */
static bool key_in(const uint64_t *keys, size_t n, uint64_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo] == k;
}

size_t interp_prune(void *v, size_t n, size_t size, const uint64_t *keys, size_t nk,
		    void (*drop)(void *item))
{
	char *base = v;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		char *item = base + i * size;
		uint32_t id[2];

		memcpy(id, item, sizeof(id));
		if (key_in(keys, nk, (uint64_t)id[0] << 32 | id[1])) {
			if (drop)
				drop(item);
			continue;
		}
		if (m != i)
			memmove(base + m * size, item, size);
		m++;
	}
	return m;
}
