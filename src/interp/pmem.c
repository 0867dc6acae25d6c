// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/uio.h>
#include "interp/pmem.h"

int pmem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n;

	if (!len)
		return 0;
	if (pid <= 0)
		return -EINVAL;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	/* a partial read stops at an unmapped page */
	return (size_t)n == len ? 0 : -EFAULT;
}
