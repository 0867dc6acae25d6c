/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gzip written by a second thread while the caller goes on producing the data: the pprof file
 * after Ctrl-C is compressed while its later parts are still being encoded. The data is given
 * in pieces whose concatenation is what gets compressed; the file is one gzip member.
 */
#ifndef CPUPROF_GZPIPE_H
#define CPUPROF_GZPIPE_H
#include <stddef.h>
#include <stdio.h>

struct gzpipe;

/*
 * Start compressing at zlib level `level` into f. Without a thread (none could be started)
 * every piece is compressed in gzpipe_put itself. 0 or -ENOMEM.
 */
int gzpipe_open(struct gzpipe **out, FILE *f, int level);

/*
 * The next piece: buf (from malloc, len bytes) is the pipe's from now on, freed once
 * compressed, also on failure. Waits while 8 pieces are waiting for the thread (memory: the
 * encoder is faster than gzip). 0 or -ENOMEM; errors of compression and writing come from
 * gzpipe_close.
 */
int gzpipe_put(struct gzpipe *g, void *buf, size_t len);

/* End the member, wait for the thread, flush f, free g. 0, -ENOMEM or -EIO. */
int gzpipe_close(struct gzpipe *g);

#endif
