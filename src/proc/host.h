/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This machine's settings that decide what a recording can do: kernel sysctls, this
 * process's capabilities, and the kernel's rules over them. Read by `record` before it
 * starts and by `cpuprof check`. Nothing here prints.
 */
#ifndef CPUPROF_HOST_H
#define CPUPROF_HOST_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Capability numbers (include/uapi/linux/capability.h) */
#define HOST_CAP_SYS_ADMIN 21
#define HOST_CAP_SYSLOG	   34
#define HOST_CAP_PERFMON   38
#define HOST_CAP_BPF	   39

/* /proc/sys/kernel/NAME as a number into *val: 0, or a negative errno (*val untouched). */
int host_sysctl(const char *name, long *val);

/* This process's effective capabilities, bit N for capability N; 0 when they cannot be read. */
uint64_t host_caps(void);

static inline bool host_has_cap(uint64_t caps, int cap)
{
	return (caps >> cap) & 1;
}

/* Whether loading BPF and sampling every CPU is allowed: root, CAP_SYS_ADMIN, or CAP_BPF with
 * CAP_PERFMON. */
bool host_may_record(uid_t euid, uint64_t caps);

/*
 * Whether /proc/kallsyms shows real addresses to a reader with caps (the kernel's
 * kallsyms_show_value()): with kptr_restrict 0 when perf_event_paranoid <= 1 or with
 * CAP_SYSLOG, with 1 only with CAP_SYSLOG, with 2 never.
 */
bool host_kernel_names_shown(long kptr_restrict, long perf_event_paranoid, uint64_t caps);

#endif
