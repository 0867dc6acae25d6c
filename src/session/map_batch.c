// SPDX-License-Identifier: GPL-2.0
/*
 * Batched reads and clears of BPF hash maps, with the per-key path where the kernel lacks
 * them (map_batch.h).
 *
 * The batch calls' contract (the kernel's bpf_map_lookup_batch documentation, bpf(2)
 * BPF_MAP_LOOKUP_BATCH): in_batch NULL starts at the beginning, out_batch is the token for the
 * next call; count is the room on input and the elements written on output; ENOENT ends the
 * map and may come with a partial count; ENOSPC (count 0) when one hash bucket holds more
 * elements than the room given.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "session/map_batch.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "operation not supported", seen by user space */
#endif

struct chunk {
	void *keys, *vals;
	uint32_t room;
};

static int chunk_room(struct chunk *c, uint32_t n, uint32_t ksize, uint32_t vsize)
{
	void *k, *v;

	if (n <= c->room)
		return 0;
	k = realloc(c->keys, (size_t)n * ksize);
	if (!k)
		return -ENOMEM;
	c->keys = k;
	v = realloc(c->vals, (size_t)n * vsize);
	if (!v)
		return -ENOMEM;
	c->vals = v;
	c->room = n;
	return 0;
}

static bool refused(int e)
{
	return e == EINVAL || e == ENOTSUPP || e == EOPNOTSUPP;
}

/* 1: the kernel refused the first batch (use the per-key path), else 0 or a negative errno. */
static int batch_walk(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize, bool del,
		      map_batch_fn fn, void *ctx)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	/* the token: a u32 bucket for hash maps, a key for other types; room for either */
	size_t tsize = ksize > sizeof(uint64_t) ? ksize : sizeof(uint64_t);
	void *tok_in = calloc(1, tsize), *tok_out = calloc(1, tsize), *in = NULL;
	struct chunk c = {0};
	int err = 0;

	if (!tok_in || !tok_out) {
		err = -ENOMEM;
		goto out;
	}
	if (!mb->batch)
		mb->batch = MAP_BATCH_DEF;
	for (;;) {
		uint32_t count = mb->batch;
		int r, e;

		err = chunk_room(&c, count, ksize, vsize);
		if (err)
			break;
		r = del ? bpf_map_lookup_and_delete_batch(fd, in, tok_out, c.keys, c.vals, &count,
							  &opts)
			: bpf_map_lookup_batch(fd, in, tok_out, c.keys, c.vals, &count, &opts);
		e = r ? errno : 0;
		mb->calls++;
		if (r && e == ENOSPC && count == 0) {
			/* a bucket holds more than a batch: the same token again with more room */
			if (mb->batch >= MAP_BATCH_MAX) {
				err = -ENOSPC;
				break;
			}
			mb->batch *= 2;
			mb->regrown++;
			continue;
		}
		if (r && e != ENOENT) {
			if (mb->mode == MAP_BATCH_UNKNOWN && !in && refused(e))
				err = 1;
			else
				err = -e;
			break;
		}
		mb->mode = MAP_BATCH_ON;
		if (count > mb->batch) {
			err = -EIO; /* more than the room given: not the contract */
			break;
		}
		if (count) {
			err = fn(c.keys, c.vals, count, ctx);
			if (err)
				break;
		}
		if (r)
			break; /* ENOENT: the end of the map */
		memcpy(tok_in, tok_out, tsize);
		in = tok_in;
	}
out:
	free(tok_in);
	free(tok_out);
	free(c.keys);
	free(c.vals);
	return err;
}

/* The per-key path: get_next_key + lookup, handed on in chunks of mb->batch. */
static int per_key_read(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize,
			map_batch_fn fn, void *ctx)
{
	struct chunk c = {0};
	void *prev = NULL;
	uint32_t n = 0;
	int err;

	if (!mb->batch)
		mb->batch = MAP_BATCH_DEF;
	/* one slot more: the last key handed on stays as the walk's previous key */
	err = chunk_room(&c, mb->batch + 1, ksize, vsize);
	while (!err) {
		char *k = (char *)c.keys + (size_t)n * ksize;

		mb->calls++;
		if (bpf_map_get_next_key(fd, prev, k)) {
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		prev = k;
		mb->calls++;
		if (bpf_map_lookup_elem(fd, k, (char *)c.vals + (size_t)n * vsize)) {
			if (errno != ENOENT)
				err = -errno;
			continue; /* deleted meanwhile: the next key after it is still found */
		}
		if (++n < mb->batch)
			continue;
		err = fn(c.keys, c.vals, n, ctx);
		/* the previous key, moved to the spare slot past the chunk */
		memcpy((char *)c.keys + (size_t)mb->batch * ksize, prev, ksize);
		prev = (char *)c.keys + (size_t)mb->batch * ksize;
		n = 0;
	}
	if (!err && n)
		err = fn(c.keys, c.vals, n, ctx);
	free(c.keys);
	free(c.vals);
	return err;
}

int map_batch__read(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize, map_batch_fn fn,
		    void *ctx)
{
	if (mb->mode != MAP_BATCH_PER_KEY) {
		int err = batch_walk(mb, fd, ksize, vsize, false, fn, ctx);

		if (err != 1)
			return err;
		mb->mode = MAP_BATCH_PER_KEY;
	}
	return per_key_read(mb, fd, ksize, vsize, fn, ctx);
}

static int discard(const void *keys, const void *vals, size_t n, void *ctx)
{
	(void)keys, (void)vals, (void)n, (void)ctx;
	return 0;
}

/*
 * Per key: find the next key while the current one still exists, then delete the current one
 * (a walk from the start after each delete would scan the emptied buckets again and again).
 */
static int per_key_clear(struct map_batch *mb, int fd, uint32_t ksize)
{
	char *cur = malloc(ksize), *next = malloc(ksize);
	int err = 0, r;

	if (!cur || !next) {
		err = -ENOMEM;
		goto out;
	}
	mb->calls++;
	r = bpf_map_get_next_key(fd, NULL, cur);
	while (!r) {
		char *t;

		mb->calls += 2;
		r = bpf_map_get_next_key(fd, cur, next);
		if (r && errno != ENOENT) {
			err = -errno;
			break;
		}
		if (bpf_map_delete_elem(fd, cur) && errno != ENOENT) {
			err = -errno;
			break;
		}
		t = cur;
		cur = next;
		next = t;
	}
	if (!err && r && errno != ENOENT)
		err = -errno;
out:
	free(cur);
	free(next);
	return err;
}

int map_batch__clear(struct map_batch *mb, int fd, uint32_t ksize, uint32_t vsize)
{
	if (mb->mode != MAP_BATCH_PER_KEY) {
		int err = batch_walk(mb, fd, ksize, vsize, true, discard, NULL);

		if (err != 1)
			return err;
		mb->mode = MAP_BATCH_PER_KEY;
	}
	return per_key_clear(mb, fd, ksize);
}
