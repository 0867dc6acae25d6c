/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PHP (Zend engine, NTS builds) in a process: is an object PHP (executor_globals and
 * execute_ex exported: /usr/bin/php8.2, php-fpm, libphp.so), which version (the rodata string
 * "X-Powered-By: PHP/8.2.36"), the struct offsets of that version, and what the BPF walker
 * needs of the process (bpf/php_shared.h struct cp_php_proc). ZTS builds keep the
 * executor globals in thread-local storage and are refused (-ENOTSUP).
 */
#ifndef CPUPROF_PHP_DETECT_H
#define CPUPROF_PHP_DETECT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "php_shared.h"

/* What one PHP object says about itself (file vaddrs). */
struct php_object_info {
	uint32_t version;	       /* CP_PHP_VER(8, 2, 36) */
	uint64_t eg;		       /* executor_globals */
	uint64_t exec_start, exec_end; /* execute_ex */
};

/*
 * Whether the object open on fd is PHP: 0 with *info filled; -ENOENT not PHP; -ENOTSUP PHP but
 * not usable (ZTS, or a version without offsets); other negative errno on failure.
 */
int php_detect_object(int fd, const char *name, struct php_object_info *info);

/* "8.2.36..." (len bytes) -> CP_PHP_VER(8, 2, 36); 0 when not X.Y.Z. */
uint32_t php_version_parse(const char *s, size_t len);

/* The offsets of version (7.3-8.5): 0, or -ENOTSUP. */
int php_offsets_table(uint32_t version, struct cp_php_offsets *off);

struct proc_snapshot;
struct interp_plain;

/* The PHP of (pid, gen), each object tried once (interp_find); out filled for BPF. 0, -ENOENT
 * (no PHP), -ENOTSUP, other negative errno. */
int php_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		       struct interp_plain *plain, struct cp_php_proc *out);

#endif
