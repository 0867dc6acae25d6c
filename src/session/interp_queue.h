/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Processes an interpreter's attach must try again (record_rt.c): the
 * interpreter is mapped but not ready yet (CPython not initialised, Ruby's TLS slot not filled
 * by the loader). Each (pid, gen) is tried once per tick, for a bounded time per tick and a
 * bounded number of ticks.
 */
#ifndef CP_SESSION_INTERP_QUEUE_H
#define CP_SESSION_INTERP_QUEUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct interp_pending {
	uint32_t pid, gen;
	unsigned int tries;
};

struct interp_queue {
	struct interp_pending *v;
	size_t n, cap;
};

/* Add (pid, gen) unless it is queued already (no memory: dropped, as a lost request is). */
void interp_queue_add(struct interp_queue *q, uint32_t pid, uint32_t gen);

/* Whether a generation of pid newer than gen is queued. */
bool interp_queue_has_newer(const struct interp_queue *q, uint32_t pid, uint32_t gen);

/*
 * One tick: try(ctx, pid, gen) for each queued process while budget_ns lasts (the first at
 * least; the rest waits for the next tick); try returns true to be tried again, which happens
 * max_tries times at most.
 */
void interp_queue_tick(struct interp_queue *q, uint64_t budget_ns, unsigned int max_tries,
		       bool (*try)(void *ctx, uint32_t pid, uint32_t gen), void *ctx);

void interp_queue_free(struct interp_queue *q);

/*
 * What record_rt.c keeps per process, pruned: of the n items of `size` bytes
 * at v, each starting with uint32_t pid, gen, those whose (pid << 32 | gen) is among keys
 * (sorted, nk of them) go, drop(item) called first when not NULL; the rest move down in
 * order. Returns how many are kept.
 */
size_t interp_prune(void *v, size_t n, size_t size, const uint64_t *keys, size_t nk,
		    void (*drop)(void *item));

#endif
