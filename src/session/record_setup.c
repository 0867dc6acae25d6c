// SPDX-License-Identifier: GPL-2.0
/* cpuprof record: what happens before sampling starts (see record_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "util/clock.h"
#include "util/log.h"
#include "util/safe_regex.h"
#include "proc/host.h"
#include "proc/proc_status.h"
#include "interp/rt_hint.h"
#include "interp/runtime.h"
#include "session/record_int.h"

/* ---- checks before anything is loaded --------------------------------------------------- */

/* Root or CAP_BPF + CAP_PERFMON, and BTF: CP_EXIT_OK or the exit status, the reason printed. */
static int check_host(void)
{
	const char *btf;

	if (!host_may_record(geteuid(), host_caps())) {
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
	return CP_EXIT_OK;
}

/* The stack depth and the rate the kernel allows, at most what was asked. */
static void set_limits(struct record *r)
{
	long max_rate, max_stack;

	/* the kernel cuts stacks at kernel.perf_event_max_stack frames */
	r->max_depth = CP_MAX_STACK_DEPTH;
	if (host_sysctl("perf_event_max_stack", &max_stack) == 0 && max_stack > 0 &&
	    max_stack < CP_MAX_STACK_DEPTH)
		r->max_depth = (unsigned int)max_stack;
	r->frequency = r->o->frequency;
	if (host_sysctl("perf_event_max_sample_rate", &max_rate) == 0 && max_rate > 0 &&
	    (long)r->frequency > max_rate) {
		pr_warn("-F %u Hz is above the kernel's limit (kernel.perf_event_max_sample_rate): "
			"sampling at %ld Hz",
			r->o->frequency, max_rate);
		r->frequency = (unsigned int)max_rate;
	}
	if (r->frequency > CP_SAFE_MAX_FREQUENCY) {
		pr_warn("-F %u Hz would spend the CPUs on sampling itself: sampling at %u Hz",
			r->o->frequency, CP_SAFE_MAX_FREQUENCY);
		r->frequency = CP_SAFE_MAX_FREQUENCY;
	}
}

/* Each -p pid alive, a thread id replaced by its process: CP_EXIT_OK or CP_EXIT_NOPROC. */
static int check_pids(struct record *r)
{
	const struct cp_options *o = r->o;

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
	return CP_EXIT_OK;
}

int record_check_environment(struct record *r)
{
	const struct cp_options *o = r->o;
	int status = check_host();

	if (status != CP_EXIT_OK)
		return status;
	r->pids = calloc(o->n_pids ? o->n_pids : 1, sizeof(*r->pids));
	r->pidfds = malloc((o->n_pids ? o->n_pids : 1) * sizeof(*r->pidfds));
	if (!r->pids || !r->pidfds) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < o->n_pids; i++)
		r->pidfds[i] = -1;
	set_limits(r);
	status = check_pids(r);
	if (status != CP_EXIT_OK)
		return status;
	if (o->comm_regex) {
		char msg[256];

		if (safe_regcomp(&r->comm_re, o->comm_regex, REG_NOSUB, msg, sizeof(msg))) {
			pr_err("invalid --comm regular expression '%s': %s", o->comm_regex, msg);
			return CP_EXIT_USAGE;
		}
		r->comm_re_set = true;
	}
	return CP_EXIT_OK;
}

/* Create every output now: a path that cannot be written fails before any sampling. */
int record_open_outputs(struct record *r)
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
			       err == -ENXIO
				       ? "a FIFO without a reader after 1 s; start its reader first"
			       : err == -EINVAL ? "not a regular file, FIFO or character device"
						: strerror(-err));
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

static int publish_proc(void *ctx, uint32_t pid, const struct cp_unwind_proc *up)
{
	return bpf_session__set_unwind_proc(ctx, pid, up);
}

static int put_object(void *ctx, const struct cp_obj_key *key, const struct cp_obj_table *t)
{
	return bpf_session__put_object(ctx, key, t);
}

static int add_row_chunks(void *ctx, uint32_t first, uint32_t n)
{
	return bpf_session__add_row_chunks(ctx, first, n);
}

static int write_row_chunk(void *ctx, uint32_t chunk, uint32_t off,
			   const struct cp_unwind_row *rows, uint32_t n)
{
	return bpf_session__write_row_chunk(ctx, chunk, off, rows, n);
}

static void prebuild_opts_of(struct record *r, struct prebuild_opts *po);

/*
 * Attach the unwind tables to the BPF maps, then build those of the processes read before
 * (each goes into the row store as it is built); warn once about what could not be stored.
 * CP_EXIT_OK (also on a stop signal: the caller sees it), or CP_EXIT_FAILURE out of memory.
 */
static int attach_tables(struct record *r)
{
	struct unwind_maps_stats st;
	struct prebuild_opts po;
	struct unwind_sink sink = {
		.rows = {.add_chunks = add_row_chunks, .write = write_row_chunk, .ctx = r->bpf},
		.publish = publish_proc,
		.put_object = put_object,
		.ctx = r->bpf,
	};
	int err;

	err = unwind_maps__attach(r->um, &sink);
	if (err)
		pr_debug("cannot publish the unwind tables: %s", strerror(-err));
	prebuild_opts_of(r, &po);
	err = prebuild_tables(r->snap, r->um, &po, &r->pre);
	if (err == -ENOMEM) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	pr_debug("built the unwind tables of %zu processes in %.1f ms", r->pre.procs,
		 (double)r->pre.tables_ns / 1e6);
	unwind_maps__stats(r->um, &st);
	if (st.objects_dropped)
		pr_warn("out of kernel memory for the unwind tables: %zu MiB allocated, so %zu "
			"tables (%zu rows) are left out and their code is walked with frame "
			"pointers",
			st.chunks * CP_ROW_CHUNK_ROWS * sizeof(struct cp_unwind_row) >> 20,
			st.objects_dropped, st.rows_dropped);
	return CP_EXIT_OK;
}

static int open_bpf(struct record *r, const char **step)
{
	struct bpf_unwind_sizes uw = {0};

	if (!r->cfg.unwind_dwarf)
		return bpf_session__open(&r->bpf, &r->cfg, NULL, log_get_level() >= LOG_DEBUG,
					 step);
	/* a process mapping table per process known now, with room for as many again */
	uw.procs = CP_DEF_UPROC_ENTRIES;
	while (uw.procs < 2 * r->pre.procs)
		uw.procs *= 2;
	return bpf_session__open(&r->bpf, &r->cfg, &uw, log_get_level() >= LOG_DEBUG, step);
}

/* -v: how long the programs took to load, and whether the walk has its JIT hook yet. */
static void loaded_info(const struct record *r, uint64_t t0)
{
	uint64_t ms = (monotonic_ns() - t0) / 1000000;

	if (!r->cfg.unwind_dwarf || !(r->cfg.runtimes & (1u << CP_RT_V8 | 1u << CP_RT_JAVA)))
		pr_info("BPF programs loaded in %" PRIu64 " ms", ms);
	else if (bpf_session__jit_hook_loaded(r->bpf))
		pr_info("BPF programs loaded in %" PRIu64 " ms, the walk's JIT hook with them", ms);
	else
		pr_info("BPF programs loaded in %" PRIu64 " ms; the walk's JIT hook (Java, node) "
			"comes with the first such process",
			ms);
}

/* The walkers of runtimes_now, named at -v. */
static void say_walkers(const struct record *r)
{
	char names[160] = "";
	size_t n = 0;

	if (!r->cfg.unwind_dwarf || !r->cfg.runtimes || !r->wl)
		return;
	for (uint32_t id = 0; id < CP_RT_MAX && n < sizeof(names); id++)
		if (r->cfg.runtimes_now >> id & 1)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
					      runtime_of(id)->name);
	pr_info("interpreter walkers loaded before the command runs: %s",
		n ? names : "none (each is loaded when a process of its runtime is found)");
}

/* What BPF is told to do (struct cp_config), from the options. */
static void set_config(struct record *r)
{
	const struct cp_options *o = r->o;

	r->cfg.filter_mode = o->command || o->n_pids ? CP_FILTER_PIDS
			     : o->comm_regex	     ? CP_FILTER_COMM
						     : CP_FILTER_ALL;
	r->cfg.user_stacks = !o->kernel_only;
	r->cfg.kernel_stacks = !o->no_kernel;
	r->cfg.include_idle = o->include_idle;
	r->cfg.per_thread = o->per_thread;
	r->cfg.follow_children = o->command != NULL;
	r->cfg.unwind_dwarf = r->um != NULL;
	r->cfg.runtimes = 0;
	for (uint32_t id = CP_RT_NONE + 1; id < CP_RT_MAX; id++)
		if (!o->no_runtime[id])
			r->cfg.runtimes |= 1u << id;
	r->cfg.go_labels = !o->no_go_labels;
	/* the walkers the command likely needs: ready before it runs (the rest when found) */
	r->cfg.runtimes_now =
		(__u8)(r->wl ? rt_hint_file(workload__path(r->wl)) & r->cfg.runtimes : 0);
}

int record_load_bpf(struct record *r)
{
	const struct cp_options *o = r->o;
	const char *step = "";
	uint64_t t0 = monotonic_ns();
	int err;

	set_config(r);
	libbpf_set_print(libbpf_print);
	/*
	 * The capabilities were checked (check_host): EACCES from a load is the verifier
	 * rejecting a program (on a kernel it was not tried on), not a permission; EPERM is one
	 * (lockdown, an LSM).
	 */
	err = open_bpf(r, &step);
	if (err && r->um && o->unwind == UNWIND_AUTO && err != -EPERM) {
		/* the frame-pointer profiler may still work on this kernel */
		pr_warn("cannot set up the DWARF unwinder (failed to %s: %s): user stacks are "
			"walked with frame pointers (-vv shows the verifier's log; --unwind fp "
			"does not try)",
			step,
			err == -EACCES ? "the kernel's verifier rejected a program"
				       : strerror(-err));
		unwind_maps__free(r->um);
		r->um = NULL;
		r->cfg.unwind_dwarf = 0;
		err = open_bpf(r, &step);
	}
	if (err == -EPERM) {
		pr_err("the kernel refused to %s: %s; run as root or with CAP_BPF and CAP_PERFMON "
		       "(a lockdown or security module may forbid BPF)",
		       step, strerror(-err));
		return CP_EXIT_NOPERM;
	}
	if (err == -EACCES) {
		pr_err("failed to %s: the kernel's verifier rejected a program on this kernel (a "
		       "cpuprof bug: run with -vv for the verifier's log and report it)",
		       step);
		return CP_EXIT_FAILURE;
	}
	if (err) {
		pr_err("failed to %s: %s (run with -vv for the verifier's log)", step,
		       strerror(-err));
		return CP_EXIT_FAILURE;
	}
	loaded_info(r, t0);
	say_walkers(r);
	err = bpf_session__attach_tracking(r->bpf);
	if (err) {
		pr_err("failed to %s: %s (run with -vv for details)", bpf_session__step(r->bpf),
		       strerror(-err));
		return CP_EXIT_FAILURE;
	}
	err = bpf_session__mmap_hooks(r->bpf);
	if (err)
		pr_info("cannot follow executable mmaps in BPF (%s): code that programs started "
			"during the recording map later waits for their mappings to be read",
			strerror(-err));
	return r->um ? attach_tables(r) : CP_EXIT_OK;
}

/* ---- targets ----------------------------------------------------------------------------- */

int record_prepare_targets(struct record *r)
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
	r->stop.n_targets = o->n_pids;
	for (size_t i = 0; i < o->n_pids; i++) {
		r->pidfds[i] = (int)syscall(SYS_pidfd_open, r->pids[i], 0);
		if (r->pidfds[i] >= 0)
			continue;
		if (errno == ESRCH)
			r->stop.n_targets--;
		else
			pr_warn("cannot watch process %d for its exit (%s): recording goes on "
				"until "
				"-d or Ctrl-C",
				(int)r->pids[i], strerror(errno));
	}
	if (o->n_pids && !r->stop.n_targets) {
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
int record_prepare_command(struct record *r)
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
 * Before BPF is loaded: read the mappings of the processes that exist now (the process
 * mapping table is sized from their number); their unwind tables are built once the row store
 * exists (attach_tables), before sampling starts, so that the first samples are exact.
 */
static bool prebuild_stop(void *ctx)
{
	return record_stop_pending(ctx);
}

static void prebuild_opts_of(struct record *r, struct prebuild_opts *po)
{
	const struct cp_options *o = r->o;

	*po = (struct prebuild_opts){
		.procfs = "/proc",
		.pids = r->pids,
		.n_pids = o->n_pids,
		/* the whole system only for its tables: with frame pointers, the first sample of a
		   process asks for its mappings, as it always did */
		.all = !o->command && o->unwind != UNWIND_FP && !o->kernel_only,
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.self = getpid(),
		.exe = r->wl ? workload__path(r->wl) : NULL,
		.stop = prebuild_stop,
		.stop_ctx = r,
	};
}

int record_prepare_tables(struct record *r)
{
	const struct cp_options *o = r->o;
	struct prebuild_opts po;
	int err;

	prebuild_opts_of(r, &po);
	r->max_rows = (uint32_t)(o->max_unwind_mib * (1u << 20) / sizeof(struct cp_unwind_row));
	if (o->unwind != UNWIND_FP && !o->kernel_only) {
		r->um = unwind_maps__new(r->max_rows);
		if (!r->um) {
			pr_err("out of memory");
			return CP_EXIT_FAILURE;
		}
		unwind_maps__set_go_tables(r->um, r->gotab);
	}
	err = prebuild(r->snap, NULL, &po, &r->pre);
	if (err == -EINTR)
		return CP_EXIT_OK; /* a stop signal: the caller sees it and stops */
	if (err) {
		pr_err("cannot read the processes' mappings: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	pr_debug("read the mappings of %zu processes (%zu gone) in %.1f ms", r->pre.procs,
		 r->pre.procs_failed, (double)r->pre.ns / 1e6);
	return CP_EXIT_OK;
}

/* /proc/kallsyms showed zeros: say which setting hid them (host_kernel_names_shown's rule). */
static void warn_kernel_hidden(void)
{
	long kptr = -1, paranoid = -1;

	host_sysctl("kptr_restrict", &kptr);
	host_sysctl("perf_event_paranoid", &paranoid);
	if (kptr >= 2)
		pr_warn("kernel addresses are hidden (kernel.kptr_restrict=%ld hides them even "
			"from "
			"root): kernel frames will be unnamed; set kernel.kptr_restrict=1",
			kptr);
	else if (kptr == 1)
		pr_warn("kernel addresses are hidden (kernel.kptr_restrict=1 without CAP_SYSLOG): "
			"kernel frames will be unnamed; run with CAP_SYSLOG (as root)");
	else
		pr_warn("kernel addresses are hidden (kernel.perf_event_paranoid=%ld without "
			"CAP_SYSLOG): kernel frames will be unnamed; run with CAP_SYSLOG or set "
			"kernel.perf_event_paranoid=1",
			paranoid);
}

int record_load_kernel_symbols(struct record *r)
{
	FILE *f;
	int err;

	if (r->o->no_kernel)
		return 0;
	/* no buffer of its own: ksyms__load reads in 1 MiB chunks, which stdio hands straight on */
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	err = symbolizer__load_kallsyms(r->sym, f);
	fclose(f);
	if (!err && symbolizer__kernel_restricted(r->sym))
		warn_kernel_hidden();
	return err;
}

int record_start_sampling(struct record *r)
{
	int err = bpf_session__start_sampling(r->bpf, r->frequency);
	long paranoid = 0;

	if (!err)
		return CP_EXIT_OK;
	if (err == -EACCES || err == -EPERM) {
		host_sysctl("perf_event_paranoid", &paranoid);
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
