/* SPDX-License-Identifier: GPL-2.0 */
/* What `cpuprof record` was asked to do: filled by cmd/cpuprof.c (argp), read by record.c. */
#ifndef CPUPROF_OPTIONS_H
#define CPUPROF_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "output/output.h"
#include <linux/types.h>
#include "runtime_shared.h"

/* --unwind: how user stacks are walked */
enum unwind_mode {
	UNWIND_AUTO = 0, /* unwind tables where an object has them, frame pointers elsewhere; frame
			    pointers only when the DWARF unwinder cannot be set up */
	UNWIND_FP,	 /* frame pointers (the kernel's walk) */
	UNWIND_DWARF,	 /* as auto, but failing to set up the unwinder is an error */
};

struct cp_options {
	/* targets */
	pid_t *pids; /* -p: owned */
	size_t n_pids;
	const char *comm_regex; /* --comm */
	char **command;		/* -- COMMAND [ARG...]: points into argv */

	/* sampling */
	uint64_t duration_ms; /* 0: until Ctrl-C or COMMAND exit */
	unsigned int frequency;
	bool no_kernel;
	bool kernel_only;
	bool include_idle;
	bool per_thread;
	enum unwind_mode unwind;    /* --unwind */
	uint64_t max_unwind_mib;    /* --max-unwind-memory: unwind rows, MiB */
	uint64_t drain_ms;	    /* --drain-interval: read the kernel's counts this often */
	bool no_runtime[CP_RT_MAX]; /* by CP_RT_* id: --no-python, --no-ruby, --no-php,
				       --no-perl, --no-node, --no-java */
	bool no_go_labels;	    /* --no-go-labels: no goroutine labels */

	/* output: each -o FILE ("-": stdout; none: stdout), all from the same recording */
	const char **outputs;
	size_t n_outputs;
	enum output_format format; /* --format: for every output; FORMAT_AUTO: from each name */
	bool lines;		   /* --lines: folded frames carry their file:line */
	bool labels;		   /* --labels: folded lines carry the sample's labels */
	bool debuginfod;	   /* --debuginfod: fetch missing debug files ($DEBUGINFOD_URLS) */
	unsigned int jobs;	   /* -j: threads naming objects at once (0: online CPUs) */

	/* the command line, for the profile's comment */
	int argc;
	char **argv;
};

/* The format of output i: --format, or inferred from its name. */
enum output_format options_output_format(const struct cp_options *o, size_t i);

/* The path of output i as given ("-": stdout), and the name to show for it. */
const char *options_output_path(const struct cp_options *o, size_t i);
const char *options_output_name(const struct cp_options *o, size_t i);

#define CPUPROF_VERSION	     "0.1.0"

#define CP_DEFAULT_FREQUENCY 99
/* --max-unwind-memory default: the most the unwind tables may take */
#define CP_DEFAULT_UNWIND_MIB 128
/*
 * --drain-interval default: the in-kernel counts are read (and their stacks named) this often
 * while recording, and sooner when a map is a quarter full (CP_DRAIN_FILL_PCT).
 */
#define CP_DEFAULT_DRAIN_MS 5000
#define CP_MIN_DRAIN_MS	    10
#define CP_DRAIN_FILL_PCT   25
/* Refused above this; the kernel's own cap is kernel.perf_event_max_sample_rate. */
#define CP_MAX_FREQUENCY 100000
/*
 * Sampling runs at this rate at most (higher -F is capped, with a warning): each sample runs
 * the BPF program, which walks a user stack (1 to 5 us), in the timer interrupt of a
 * cpu-clock event, and nothing lowers that rate for a software event as the kernel does for
 * hardware ones. Measured on a 2-CPU VM with both CPUs busy: -F 50000 -d 1s took 1.8 s,
 * -F 100000 -d 1s took 8.5 s.
 */
#define CP_SAFE_MAX_FREQUENCY 20000

/* Exit statuses (documented in --help and cpuprof(1)). */
enum cp_exit {
	CP_EXIT_OK = 0,
	CP_EXIT_FAILURE = 1,	/* runtime failure: BPF load/attach, I/O */
	CP_EXIT_USAGE = 64,	/* bad option or value (EX_USAGE; argp's own) */
	CP_EXIT_NOPROC = 66,	/* no such pid (EX_NOINPUT) */
	CP_EXIT_UNAVAIL = 69,	/* the kernel lacks BTF or a BPF feature (EX_UNAVAILABLE) */
	CP_EXIT_CANTCREAT = 73, /* output not writable (EX_CANTCREAT) */
	CP_EXIT_NOPERM = 77,	/* not root / no CAP_BPF+CAP_PERFMON (EX_NOPERM) */
	CP_EXIT_NOEXEC = 126,	/* COMMAND found but not executable */
	CP_EXIT_NOTFOUND = 127, /* COMMAND not found */
};

#endif
