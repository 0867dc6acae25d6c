/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read or empty a BPF hash map with batched system calls (BPF_MAP_LOOKUP_BATCH and
 * BPF_MAP_LOOKUP_AND_DELETE_BATCH: one call per chunk of elements), or, on a kernel without
 * them for this map (EINVAL, ENOTSUPP, EOPNOTSUPP on the first call), one get_next_key +
 * lookup (or delete) pair per key. The path is chosen once per map and kept in its
 * struct map_batch. For maps that have no batch operations (BPF_MAP_TYPE_STACK_TRACE) use
 * MAP_BATCH_PER_KEY from the start. Nothing here prints.
 */
#ifndef CPUPROF_MAP_BATCH_H
#define CPUPROF_MAP_BATCH_H
#include <stddef.h>
#include <stdint.h>

enum map_batch_mode {
	MAP_BATCH_UNKNOWN = 0, /* try batches; fall back on the first refusal */
	MAP_BATCH_ON,	       /* the kernel took a batch for this map */
	MAP_BATCH_PER_KEY,     /* one system call pair per key (also a test hook) */
};

/* Zero-initialised: unknown mode, the default batch size. */
struct map_batch {
	enum map_batch_mode mode;
	uint32_t batch;	  /* elements per call; 0: MAP_BATCH_DEF; grows on ENOSPC */
	uint64_t calls;	  /* bpf() calls made, for tests and measurements */
	uint32_t regrown; /* times a bucket held more than a batch (ENOSPC) */
};

#define MAP_BATCH_DEF 256u
/* A batch never grows beyond this (ENOSPC with it: -ENOSPC). */
#define MAP_BATCH_MAX 65536u

/*
 * Called for each chunk of n elements: keys and vals point at n keys and n values, one after
 * the other (ksize, vsize bytes each), in a buffer valid only during the call. Nonzero stops
 * the walk and is returned.
 */
typedef int (*map_batch_fn)(const void *keys, const void *vals, size_t n, void *ctx);

/*
 * Call fn for every element of hash map fd (keys of ksize, values of vsize bytes), once each;
 * no program may write the map meanwhile. 0 or a negative errno.
 */
int map_batch__read(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize, map_batch_fn fn,
		    void *ctx);

/* Delete every element of map fd (no program writes it now). 0 or a negative errno. */
int map_batch__clear(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize);

#endif
