/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One file's identity as a cache keys it: device, inode, size and modification time, so that a
 * file replaced, truncated or rewritten in place under the same name (or inode) is another
 * file. Ordered for tsearch and bsearch.
 */
#ifndef CPUPROF_FILE_ID_H
#define CPUPROF_FILE_ID_H
#include <stdint.h>
#include <sys/stat.h>

struct file_id {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns;
};

static inline struct file_id file_id_of(const struct stat *st)
{
	return (struct file_id){(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
				(int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec};
}

static inline int file_id_cmp(const struct file_id *x, const struct file_id *y)
{
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->mtime_s != y->mtime_s)
		return x->mtime_s < y->mtime_s ? -1 : 1;
	return x->mtime_ns < y->mtime_ns ? -1 : x->mtime_ns > y->mtime_ns;
}

#endif
