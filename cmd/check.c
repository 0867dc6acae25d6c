// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof check: can this machine record, and if not, why. One line per check on stdout
 * ("what  value  verdict"), then a conclusion; exit 0 when recording can work, 69 when not.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include "commands.h"
#include "proc/host.h"
#include "session/bpf_loader.h"
#include "session/bpf_probe.h"
#include "session/options.h"

struct check {
	bool fatal; /* something that keeps any recording from working */
	bool warn;  /* something that makes recordings poorer */
};

/* A sysctl of kernel/, -1 when it cannot be read. */
static long sysctl_or(const char *name)
{
	long v = -1;

	host_sysctl(name, &v);
	return v;
}

static void line(const char *what, const char *value, const char *verdict)
{
	printf("%-28s %-40s %s\n", what, value, verdict);
}

static void check_kernel(struct check *c)
{
	struct utsname u;
	char value[2 * sizeof(u.release) + 2];
	int major = 0, minor = 0;
	bool ok;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	ok = major > 5 || (major == 5 && minor >= 8);
	snprintf(value, sizeof(value), "%s %s", u.release, u.machine);
	line("kernel", value, ok ? "ok" : "FAIL: Linux 5.8 or later is needed (BPF ring buffer)");
	c->fatal |= !ok;
	ok = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	line("BTF", "/sys/kernel/btf/vmlinux",
	     ok ? "ok" : "FAIL: missing; a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed");
	c->fatal |= !ok;
}

static void check_privileges(struct check *c, uint64_t caps)
{
	char value[128];
	bool ok = host_may_record(geteuid(), caps);

	snprintf(value, sizeof(value), "uid %u;%s%s%s%s", (unsigned int)geteuid(),
		 host_has_cap(caps, HOST_CAP_BPF) ? " CAP_BPF" : "",
		 host_has_cap(caps, HOST_CAP_PERFMON) ? " CAP_PERFMON" : "",
		 host_has_cap(caps, HOST_CAP_SYS_ADMIN) ? " CAP_SYS_ADMIN" : "",
		 host_has_cap(caps, HOST_CAP_SYSLOG) ? " CAP_SYSLOG" : "");
	line("privileges", value, ok ? "ok" : "FAIL: run as root, or with CAP_BPF and CAP_PERFMON");
	c->fatal |= !ok;
}

static void check_sysctls(struct check *c, uint64_t caps)
{
	long paranoid = sysctl_or("perf_event_paranoid"), kptr = sysctl_or("kptr_restrict");
	long rate = sysctl_or("perf_event_max_sample_rate");
	long depth = sysctl_or("perf_event_max_stack");
	bool names = host_kernel_names_shown(kptr, paranoid, caps);
	bool sample = paranoid <= 1 || host_has_cap(caps, HOST_CAP_PERFMON) || geteuid() == 0;
	char value[128], verdict[160];

	snprintf(value, sizeof(value), "%ld", paranoid);
	line("perf_event_paranoid", value, sample ? "ok" : "FAIL: above 1 without CAP_PERFMON");
	c->fatal |= !sample;
	snprintf(value, sizeof(value), "%ld", kptr);
	line("kptr_restrict", value,
	     names ? "ok: kernel frames are named"
		   : "warn: kernel frames unnamed (needs CAP_SYSLOG, or kptr_restrict 0 with "
		     "perf_event_paranoid <= 1)");
	c->warn |= !names;
	snprintf(value, sizeof(value), "%ld Hz", rate);
	snprintf(verdict, sizeof(verdict), "ok: -F up to %ld Hz",
		 rate > 0 && rate < CP_SAFE_MAX_FREQUENCY ? rate : CP_SAFE_MAX_FREQUENCY);
	line("perf_event_max_sample_rate", value, verdict);
	snprintf(value, sizeof(value), "%ld frames", depth);
	line("perf_event_max_stack", value,
	     depth >= CP_MAX_STACK_DEPTH ? "ok" : "warn: kernel stacks are cut shorter");
	c->warn |= depth < CP_MAX_STACK_DEPTH;
}

static void check_memlock(void)
{
	struct rlimit rl;
	char value[64];

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return;
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(value, sizeof(value), "unlimited");
	else
		snprintf(value, sizeof(value), "%" PRIu64 " KiB", (uint64_t)rl.rlim_cur >> 10);
	/* kernels since 5.11 charge BPF memory to the memory cgroup; libbpf raises it before */
	line("RLIMIT_MEMLOCK", value, "ok (raised by libbpf where the kernel counts it)");
}

static void check_cpu_clock(struct check *c)
{
	int fd = perf_cpu_clock_open(0, 99);
	char verdict[160];

	if (fd >= 0) {
		close(fd);
		line("cpu-clock event", "CPU 0, every process", "ok");
		return;
	}
	snprintf(verdict, sizeof(verdict), "FAIL: %s", strerror(-fd));
	line("cpu-clock event", "CPU 0, every process", verdict);
	c->fatal = true;
}

struct probe_ctx {
	struct check *c;
};

static void on_program(const char *prog, int err, const char *reason, void *arg)
{
	struct probe_ctx *p = arg;
	char what[64], verdict[512];
	/* the DWARF walker alone can fail: recording falls back to frame pointers */
	bool walker = strcmp(prog, "cp_unwind") == 0;

	snprintf(what, sizeof(what), "BPF program %s", prog);
	if (!err) {
		line(what, "loads", "ok");
		return;
	}
	snprintf(verdict, sizeof(verdict), "%s: %s%s%s", walker ? "warn" : "FAIL", strerror(-err),
		 *reason ? ": " : "", reason);
	line(what, walker ? "refused (--unwind fp still works)" : "refused", verdict);
	if (walker)
		p->c->warn = true;
	else
		p->c->fatal = true;
}

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key == ARGP_KEY_ARG)
		argp_error(state, "check takes no arguments");
	return key == ARGP_KEY_ARG ? EINVAL : ARGP_ERR_UNKNOWN;
}

int cmd_check(int argc, char **argv)
{
	static const struct argp_option options[] = {{0}};
	const struct argp argp = {options,
				  check_parse,
				  NULL,
				  "Say whether this machine can record, and if not, why.\v"
				  "Exit status: 0 when recording can work, 69 when not, 64 on bad "
				  "usage.",
				  NULL,
				  NULL,
				  NULL};
	struct check c = {};
	struct probe_ctx p = {&c};
	uint64_t caps = host_caps();
	int n;

	argv[0] = (char *)"cpuprof check";
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return CP_EXIT_USAGE;
	check_kernel(&c);
	check_privileges(&c, caps);
	check_sysctls(&c, caps);
	check_memlock();
	check_cpu_clock(&c);
	if (!c.fatal) {
		n = bpf_probe_programs(on_program, &p);
		if (n < 0) {
			line("BPF object", "open", strerror(-n));
			c.fatal = true;
		}
	} else {
		line("BPF programs", "not tried", "(fix the failures above first)");
	}
	printf("\n%s\n", c.fatal  ? "cpuprof check: recording cannot work here (see FAIL above)"
			 : c.warn ? "cpuprof check: recording works, with the limits marked warn"
				  : "cpuprof check: recording works");
	return c.fatal ? CP_EXIT_UNAVAIL : CP_EXIT_OK;
}
