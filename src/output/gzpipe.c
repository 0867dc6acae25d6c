// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>
#include "output/gzpipe.h"

struct piece {
	struct piece *next;
	void *buf;
	size_t len;
};

/*
 * Pieces waiting for the compressing thread, at most: gzip is slower than the encoder, and an
 * unbounded queue held most of a 30 MB profile (a 600 s soak) before it was compressed.
 */
#define MAX_QUEUED 8

struct gzpipe {
	FILE *f;
	z_stream zs;
	int err; /* the compressing side's; read after the thread ended */
	bool threaded, closing;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv, room; /* a piece is queued; the queue has room */
	struct piece *head, *tail;
	unsigned int queued;
	unsigned char out[65536];
};

/* Compress len bytes (flush: Z_NO_FLUSH or Z_FINISH) and write what deflate gives out. */
static int deflate_write(struct gzpipe *g, const unsigned char *p, size_t len, int flush)
{
	do {
		/* avail_in is an unsigned int: big buffers go in pieces */
		uInt chunk = len > (1u << 30) ? 1u << 30 : (uInt)len;
		int f = len > chunk ? Z_NO_FLUSH : flush;

		g->zs.next_in = (unsigned char *)p;
		g->zs.avail_in = chunk;
		p += chunk;
		len -= chunk;
		/* as zlib's example zpipe.c: deflate until it leaves room in the output */
		do {
			size_t have;

			g->zs.next_out = g->out;
			g->zs.avail_out = sizeof(g->out);
			if (deflate(&g->zs, f) == Z_STREAM_ERROR)
				return -ENOMEM;
			have = sizeof(g->out) - g->zs.avail_out;
			if (have && fwrite(g->out, 1, have, g->f) != have)
				return -EIO;
		} while (g->zs.avail_out == 0);
	} while (len);
	return 0;
}

static void take(struct gzpipe *g, void *buf, size_t len)
{
	if (!g->err)
		g->err = deflate_write(g, buf, len, Z_NO_FLUSH);
	free(buf);
}

static void *compress_main(void *arg)
{
	struct gzpipe *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		struct piece *pc = g->head;

		if (!pc) {
			if (g->closing)
				break;
			pthread_cond_wait(&g->cv, &g->mu);
			continue;
		}
		g->head = pc->next;
		if (!g->head)
			g->tail = NULL;
		g->queued--;
		pthread_cond_signal(&g->room);
		pthread_mutex_unlock(&g->mu);
		take(g, pc->buf, pc->len);
		free(pc);
		pthread_mutex_lock(&g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int gzpipe_open(struct gzpipe **out, FILE *f, int level)
{
	struct gzpipe *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->f = f;
	/* 15 + 16: a gzip wrapper; zlib's default gzip header has mtime 0 and no name */
	if (deflateInit2(&g->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	if (!pthread_mutex_init(&g->mu, NULL)) {
		if (!pthread_cond_init(&g->cv, NULL)) {
			if (!pthread_cond_init(&g->room, NULL)) {
				g->threaded = !pthread_create(&g->thread, NULL, compress_main, g);
				if (!g->threaded)
					pthread_cond_destroy(&g->room);
			}
			if (!g->threaded)
				pthread_cond_destroy(&g->cv);
		}
		if (!g->threaded)
			pthread_mutex_destroy(&g->mu);
	}
	*out = g;
	return 0;
}

int gzpipe_put(struct gzpipe *g, void *buf, size_t len)
{
	struct piece *pc;

	if (!g->threaded) {
		take(g, buf, len);
		return 0;
	}
	pc = malloc(sizeof(*pc));
	if (!pc) {
		free(buf);
		return -ENOMEM;
	}
	*pc = (struct piece){.buf = buf, .len = len};
	pthread_mutex_lock(&g->mu);
	while (g->queued >= MAX_QUEUED)
		pthread_cond_wait(&g->room, &g->mu);
	g->queued++;
	if (g->tail)
		g->tail->next = pc;
	else
		g->head = pc;
	g->tail = pc;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

int gzpipe_close(struct gzpipe *g)
{
	int err;

	if (g->threaded) {
		pthread_mutex_lock(&g->mu);
		g->closing = true;
		pthread_cond_signal(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		pthread_cond_destroy(&g->room);
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
	}
	err = g->err ? g->err : deflate_write(g, NULL, 0, Z_FINISH);
	deflateEnd(&g->zs);
	if (!err && fflush(g->f))
		err = -EIO;
	free(g);
	return err;
}
