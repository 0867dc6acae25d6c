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

/*
 * safe_open of rel, a relative path below the directory dirfd, without following any symbolic
 * link: none in its directories, none as the file (-ELOOP), and ".." and absolute names kept
 * inside dirfd (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS). dirfd may be a process's
 * /proc/PID/root: its files are read as that process sees them, whatever links a user planted
 * there. Without openat2 (Linux < 5.6, seccomp), safe_openat_walk.
 */
int safe_openat(int dirfd, const char *rel, uint64_t max_size, struct stat *st);

/*
 * The same one component at a time with O_NOFOLLOW; "", ".", ".." and absolute names are
 * -EINVAL. For kernels without openat2 (and tests).
 */
int safe_openat_walk(int dirfd, const char *rel, uint64_t max_size, struct stat *st);

/* The same as a stdio stream ("re"); NULL with errno set. */
FILE *safe_fopen(const char *path, uint64_t max_size);

#endif
