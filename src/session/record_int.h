/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuprof record, inside: the state of one recording, shared by record.c (the session: it
 * sequences the units below, answers requests, drains, names, writes) and record_setup.c
 * (everything before sampling starts: checks, outputs, the command, unwind tables, BPF,
 * targets). The parts with a contract of their own keep their state in their own struct:
 * stop_rule.h (when to stop), set_queue.h (which set to drain when), proc_track.h (the
 * processes, their requests and ends), watch.h (fds, timers, the watch thread), and
 * aggregate.h (naming a set). These print the one line the user sees on failure and return
 * an exit status (enum cp_exit).
 */
#ifndef CPUPROF_RECORD_INT_H
#define CPUPROF_RECORD_INT_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include "profile/aggregate.h"
#include "session/bpf_loader.h"
#include "session/options.h"
#include "output/output.h"
#include "session/prebuild.h"
#include "proc/proc_snapshot.h"
#include "profile/profile.h"
#include "symbol/symbolize.h"
#include "unwind/unwind_maps.h"
#include "session/workload.h"
#include "session/proc_track.h"
#include "session/set_queue.h"
#include "session/stop_rule.h"
#include "session/watch.h"
#include "session/go_labels.h"

/*
 * Addresses whose names are kept across drains (struct name_cache): about 60 bytes each, so
 * about 8 MiB; past that the cache starts again.
 */
#define CP_NAME_CACHE_MAX (1u << 17)
/*
 * Frames and merged stacks of ended processes kept in memory before they go to disk (spill.h):
 * a 30 s recording of a busy machine stays under it, so Ctrl-C reads nothing back.
 */
#define CP_SPILL_AFTER (1u << 15)

/* The fds of the session's loop (-1: none). */
struct record_fds {
	int sig;   /* signalfd: SIGINT, SIGTERM, SIGHUP, SIGCHLD */
	int ep;	   /* the epoll set of the loop */
	int dur;   /* -d timer */
	int prog;  /* the progress line's timer */
	int drain; /* ticks: time for a drain, or a set filling up? */
	int py;	   /* the interpreters' timer (record_rt.c) */
};

struct record {
	const struct cp_options *o;
	pid_t *pids; /* -p, thread ids replaced by their process ids */
	int *pidfds; /* pidfd of each -p process: readable once it has exited (-1: none) */
	struct cp_config cfg;
	struct bpf_session *bpf;
	struct ring_buffer *rb;
	struct proc_snapshot *snap; /* the mappings of the processes, for unwinder and symbolizer */
	struct symbolizer *sym;
	struct unwind_maps *um; /* NULL with --unwind fp, or when the unwinder failed (auto) */
	uint32_t max_rows;	/* --max-unwind-memory in rows */
	struct prebuild_result pre;
	struct workload *wl;
	struct out_file **outs; /* one per -o (at least one: stdout) */
	size_t n_outs;
	uint64_t start_unix_ns; /* wall clock when sampling started */
	struct profile *prof;
	struct name_cache *names; /* names per (object, vaddr) kept across drains of prof */
	unsigned int jobs;	  /* -j, or the online CPUs */
	regex_t comm_re;
	bool comm_re_set;
	struct record_fds fd;
	struct stop_rule stop;	 /* when to stop; stop.n_targets: -p processes alive */
	struct set_queue sets;	 /* sets taken, not named yet, and their accounts */
	struct proc_track track; /* requests from BPF, ended processes */
	struct watch watch;	 /* stops sampling at -d or a stop signal, from its thread */
	bool sampling_stopped;	 /* the sampling events are closed: t_stop is set */
	bool progress;		 /* a progress line on stderr (a terminal) */
	uint64_t next_trim_ns;	 /* when to give freed memory back next (malloc_trim) */
	size_t go_trimmed;	 /* Go tables let go between drains (go_tables__trim) */
	uint64_t n_merged;	 /* samples of ended processes merged per (comm, stack) */
	uint64_t n_merged_procs; /* and their processes */
	unsigned int n_merges;	 /* merges so far */
	int wl_status;
	bool wl_exited;
	struct timespec t0;
	uint64_t stats[CP_STAT_MAX];
	struct aggregate_stats agg;
	unsigned int max_depth; /* kernel.perf_event_max_stack, at most CP_MAX_STACK_DEPTH */
	unsigned int frequency; /* -F, capped at what the kernel and the machine can take */
	struct timespec t_stop; /* when sampling stopped */
	double cpu_stop;	/* the process's CPU seconds then */
	const char *phase;	/* what the drain does now, or NULL (-vv: what a stop waited for) */
	struct record_rt *rt;	/* the interpreters (record_rt.c); NULL when none is on; fd.py */
	struct go_labels *golab; /* Go programs whose goroutine labels BPF reads; NULL: off */
	struct go_tables *gotab; /* Go's function tables, read once for unwinder and labels */
	uint64_t rt_stats[CP_RT_STATS];
};

/* Capabilities, BTF, the kernel's limits, -p targets, --comm. */
int record_check_environment(struct record *r);

/* Create every output now: a path that cannot be written fails before any sampling. */
int record_open_outputs(struct record *r);

/* Fork the command, held until sampling runs. */
int record_prepare_command(struct record *r);

/* Read the mappings of the processes that exist now (their unwind tables: record_load_bpf). */
int record_prepare_tables(struct record *r);

/* A stop signal has arrived (read from the signalfd now): for long steps to give up early. */
bool record_stop_pending(struct record *r);

/*
 * Load the BPF programs (the process mapping table sized from the processes read), then build
 * the unwind tables of those processes straight into the row store.
 */
int record_load_bpf(struct record *r);

/* Tell BPF the targets; watch -p targets for their exit. */
int record_prepare_targets(struct record *r);

/* Kernel symbols; 0 or a negative errno (the caller warns). */
int record_load_kernel_symbols(struct record *r);

/* Open and enable the perf events. */
int record_start_sampling(struct record *r);

#endif
