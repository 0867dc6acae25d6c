/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening files that cpuprof did not write. cpuprof runs as root and reads what any user can
 * plant: a process's binaries, their debug links, /tmp/perf-PID.map. Such a file may be a
 * FIFO (an open that never returns), a link to /dev/zero (a read that never ends) or a huge
 * file. These open without blocking, accept regular files only and refuse the oversized.
 */
#ifndef CPUPROF_SAFE_FILE_H
#define CPUPROF_SAFE_FILE_H
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/*
 * Open path read-only (O_NONBLOCK, O_NOCTTY, O_CLOEXEC) and check with fstat that it is a
 * regular file of at most max_size bytes (0: any size). *st (may be NULL) gets its status.
 * The descriptor, or -errno: the open's own, -EINVAL for anything but a regular file (a FIFO,
 * a device, a directory: -EISDIR), -EFBIG over max_size.
 */
int safe_open(const char *path, uint64_t max_size, struct stat *st);

/* The same as a stdio stream ("re"); NULL with errno set. */
FILE *safe_fopen(const char *path, uint64_t max_size);

#endif
