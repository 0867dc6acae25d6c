/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuprof record, inside: the state of one recording, shared by record.c (the session, the
 * event loop, the requests from BPF, the drain) and record_setup.c (everything before
 * sampling starts: checks, outputs, the command, unwind tables, BPF, targets). These print
 * the one line the user sees on failure and return an exit status (enum cp_exit).
 */
#ifndef CPUPROF_RECORD_INT_H
#define CPUPROF_RECORD_INT_H
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
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
	int sigfd, epfd, durfd, progfd;
	int drainfd;		    /* ticks: time for a drain, or a set filling up? */
	uint64_t next_drain_ns;	    /* the next periodic drain (monotonic) */
	unsigned int n_drains;	    /* sets taken from the kernel */
	unsigned int n_fill_drains; /* of which because a map was filling up */
	struct bpf_copy **queue;    /* sets taken, not named yet (oldest first) */
	size_t n_queue, cap_queue;
	bool take_failed;      /* taking a set failed while naming */
	bool sampling_stopped; /* the sampling events are closed: t_stop is set */
	struct gone_snap {
		uint64_t key;	/* pid << 32 | gen: a process found gone */
		uint64_t named; /* release its snapshot once this many sets are named */
	} * gone;
	size_t n_gone, cap_gone;
	uint64_t n_named;    /* sets named so far */
	uint64_t n_copied;   /* samples copied out of the kernel (the sets' sums) */
	uint64_t n_agg;	     /* samples the copies named gave (kept or left out by --comm) */
	uint64_t n_released; /* snapshots released while recording */
	/*
	 * System-wide: pids of processes that have ended, every set of theirs named; past
	 * ENDED_MERGE_AT their samples are merged per (comm, stack) (profile__merge_ended).
	 */
	uint32_t *ended;
	size_t n_ended, cap_ended;
	uint64_t n_merged;	 /* samples merged so */
	uint64_t n_merged_procs; /* and their processes */
	unsigned int n_merges;
	bool progress; /* a progress line on stderr (a terminal) */
	enum stop_reason stop;
	int stop_signal;
	unsigned int n_stop_signals; /* SIGINT, SIGTERM and SIGHUP received so far */
	bool draining;		     /* sampling has stopped: the counts are being named */
	uint64_t next_check_ns;	     /* while consuming requests: when to look for signals */
	uint64_t next_fill_ns;	     /* while naming: when to look at the fill levels */
	uint64_t next_trim_ns;	     /* when to give freed memory back next (malloc_trim) */
	int wl_status;
	bool wl_exited;
	struct timespec t0;
	uint64_t stats[CP_STAT_MAX];
	uint64_t snapshot_failed; /* processes gone before their mappings were read */
	struct aggregate_stats agg;
	uint64_t refresh_failed; /* mapping refreshes of processes already gone */
	uint64_t vma_added;	 /* mappings the walker found and told (cp_map_event) */
	uint64_t vma_unknown;	 /* of those, files not known and no longer open-able */
	unsigned int max_depth;	 /* kernel.perf_event_max_stack, at most CP_MAX_STACK_DEPTH */
	unsigned int frequency;	 /* -F, capped at what the kernel and the machine can take */
	struct timespec t_stop;	 /* when sampling stopped */
	double cpu_stop;	 /* the process's CPU seconds then */
	const char *phase; /* what the drain does now, or NULL (-vv: what a stop waited for) */
	uint64_t *forget;  /* released processes (pid << 32 | gen) whose interpreter names go */
	size_t n_forget, cap_forget;
	struct record_rt *rt; /* the interpreters (record_rt.c); NULL when none is on */
	int pyfd;	      /* its timer */
	uint64_t rt_stats[CP_RT_STATS];
	/*
	 * The watch: a thread that stops the sampling events at the end of -d or when a stop
	 * signal is pending, even while this thread names a long backlog on a starved machine.
	 */
	struct {
		pthread_t thread;
		bool running;
		int quitfd;		 /* eventfd: the watch is over */
		int sigfd;		 /* the stop signals, polled and never read */
		uint64_t deadline_ns;	 /* monotonic end of -d, 0: none */
		atomic_bool paused;	 /* it stopped the events */
		struct timespec t_pause; /* when */
	} watch;
};

/* Capabilities, BTF, the kernel's limits, -p targets, --comm. */
int record_check_environment(struct record *r);

/* Create every output now: a path that cannot be written fails before any sampling. */
int record_open_outputs(struct record *r);

/* Fork the command, held until sampling runs. */
int record_prepare_command(struct record *r);

/* Read the mappings of the processes that exist now and build their unwind tables. */
int record_prepare_tables(struct record *r);

/* A stop signal has arrived (read from the signalfd now): for long steps to give up early. */
bool record_stop_pending(struct record *r);

/* Load the BPF programs (the DWARF unwinder sized from the tables built), move the tables in. */
int record_load_bpf(struct record *r);

/* Tell BPF the targets; watch -p targets for their exit. */
int record_prepare_targets(struct record *r);

/* Kernel symbols; 0 or a negative errno (the caller warns). */
int record_load_kernel_symbols(struct record *r);

/* Open and enable the perf events. */
int record_start_sampling(struct record *r);

#endif
