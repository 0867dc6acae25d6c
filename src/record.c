// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include "aggregate.h"
#include "bpf_loader.h"
#include "log.h"
#include "output.h"
#include "profile.h"
#include "prebuild.h"
#include "proc_status.h"
#include "record.h"
#include "report.h"
#include "symbolize.h"
#include "unwind_maps.h"
#include "workload.h"

/* Unwind rows kept free for what processes map after the start: 16 MiB at least. */
#define CP_UNWIND_ROOM_ROWS (1u << 20)

enum stop_reason {
	STOP_NONE = 0,
	STOP_DURATION,
	STOP_SIGNAL,
	STOP_COMMAND,
	STOP_TARGETS, /* every -p process has exited */
};

struct record {
	const struct cp_options *o;
	pid_t *pids; /* -p, thread ids replaced by their process ids */
	int *pidfds; /* pidfd of each -p process: readable once it has exited (-1: none) */
	size_t n_alive;
	struct cp_config cfg;
	struct bpf_session *bpf;
	struct ring_buffer *rb;
	struct symbolizer *sym;
	struct unwind_maps *um; /* NULL with --unwind fp, or when the unwinder failed (auto) */
	uint32_t max_rows;	/* --max-unwind-memory in rows */
	uint32_t rows_asked;	/* capacity of the row array */
	struct prebuild_result pre;
	struct workload *wl;
	struct out_file **outs; /* one per -o (at least one: stdout) */
	size_t n_outs;
	uint64_t start_unix_ns; /* wall clock when sampling started */
	struct profile *prof;
	regex_t comm_re;
	bool comm_re_set;
	int sigfd, epfd, durfd, progfd;
	bool progress; /* a progress line on stderr (a terminal) */
	enum stop_reason stop;
	int stop_signal;
	int wl_status;
	bool wl_exited;
	struct timespec t0;
	uint64_t stats[CP_STAT_MAX];
	uint64_t snapshot_failed; /* processes gone before their mappings were read */
	struct aggregate_stats agg;
	uint64_t refresh_failed; /* mapping refreshes of processes already gone */
	unsigned int max_depth;	 /* kernel.perf_event_max_stack, at most CP_MAX_STACK_DEPTH */
	struct timespec t_stop;	 /* when sampling stopped */
};

/* ---- checks before anything is loaded --------------------------------------------------- */

static bool has_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {};
	/* CAP_PERFMON (38) and CAP_BPF (39) are in the second word; values from capability.h */
	const unsigned int perfmon = 38, bpf = 39, sys_admin = 21;
	uint32_t hi;

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	hi = data[1].effective;
	if (data[0].effective & (1u << sys_admin))
		return true;
	return (hi & (1u << (perfmon - 32))) && (hi & (1u << (bpf - 32)));
}

static int read_sysctl(const char *path, long *val)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", val) != 1)
		err = -EINVAL;
	fclose(f);
	return err;
}

static int check_environment(struct record *r)
{
	const struct cp_options *o = r->o;
	long max_rate, max_stack;
	const char *btf;

	if (!has_caps()) {
		pr_err("permission denied: recording needs root, or the CAP_BPF and CAP_PERFMON "
		       "capabilities (lowering kernel.perf_event_paranoid is not enough for BPF); "
		       "run it with sudo");
		return CP_EXIT_NOPERM;
	}
	/* CPUPROF_BTF lets the tests exercise this check */
	btf = getenv("CPUPROF_BTF") ?: "/sys/kernel/btf/vmlinux";
	if (access(btf, R_OK)) {
		pr_err("this kernel has no BTF (%s is missing): cpuprof needs a kernel built with "
		       "CONFIG_DEBUG_INFO_BTF=y",
		       btf);
		return CP_EXIT_UNAVAIL;
	}
	r->pids = calloc(o->n_pids ? o->n_pids : 1, sizeof(*r->pids));
	r->pidfds = malloc((o->n_pids ? o->n_pids : 1) * sizeof(*r->pidfds));
	if (!r->pids || !r->pidfds) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < o->n_pids; i++)
		r->pidfds[i] = -1;
	/* the kernel cuts stacks at kernel.perf_event_max_stack frames */
	r->max_depth = CP_MAX_STACK_DEPTH;
	if (read_sysctl("/proc/sys/kernel/perf_event_max_stack", &max_stack) == 0 &&
	    max_stack > 0 && max_stack < CP_MAX_STACK_DEPTH)
		r->max_depth = (unsigned int)max_stack;
	if (read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate) == 0 &&
	    (long)o->frequency > max_rate) {
		pr_err("frequency %u Hz is above the kernel's limit of %ld Hz "
		       "(kernel.perf_event_max_sample_rate): use a lower -F",
		       o->frequency, max_rate);
		return CP_EXIT_USAGE;
	}
	for (size_t i = 0; i < o->n_pids; i++) {
		struct proc_status ps;

		if (kill(o->pids[i], 0) && errno == ESRCH) {
			pr_err("no such process: %d (check the pid given to -p)", (int)o->pids[i]);
			return CP_EXIT_NOPROC;
		}
		r->pids[i] = o->pids[i];
		if (proc_status_read("/proc", (uint32_t)o->pids[i], &ps))
			continue;
		if (ps.state == 'Z' || ps.state == 'X') {
			pr_err("process %d has exited (it is a zombie): nothing to profile",
			       (int)o->pids[i]);
			return CP_EXIT_NOPROC;
		}
		/* a thread id stands for its process: samples are selected by process */
		if (ps.tgid != (uint32_t)o->pids[i]) {
			pr_info("%d is a thread of process %u: profiling the process",
				(int)o->pids[i], ps.tgid);
			r->pids[i] = (pid_t)ps.tgid;
		}
	}
	if (o->comm_regex) {
		int rc = regcomp(&r->comm_re, o->comm_regex, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &r->comm_re, msg, sizeof(msg));
			pr_err("invalid --comm regular expression '%s': %s", o->comm_regex, msg);
			return CP_EXIT_USAGE;
		}
		r->comm_re_set = true;
	}
	return CP_EXIT_OK;
}

/* Create every output now: a path that cannot be written fails before any sampling. */
static int open_outputs(struct record *r)
{
	r->n_outs = r->o->n_outputs ? r->o->n_outputs : 1;
	r->outs = calloc(r->n_outs, sizeof(*r->outs));
	if (!r->outs) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < r->n_outs; i++) {
		const char *path = options_output_path(r->o, i);
		int err = out_file__open(path, &r->outs[i]);

		if (err) {
			pr_err("cannot write the profile to '%s': %s (choose another -o)", path,
			       strerror(-err));
			return CP_EXIT_CANTCREAT;
		}
	}
	return CP_EXIT_OK;
}

/* ---- BPF --------------------------------------------------------------------------------- */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum log_level want = level == LIBBPF_WARN ? LOG_INFO : LOG_DEBUG;

	if (log_get_level() < want)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Rows for the unwind row array: what was built before sampling and room for what processes
 * map later (exec, dlopen, new processes), within --max-unwind-memory.
 */
static uint32_t plan_rows(const struct record *r)
{
	uint64_t built = unwind_maps__rows(r->um), room = built / 2, rows;

	if (room < CP_UNWIND_ROOM_ROWS)
		room = CP_UNWIND_ROOM_ROWS;
	rows = built + room;
	return rows < r->max_rows ? (uint32_t)rows : r->max_rows;
}

static int publish_proc(void *ctx, uint32_t pid, const struct cp_unwind_proc *up)
{
	return bpf_session__set_unwind_proc(ctx, pid, up);
}

/* Move the tables built so far into the BPF maps; warn once about what did not fit. */
static int attach_tables(struct record *r)
{
	struct unwind_maps_stats st;
	struct unwind_sink sink = {.publish = publish_proc, .ctx = r->bpf};
	int err;

	sink.rows = bpf_session__unwind_rows(r->bpf, &sink.cap);
	err = unwind_maps__attach(r->um, &sink);
	unwind_maps__stats(r->um, &st);
	if (st.objects_dropped)
		pr_warn("out of memory for the unwind tables: %u MiB allocated, so the %zu "
			"largest tables (%zu rows) are left out and their code is walked with "
			"frame "
			"pointers",
			(unsigned int)(((uint64_t)sink.cap * sizeof(struct cp_unwind_row)) >> 20),
			st.objects_dropped, st.rows_dropped);
	if (err)
		pr_debug("cannot publish the unwind tables: %s", strerror(-err));
	return 0;
}

static int open_bpf(struct record *r, const char **step)
{
	struct bpf_unwind_sizes uw = {0};
	int err;

	if (!r->cfg.unwind_dwarf)
		return bpf_session__open(&r->bpf, &r->cfg, NULL, log_get_level() >= LOG_DEBUG,
					 step);
	uw.rows = plan_rows(r);
	/* a process mapping table per process known now, with room for as many again */
	uw.procs = CP_DEF_UPROC_ENTRIES;
	while (uw.procs < 2 * r->pre.procs)
		uw.procs *= 2;
	for (;;) {
		r->rows_asked = uw.rows;
		err = bpf_session__open(&r->bpf, &r->cfg, &uw, log_get_level() >= LOG_DEBUG, step);
		/* the row array is allocated at once: ask for less, leaving out the largest */
		if (err != -ENOMEM || uw.rows <= CP_UNWIND_ROOM_ROWS / 16)
			return err;
		uw.rows /= 2;
		pr_debug("cannot allocate %u unwind rows; trying %u", r->rows_asked, uw.rows);
	}
}

static int load_bpf(struct record *r)
{
	const struct cp_options *o = r->o;
	const char *step = "";
	int err;

	r->cfg.filter_mode = o->command || o->n_pids ? CP_FILTER_PIDS
			     : o->comm_regex	     ? CP_FILTER_COMM
						     : CP_FILTER_ALL;
	r->cfg.user_stacks = !o->kernel_only;
	r->cfg.kernel_stacks = !o->no_kernel;
	r->cfg.include_idle = o->include_idle;
	r->cfg.per_thread = o->per_thread;
	r->cfg.follow_children = o->command != NULL;
	r->cfg.unwind_dwarf = r->um != NULL;

	libbpf_set_print(libbpf_print);
	err = open_bpf(r, &step);
	if (err && r->um && o->unwind == UNWIND_AUTO && err != -EPERM && err != -EACCES) {
		/* the frame-pointer profiler may still work on this kernel */
		pr_warn("cannot set up the DWARF unwinder (failed to %s: %s): user stacks are "
			"walked with frame pointers (-vv shows the verifier's log; --unwind fp "
			"does not try)",
			step, strerror(-err));
		unwind_maps__free(r->um);
		r->um = NULL;
		r->cfg.unwind_dwarf = 0;
		err = open_bpf(r, &step);
	}
	if (err == -EPERM || err == -EACCES) {
		pr_err("the kernel refused to %s: %s; run as root or with CAP_BPF and CAP_PERFMON "
		       "(unprivileged BPF may be disabled: kernel.unprivileged_bpf_disabled)",
		       step, strerror(-err));
		return CP_EXIT_NOPERM;
	}
	if (err) {
		pr_err("failed to %s: %s (run with -vv for the verifier's log)", step,
		       strerror(-err));
		return CP_EXIT_FAILURE;
	}
	err = bpf_session__attach_tracking(r->bpf);
	if (err) {
		pr_err("failed to %s: %s (run with -vv for details)", bpf_session__step(r->bpf),
		       strerror(-err));
		return CP_EXIT_FAILURE;
	}
	if (r->um)
		attach_tables(r);
	return CP_EXIT_OK;
}

/* Tables for the mappings of (pid, gen) just read; until then, frame pointers. */
static void load_unwind(struct record *r, uint32_t pid, uint32_t gen)
{
	int err;

	if (!r->um)
		return;
	err = unwind_maps__add_proc(r->um, r->sym, pid, gen);
	if (err)
		pr_debug("cannot load the unwind tables of pid %u: %s", pid, strerror(-err));
}

static bool comm_matches(struct record *r, const char *comm)
{
	return regexec(&r->comm_re, comm, 0, NULL, 0) == 0;
}

/* A request from BPF: the first sample of (pid, gen). */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct cp_event *ev = data;
	struct record *r = ctx;
	char comm[CP_COMM_LEN + 1];
	int err;

	if (size < sizeof(*ev))
		return 0;
	if (ev->type == CP_EV_MAPS_CHANGED) {
		/* clear first: code mapped while we read asks again */
		bpf_session__refresh_taken(r->bpf, ev->pid);
		err = symbolizer__refresh(r->sym, ev->pid, ev->gen);
		if (err == -ESRCH)
			r->refresh_failed++;
		else if (err)
			pr_debug("cannot read the mappings of pid %u: %s", ev->pid, strerror(-err));
		else
			load_unwind(r, ev->pid, ev->gen);
		return 0;
	}
	if (ev->type != CP_EV_NEW_PROC)
		return 0;
	if (r->comm_re_set && proc_comm_read("/proc", ev->pid, comm, sizeof(comm)) == 0 &&
	    !comm_matches(r, comm)) {
		/* not ours: stop sampling it; the next exec asks again */
		bpf_session__exclude_proc(r->bpf, ev->pid);
		return 0;
	}
	/* merge: a -p target was read at start, and may have mapped code since */
	err = symbolizer__refresh(r->sym, ev->pid, ev->gen);
	if (err == -ESRCH)
		r->snapshot_failed++;
	else if (err)
		pr_debug("cannot read the mappings of pid %u: %s", ev->pid, strerror(-err));
	else
		load_unwind(r, ev->pid, ev->gen);
	return 0;
}

/* ---- targets ----------------------------------------------------------------------------- */

static int prepare_targets(struct record *r)
{
	const struct cp_options *o = r->o;
	int err;

	/* the profiler does not profile itself */
	err = bpf_session__exclude_proc(r->bpf, (uint32_t)getpid());
	for (size_t i = 0; !err && i < o->n_pids; i++)
		err = bpf_session__trace_proc(r->bpf, (uint32_t)r->pids[i]);
	/* whole system: what was read before sampling is generation 0 */
	for (size_t i = 0; !err && !o->n_pids && i < r->pre.procs; i++)
		err = bpf_session__know_proc(r->bpf, (uint32_t)r->pre.pids[i]);
	if (err) {
		pr_err("cannot select the target processes: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	/* like perf record -p: recording ends when every target has exited */
	r->n_alive = o->n_pids;
	for (size_t i = 0; i < o->n_pids; i++) {
		r->pidfds[i] = (int)syscall(SYS_pidfd_open, r->pids[i], 0);
		if (r->pidfds[i] >= 0)
			continue;
		if (errno == ESRCH)
			r->n_alive--;
		else
			pr_warn("cannot watch process %d for its exit (%s): recording goes on "
				"until "
				"-d or Ctrl-C",
				(int)r->pids[i], strerror(errno));
	}
	if (o->n_pids && !r->n_alive) {
		pr_err("the processes given with -p have exited");
		return CP_EXIT_NOPROC;
	}
	if (!r->wl)
		return CP_EXIT_OK;
	err = bpf_session__trace_proc(r->bpf, (uint32_t)workload__pid(r->wl));
	if (err) {
		pr_err("cannot select the command's process: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	return CP_EXIT_OK;
}

/* Fork the command, held until sampling runs: a command that cannot run fails before BPF. */
static int prepare_command(struct record *r)
{
	int err;

	if (!r->o->command)
		return CP_EXIT_OK;
	err = workload__prepare(r->o->command, &r->wl);
	if (err == -ENOENT) {
		pr_err("command not found: %s", r->o->command[0]);
		return CP_EXIT_NOTFOUND;
	}
	if (err == -EACCES) {
		pr_err("cannot execute %s: permission denied", r->o->command[0]);
		return CP_EXIT_NOEXEC;
	}
	if (err) {
		pr_err("cannot start %s: %s", r->o->command[0], strerror(-err));
		return CP_EXIT_FAILURE;
	}
	return CP_EXIT_OK;
}

/*
 * Before BPF is loaded: read the mappings of the processes that exist now and build their
 * unwind tables, so that the row array is sized from them and the first samples are exact.
 */
static int prepare_tables(struct record *r)
{
	const struct cp_options *o = r->o;
	struct prebuild_opts po = {
		.procfs = "/proc",
		.pids = r->pids,
		.n_pids = o->n_pids,
		.all = !o->command,
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.self = getpid(),
		.exe = r->wl ? workload__path(r->wl) : NULL,
	};
	int err;

	r->max_rows = (uint32_t)(o->max_unwind_mib * (1u << 20) / sizeof(struct cp_unwind_row));
	if (o->unwind != UNWIND_FP && !o->kernel_only) {
		r->um = unwind_maps__new(r->max_rows);
		if (!r->um) {
			pr_err("out of memory");
			return CP_EXIT_FAILURE;
		}
	}
	err = prebuild(r->sym, r->um, &po, &r->pre);
	if (err) {
		pr_err("cannot read the processes' mappings: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	pr_debug("read the mappings of %zu processes (%zu gone) in %.1f ms", r->pre.procs,
		 r->pre.procs_failed, (double)r->pre.ns / 1e6);
	return CP_EXIT_OK;
}

static int load_kernel_symbols(struct record *r)
{
	FILE *f;
	int err;

	if (r->o->no_kernel)
		return 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	err = symbolizer__load_kallsyms(r->sym, f);
	fclose(f);
	if (!err && symbolizer__kernel_restricted(r->sym))
		pr_warn("kernel addresses are hidden (kernel.kptr_restrict): kernel frames will be "
			"unnamed; run as root or set kernel.kptr_restrict=0");
	return err;
}

/* ---- the event loop ---------------------------------------------------------------------- */

static int add_fd(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static int arm_timer(uint64_t first_ms, uint64_t interval_ms)
{
	struct itimerspec its = {
		.it_value = {.tv_sec = first_ms / 1000, .tv_nsec = (first_ms % 1000) * 1000000},
		.it_interval = {.tv_sec = interval_ms / 1000,
				.tv_nsec = (interval_ms % 1000) * 1000000},
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static double elapsed_s(const struct record *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - r->t0.tv_sec) + (now.tv_nsec - r->t0.tv_nsec) / 1e9;
}

/* Length of the recording: from the start of sampling to its stop. */
static double recorded_s(const struct record *r)
{
	return (r->t_stop.tv_sec - r->t0.tv_sec) + (r->t_stop.tv_nsec - r->t0.tv_nsec) / 1e9;
}

static void show_progress(struct record *r)
{
	uint64_t st[CP_STAT_MAX];

	if (bpf_session__read_stats(r->bpf, st))
		return;
	fprintf(stderr, "\rcpuprof: recording %.0f s, %" PRIu64 " samples\033[K", elapsed_s(r),
		st[CP_STAT_RECORDED]);
}

static void handle_signal(struct record *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->wl && workload__reap(r->wl, false, &r->wl_status) == 1) {
				r->wl_exited = true;
				r->stop = STOP_COMMAND;
			}
		} else {
			r->stop = STOP_SIGNAL;
			r->stop_signal = (int)si.ssi_signo;
		}
	}
}

/* A -p process has exited (its pidfd is readable). */
static void target_exited(struct record *r, int fd)
{
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
	if (r->n_alive && --r->n_alive == 0)
		r->stop = STOP_TARGETS;
}

static int event_loop(struct record *r)
{
	int rbfd = ring_buffer__epoll_fd(r->rb);
	struct epoll_event evs[8];
	uint64_t ticks;

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0 || add_fd(r->epfd, r->sigfd) || add_fd(r->epfd, rbfd))
		return -errno;
	if (r->o->duration_ms) {
		r->durfd = arm_timer(r->o->duration_ms, 0);
		if (r->durfd < 0 || add_fd(r->epfd, r->durfd))
			return r->durfd < 0 ? r->durfd : -errno;
	}
	if (r->progress) {
		r->progfd = arm_timer(1000, 1000);
		if (r->progfd < 0 || add_fd(r->epfd, r->progfd))
			return r->progfd < 0 ? r->progfd : -errno;
	}
	for (size_t i = 0; i < r->o->n_pids; i++)
		if (r->pidfds[i] >= 0 && add_fd(r->epfd, r->pidfds[i]))
			return -errno;
	/* the command may have ended before its SIGCHLD could be seen */
	if (r->wl && workload__reap(r->wl, false, &r->wl_status) == 1) {
		r->wl_exited = true;
		r->stop = STOP_COMMAND;
	}
	while (r->stop == STOP_NONE) {
		int n = epoll_wait(r->epfd, evs, 8, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == r->sigfd) {
				handle_signal(r);
			} else if (fd == rbfd) {
				ring_buffer__consume(r->rb);
			} else if (fd == r->durfd) {
				r->stop = STOP_DURATION;
			} else if (fd == r->progfd) {
				if (read(fd, &ticks, sizeof(ticks)) > 0)
					show_progress(r);
			} else {
				target_exited(r, fd);
			}
		}
	}
	if (r->progress)
		fputs("\r\033[K", stderr);
	return 0;
}

/* ---- drain ------------------------------------------------------------------------------ */

static int drain(struct record *r)
{
	struct aggregate_opts ao = {
		.kernel_only = r->o->kernel_only,
		.no_kernel = r->o->no_kernel,
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.max_depth = r->max_depth,
	};
	int err;

	/* requests still queued: name what is still alive */
	ring_buffer__consume(r->rb);
	err = bpf_session__read_stats(r->bpf, r->stats);
	if (err)
		return err;
	r->prof = profile__new();
	if (!r->prof)
		return -ENOMEM;
	return aggregate_counts(r->bpf, r->sym, &ao, r->prof, &r->agg);
}

/* ---- output and summary ------------------------------------------------------------------ */

static void fill_report(const struct record *r, struct report *rep)
{
	*rep = (struct report){
		.o = r->o,
		.prof = r->prof,
		.stats = r->stats,
		.agg = r->agg,
		.snapshot_failed = r->snapshot_failed,
		.refresh_failed = r->refresh_failed,
		.start_unix_ns = r->start_unix_ns,
		.recorded_s = recorded_s(r),
		.um = r->um,
	};
}

/* ---- the session ------------------------------------------------------------------------- */

static int block_signals(struct record *r, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->sigfd < 0 ? -errno : 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* every profiled object stays open until it is named */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int start_sampling(struct record *r)
{
	int err = bpf_session__start_sampling(r->bpf, r->o->frequency);
	long paranoid = 0;

	if (!err)
		return CP_EXIT_OK;
	if (err == -EACCES || err == -EPERM) {
		read_sysctl("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		pr_err("the kernel refused to %s: %s; run as root or with CAP_PERFMON, or lower "
		       "kernel.perf_event_paranoid (now %ld)",
		       bpf_session__step(r->bpf), strerror(-err), paranoid);
		return CP_EXIT_NOPERM;
	}
	if (err == -ENOENT || err == -EOPNOTSUPP) {
		pr_err("failed to %s: %s (this kernel lacks the cpu-clock software event)",
		       bpf_session__step(r->bpf), strerror(-err));
		return CP_EXIT_UNAVAIL;
	}
	pr_err("failed to %s: %s (run with -vv for details)", bpf_session__step(r->bpf),
	       strerror(-err));
	return CP_EXIT_FAILURE;
}

static int start_command(struct record *r)
{
	int err;

	if (!r->wl)
		return CP_EXIT_OK;
	err = workload__start(r->wl);
	if (!err)
		return CP_EXIT_OK;
	workload__reap(r->wl, true, &r->wl_status);
	if (err == -ENOENT) {
		pr_err("command not found: %s", r->o->command[0]);
		return CP_EXIT_NOTFOUND;
	}
	pr_err("cannot execute %s: %s", r->o->command[0], strerror(-err));
	return CP_EXIT_NOEXEC;
}

/*
 * SIGTERM the command and wait for it; SIGKILL it when it has not ended after a grace period
 * (it may ignore SIGTERM). True once it is reaped.
 */
static bool end_command(struct workload *wl, int *status)
{
	workload__signal(wl, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (workload__reap(wl, false, status) != 0)
			return true;
		usleep(100000);
	}
	workload__signal(wl, SIGKILL);
	return workload__reap(wl, true, status) == 1;
}

/* After the profile is written: end the command if recording stopped first. */
static int finish_command(struct record *r)
{
	if (!r->wl)
		return CP_EXIT_OK;
	if (!r->wl_exited)
		r->wl_exited = end_command(r->wl, &r->wl_status);
	if (!r->wl_exited)
		return CP_EXIT_FAILURE;
	if (workload_exit_code(r->wl_status))
		pr_info("%s exited with status %d", r->o->command[0],
			workload_exit_code(r->wl_status));
	return workload_exit_code(r->wl_status);
}

static int record_session(struct record *r)
{
	struct timespec now;
	struct report rep;
	int rc, err;

	rc = check_environment(r);
	if (rc)
		return rc;
	rc = open_outputs(r);
	if (rc)
		return rc;
	raise_fd_limit();
	r->sym = symbolizer__new("/proc");
	if (!r->sym) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	if (r->o->debuginfod) {
		const char *urls = getenv("DEBUGINFOD_URLS");

		if (!urls || !*urls)
			pr_warn("--debuginfod: DEBUGINFOD_URLS is not set, so there is no server "
				"to ask");
		symbolizer__set_debuginfod(r->sym, true);
	}
	err = load_kernel_symbols(r);
	if (err)
		pr_warn("cannot read /proc/kallsyms: %s; kernel frames will be unnamed",
			strerror(-err));
	rc = prepare_command(r);
	if (!rc)
		rc = prepare_tables(r);
	if (!rc)
		rc = load_bpf(r);
	if (rc)
		return rc;
	rc = prepare_targets(r);
	if (rc)
		return rc;
	r->rb = ring_buffer__new(bpf_session__events_fd(r->bpf), on_event, r, NULL);
	if (!r->rb) {
		pr_err("cannot set up the ring buffer: %s", strerror(errno));
		return CP_EXIT_FAILURE;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	clock_gettime(CLOCK_REALTIME, &now);
	r->start_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	rc = start_sampling(r);
	if (rc)
		return rc;
	pr_info("sampling %d CPUs at %u Hz", bpf_session__ncpus(r->bpf), r->o->frequency);
	rc = start_command(r);
	if (rc)
		return rc;
	err = event_loop(r);
	bpf_session__stop_sampling(r->bpf);
	clock_gettime(CLOCK_MONOTONIC, &r->t_stop);
	if (err)
		pr_err("recording stopped early: %s; writing what was collected", strerror(-err));
	err = drain(r);
	if (err) {
		pr_err("cannot read the samples from the kernel: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	if (symbolizer__zstd_object(r->sym))
		pr_warn("%s has zstd-compressed debug sections, which libdw %s cannot read: its "
			"frames have no source lines or inlined functions (recompress them with "
			"objcopy --compress-debug-sections=zlib)",
			symbolizer__zstd_object(r->sym), dwfl_version(NULL));
	fill_report(r, &rep);
	if (report_write(&rep, r->outs, r->n_outs))
		return CP_EXIT_FAILURE;
	report_summary(&rep, r->n_outs);
	return CP_EXIT_OK;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

int record_run(const struct cp_options *opts)
{
	struct record r = {
		.o = opts,
		.sigfd = -1,
		.epfd = -1,
		.durfd = -1,
		.progfd = -1,
	};
	sigset_t old;
	int rc;

	r.progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_WARN;
	if (block_signals(&r, &old)) {
		pr_err("cannot set up signal handling: %s", strerror(errno));
		return CP_EXIT_FAILURE;
	}
	rc = record_session(&r);
	if (rc == CP_EXIT_OK) {
		rc = finish_command(&r);
	} else if (r.wl && !r.wl_exited) {
		/* a held child dies of SIGTERM as soon as it unblocks signals */
		end_command(r.wl, &r.wl_status);
	}
	for (size_t i = 0; i < r.n_outs; i++)
		out_file__abort(r.outs[i]);
	free(r.outs);
	ring_buffer__free(r.rb);
	unwind_maps__free(r.um);
	prebuild_result_free(&r.pre);
	bpf_session__free(r.bpf);
	workload__free(r.wl);
	symbolizer__free(r.sym);
	profile__free(r.prof);
	for (size_t i = 0; r.pidfds && i < opts->n_pids; i++)
		close_fd(r.pidfds[i]);
	free(r.pidfds);
	free(r.pids);
	if (r.comm_re_set)
		regfree(&r.comm_re);
	/* a second Ctrl-C during naming and writing must not kill us once unblocked */
	if (r.sigfd >= 0) {
		struct signalfd_siginfo si;

		while (read(r.sigfd, &si, sizeof(si)) == sizeof(si))
			;
	}
	close_fd(r.sigfd);
	close_fd(r.epfd);
	close_fd(r.durfd);
	close_fd(r.progfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
