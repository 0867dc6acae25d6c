/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of the kernel's two sets of aggregation maps (bpf/shared.h) to drain, when: while
 * samples go to one set, the other is taken (switched from, copied out, cleared) and its copy
 * queued here until it is named. A drain is due every --drain-interval, or sooner when a set
 * is filling up; while a long naming runs, the fill levels are looked at every
 * SET_QUEUE_FILL_NS at most. The queue holds the copies as opaque pointers and keeps the
 * accounts (sets taken and named, samples copied and named) that must add up at the end. No
 * system call, no printing: the session reads the clock and the fill levels.
 */
#ifndef CPUPROF_SET_QUEUE_H
#define CPUPROF_SET_QUEUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SET_QUEUE_FILL_NS (50 * 1000000ull)
/* Both sets are taken once sampling has stopped. */
#define SET_QUEUE_LAST_TAKES 2

struct set_queue {
	void **v; /* sets taken, not named yet, oldest first */
	size_t n, cap;
	unsigned int n_taken;	/* sets taken from the kernel */
	unsigned int n_fill;	/* of which because a set was filling up */
	uint64_t n_named;	/* sets named */
	uint64_t n_copied;	/* samples copied out of the kernel (the sets' sums) */
	uint64_t n_agg;		/* samples the named sets gave */
	uint64_t interval_ns;	/* --drain-interval */
	uint64_t next_drain_ns; /* the next drain by the interval (monotonic) */
	uint64_t next_fill_ns;	/* while naming: when to look at the fill levels next */
	bool take_failed;	/* taking a set failed while naming (out of memory) */
};

/* An empty queue; the first drain is due interval_ms after now_ns. */
void set_queue_init(struct set_queue *q, uint64_t interval_ms, uint64_t now_ns);

/* A set taken, holding samples samples: queued last. 0 or -ENOMEM (not queued then). */
int set_queue_push(struct set_queue *q, void *set, uint64_t samples);
/* The oldest set not named yet, NULL when none. */
void *set_queue_oldest(const struct set_queue *q);
/* The oldest set is named, and gave samples samples: out of the queue (the caller frees it). */
void set_queue_named(struct set_queue *q, uint64_t samples);

/* Whether --drain-interval is up at now_ns. */
bool set_queue_interval_up(const struct set_queue *q, uint64_t now_ns);
/* Whether a set filled to pct per cent must be drained now. */
bool set_queue_filling(unsigned int pct);
/*
 * A tick of the drain timer: whether to drain, from the interval and, when it is not up, the
 * fill level (pct < 0: unknown, as an empty set); a drain for the fill level is counted.
 */
bool set_queue_tick(struct set_queue *q, uint64_t now_ns, int pct);
/* A drain ended at now_ns: the next by the interval counts from here. */
void set_queue_drained(struct set_queue *q, uint64_t now_ns);
/* While naming: whether to look at the fill levels now (then not for SET_QUEUE_FILL_NS). */
bool set_queue_fill_due(struct set_queue *q, uint64_t now_ns);

/*
 * The number of named sets after which a process found gone now can have no sample left in
 * the kernel: the set taken next may still hold one (an exit in progress), the one after not.
 */
uint64_t set_queue_release_at(const struct set_queue *q);

/* Every sample the kernel counted (recorded) was copied out and named. */
bool set_queue_adds_up(const struct set_queue *q, uint64_t recorded);

/* Free the sets still queued with free_set, and the queue. */
void set_queue_free(struct set_queue *q, void (*free_set)(void *set));

#endif
