// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "proc/host.h"

int host_sysctl(const char *name, long *val)
{
	char path[128], buf[64];
	FILE *f;
	int err = 0;

	if ((size_t)snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", val) != 1)
		err = -EINVAL;
	fclose(f);
	return err;
}

uint64_t host_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return (uint64_t)data[1].effective << 32 | data[0].effective;
}

bool host_may_record(uid_t euid, uint64_t caps)
{
	return euid == 0 || host_has_cap(caps, HOST_CAP_SYS_ADMIN) ||
	       (host_has_cap(caps, HOST_CAP_BPF) && host_has_cap(caps, HOST_CAP_PERFMON));
}

bool host_kernel_names_shown(long kptr_restrict, long perf_event_paranoid, uint64_t caps)
{
	bool syslog = host_has_cap(caps, HOST_CAP_SYSLOG);

	if (kptr_restrict == 0)
		return perf_event_paranoid <= 1 || syslog;
	return kptr_restrict == 1 && syslog;
}
