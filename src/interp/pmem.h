/* SPDX-License-Identifier: GPL-2.0 */
/* Reading another process's memory (process_vm_readv): interpreter state read at attach. */
#ifndef CPUPROF_PMEM_H
#define CPUPROF_PMEM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Exactly len bytes at addr of process pid into buf. 0, -EFAULT (not all mapped), -ESRCH (the
 * process is gone), -EPERM, -EINVAL.
 */
int pmem_read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
