/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side's lifecycle, libbpf-bootstrap style: open the skeleton -> set rodata and map
 * sizes -> load -> attach (tracepoints first, sampling last) -> stop sampling -> drain.
 * Every function returns 0 or a negative errno; bpf_session__step() names the step that failed
 * so the caller can word one actionable message. Nothing here prints.
 */
#ifndef CPUPROF_BPF_LOADER_H
#define CPUPROF_BPF_LOADER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "runtime_shared.h"

struct bpf_session;
struct drain;

/* Sizes of the DWARF unwinder's maps. */
struct bpf_unwind_sizes {
	uint32_t procs; /* process mapping tables (0: CP_DEF_UPROC_ENTRIES) */
};

/*
 * Open and load the programs with this configuration; verifier_log (-vv) asks the kernel for
 * the verifier's log. With cfg->unwind_dwarf, uw sizes the unwinder's maps; without, the DWARF
 * walker is not loaded at all (uw may be NULL). On failure *failed_step names the step ("load
 * the BPF programs"...).
 */
int bpf_session__open(struct bpf_session **out, const struct cp_config *cfg,
		      const struct bpf_unwind_sizes *uw, bool verifier_log,
		      const char **failed_step);

/*
 * After bpf_session__attach_tracking, with --unwind dwarf: 0 when BPF follows the executable
 * mmaps and mprotects of programs started during the recording, else why it cannot (-errno of
 * the attach).
 */
int bpf_session__mmap_hooks(const struct bpf_session *s);

/*
 * --unwind dwarf, the chunks of the unwind row store (shared.h, CP_ROW_CHUNK_ROWS): create
 * chunks [first, first + n) (zeroed) in the array of maps the walker searches, in one batched
 * update where the kernel has it (each update of an array of maps waits for an RCU grace
 * period). 0, -EINVAL (out of range), -EOPNOTSUPP without --unwind dwarf, or the kernel's
 * -errno (-ENOMEM); after an error some of them may be in, empty.
 */
int bpf_session__add_row_chunks(struct bpf_session *s, uint32_t first, uint32_t n);

/*
 * Copy rows to [off, off + n) of chunk i, through a mapping of only those pages, unmapped
 * before returning: the chunk is kernel memory, not in cpuprof's RSS. The rows are visible to
 * the walker at once; publish them with bpf_session__set_unwind_proc. 0, -EINVAL out of
 * bounds, -ENOENT no such chunk, -EOPNOTSUPP without --unwind dwarf, or mmap's -errno.
 */
int bpf_session__write_row_chunk(struct bpf_session *s, uint32_t chunk, uint32_t off,
				 const struct cp_unwind_row *rows, uint32_t n);

/* Publish the mappings (and row ranges) of process pid for the walker. Safe at run time. */
int bpf_session__set_unwind_proc(struct bpf_session *s, uint32_t pid,
				 const struct cp_unwind_proc *up);

/* Give the walker the table of a file for pcs it finds by their VMA (objtab). */
int bpf_session__put_object(struct bpf_session *s, const struct cp_obj_key *key,
			    const struct cp_obj_table *t);

/*
 * A Go process pid whose goroutine labels the samples carry (replaces any); from the first on,
 * samples look for labels. Safe at run time.
 */
int bpf_session__set_go_proc(struct bpf_session *s, uint32_t pid, const struct cp_go_proc *gp);

/*
 * Load (verify) runtime id's walker and put it where the DWARF walk tail-calls it; until then
 * that runtime's processes are walked natively (system-wide and --comm recordings; with -p or
 * a command every wanted walker is loaded at bpf_session__open). Once per session (0 when loaded
 * before); -EINVAL without --unwind dwarf or that runtime's option. Safe at run time; takes as long
 * as the verifier does (up to about half a second).
 */
int bpf_session__load_rt_walker(struct bpf_session *s, uint32_t id);
/*
 * Whether runtime id's walker is loaded (with -p or a command: from the start), and for
 * HotSpot and V8 the walk's JIT hook with it.
 */
bool bpf_session__rt_walker_loaded(const struct bpf_session *s, uint32_t id);
/*
 * Whether the native walk has its JIT hook (HotSpot's and V8's steps): loaded with the first
 * of their walkers (bpf_session__load_rt_walker).
 */
bool bpf_session__jit_hook_loaded(const struct bpf_session *s);

/* A runtime's process pid, for its walker (replaces any). Safe at run time. */
int bpf_session__set_rt_proc(struct bpf_session *s, uint32_t pid, const struct cp_rt_proc *rp);
/*
 * Call fn for every interpreter stack of both sets that want says yes to (it sees the key
 * alone: a stack seen before costs no copy); nonzero from fn stops and is returned.
 */
typedef bool (*rt_stack_want_fn)(uint64_t key, void *ctx);
typedef int (*rt_stack_fn)(uint64_t key, const struct cp_rt_stored *v, void *ctx);
int bpf_session__for_each_rt_stack(struct bpf_session *s, rt_stack_want_fn want, rt_stack_fn fn,
				   void *ctx);
/* What BPF copied of the code at ptr of process (pid, gen) (rt_names). 0 or -errno. */
int bpf_session__rt_name(const struct bpf_session *s, uint32_t pid, uint32_t gen, uint64_t ptr,
			 struct cp_rt_name *out);
/* Delete the rt_names of the processes keys (pid << 32 | gen, sorted). 0 or -ENOMEM. */
int bpf_session__forget_rt_names(struct bpf_session *s, const uint64_t *keys, size_t n);
/* Sum the per-CPU runtime counters into out[CP_RT_STATS] (rows of CP_RT_STAT_ROW). */
int bpf_session__read_rt_stats(const struct bpf_session *s, uint64_t out[CP_RT_STATS]);
/* Attach the fork/exec tracepoints (before any target is started). */
int bpf_session__attach_tracking(struct bpf_session *s);

/*
 * Mark process pid as a target (CP_PROC_TRACED). Only before sampling starts: at run time the
 * BPF side owns the process table.
 */
int bpf_session__trace_proc(struct bpf_session *s, uint32_t pid);

/*
 * Enter process pid, whose mappings were read before sampling started, in the process table
 * as generation 0, so that an exec before its first sample starts a new generation. Only
 * before sampling starts.
 */
int bpf_session__know_proc(struct bpf_session *s, uint32_t pid);

/* Leave process pid out from now on (until it calls exec). Safe at run time. */
int bpf_session__exclude_proc(struct bpf_session *s, uint32_t pid);

/* The refresh request of pid is being answered: the next change may ask again. */
int bpf_session__refresh_taken(struct bpf_session *s, uint32_t pid);

/* Open a cpu-clock sampling event at freq Hz on every online CPU and attach the program. */
int bpf_session__start_sampling(struct bpf_session *s, unsigned int freq);

/*
 * The event sampling runs on: a disabled cpu-clock software event of every process on cpu,
 * freq samples a second (also what `cpuprof check` tries). The descriptor or -errno.
 */
int perf_cpu_clock_open(int cpu, unsigned int freq);

/* Detach and close the sampling events: no new sample starts after this. */
void bpf_session__stop_sampling(struct bpf_session *s);

/*
 * Disable the sampling events, leaving them open (bpf_session__stop_sampling closes them
 * later): no new sample starts after this. Safe from another thread while the session is in
 * use, as long as bpf_session__stop_sampling is not running.
 */
void bpf_session__pause_sampling(struct bpf_session *s);

/* Number of CPUs sampled. */
int bpf_session__ncpus(const struct bpf_session *s);

/* fd of the ring buffer map (for ring_buffer__new). */
int bpf_session__events_fd(const struct bpf_session *s);

/* Sum the per-CPU counters into out[CP_STAT_MAX]. */
int bpf_session__read_stats(const struct bpf_session *s, uint64_t out[CP_STAT_MAX]);

/*
 * The aggregation maps exist twice (bpf/shared.h, struct cp_slot_counters): samples go to the
 * active slot's set while the other is drained. A drain: bpf_session__switch_slot, then
 * bpf_session__copy_slot of the old slot, then bpf_session__clear_slot; the copy is named
 * (aggregate_begin/step/end on bpf_copy__drain) at leisure, while the kernel fills the other set.
 */
struct bpf_copy;

/* The slot samples go to now (0 or 1). */
unsigned int bpf_session__active_slot(const struct bpf_session *s);

/*
 * Make the other slot active and wait until no program uses the one that was (*old): then its
 * maps stand still. -ETIMEDOUT when a program did not leave it within a second (*old is set).
 */
int bpf_session__switch_slot(struct bpf_session *s, unsigned int *old);

/* How full the active set is: the fullest of its maps, in percent of its capacity. */
int bpf_session__fill_level(const struct bpf_session *s, unsigned int *pct);

/*
 * Copy the counts of slot, with the stacks they name, out of the kernel (once slot is not
 * active and quiet: switch_slot, or sampling stopped). A stack the kernel no longer holds is
 * left out (the drain says -ENOENT for it).
 */
int bpf_session__copy_slot(struct bpf_session *s, unsigned int slot, struct bpf_copy **out);

/*
 * The drain (profile/drain.h) reading a copy, for aggregate_begin: keys and stacks handed out
 * where the copy keeps them (no further copy). Valid while c is.
 */
void bpf_copy__drain(struct bpf_copy *c, struct drain *out);

/* Number of counts in c. */
size_t bpf_copy__n_counts(const struct bpf_copy *c);
/* The samples the copy holds: the sum of its counts. */
uint64_t bpf_copy__total(const struct bpf_copy *c);

/* NULL-safe. */
void bpf_copy__free(struct bpf_copy *c);

/* Empty the maps of slot (drained, not active) for its next turn. */
int bpf_session__clear_slot(struct bpf_session *s, unsigned int slot);

/* The generation BPF holds for process pid now; -ENOENT when it holds none. */
int bpf_session__proc_gen(const struct bpf_session *s, uint32_t pid, uint32_t *gen);

/* Name of the step that failed last ("open a cpu-clock perf event"...); "" if none. */
const char *bpf_session__step(const struct bpf_session *s);

/* Detach everything and free. NULL-safe. */
void bpf_session__free(struct bpf_session *s);

/*
 * Parse a CPU list as in /sys/devices/system/cpu/online ("0-3,5,7-8\n") into a malloc'ed
 * array of CPU numbers. Returns 0, -EINVAL or -ENOMEM.
 */
int cpulist_parse(const char *s, int **cpus, int *n);

#endif
