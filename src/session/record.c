// SPDX-License-Identifier: GPL-2.0
/*
 * The recording session: it sequences the units (record_int.h) and owns no decision they
 * make: setup steps from a table, then the loop (requests from BPF, timers, signals), the
 * drains (take a set, name it step by step), the last drain, the output. Its order is unit
 * tested without BPF: tests/unit/test_record.c links it with fakes of what it calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include "profile/aggregate.h"
#include "session/bpf_loader.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rss.h"
#include "output/output.h"
#include "profile/profile.h"
#include "session/prebuild.h"
#include "proc/proc_snapshot.h"
#include "proc/proc_status.h"
#include "session/proc_track.h"
#include "session/record.h"
#include "session/record_int.h"
#include "session/record_rt.h"
#include "session/report.h"
#include "session/set_queue.h"
#include "session/stop_rule.h"
#include "session/watch.h"
#include "symbol/demangle.h"
#include "symbol/perfmap.h"
#include "symbol/symbolize.h"
#include "unwind/unwind_maps.h"
#include "session/workload.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- process tracking: what proc_track's requests do in a recording ---------------------- */

static int track_refresh(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;

	return proc_snapshot__refresh(r->snap, pid, gen);
}

/* Tables for the mappings of (pid, gen) just read (until then, frame pointers); interpreters. */
static void track_loaded(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;
	int err;

	/* first: a Go program's goroutines run from its first millisecond */
	err = r->golab ? go_labels__loaded(r->golab, pid, gen) : -ENOENT;
	if (err && err != -ENOENT)
		pr_debug("goroutine labels of pid %u (generation %u) not read: %s", pid, gen,
			 strerror(-err));
	err = r->um ? unwind_maps__add_proc(r->um, r->snap, pid, gen) : 0;
	if (err)
		pr_debug("cannot load the unwind tables of pid %u: %s", pid, strerror(-err));
	record_rt_new(r, pid, gen);
}

static void track_refresh_taken(void *ctx, uint32_t pid)
{
	bpf_session__refresh_taken(((struct record *)ctx)->bpf, pid);
}

static int track_add_vma(void *ctx, uint32_t pid, uint32_t gen, const struct ps_vma *v)
{
	return proc_snapshot__add_vma(((struct record *)ctx)->snap, pid, gen, v);
}

static int track_comm(void *ctx, uint32_t pid, char *buf, size_t size)
{
	(void)ctx;
	return proc_comm_read("/proc", pid, buf, size);
}

static void track_exclude(void *ctx, uint32_t pid)
{
	bpf_session__exclude_proc(((struct record *)ctx)->bpf, pid);
}

/*
 * A snapshot whose process has exited, or whose generation exec or pid reuse has ended: no
 * sample of it can go to a set taken after the next one.
 */
static bool track_gone(void *ctx, uint32_t pid, uint32_t gen)
{
	struct record *r = ctx;
	uint32_t now;

	return (bpf_session__proc_gen(r->bpf, pid, &now) == 0 && now != gen) ||
	       (kill((pid_t)pid, 0) && errno == ESRCH);
}

static int track_release(void *ctx, uint32_t pid, uint32_t gen)
{
	return proc_snapshot__release(((struct record *)ctx)->snap, pid, gen);
}

static void track_forget(void *ctx, const uint64_t *keys, size_t n)
{
	record_rt_forget(ctx, keys, n);
}

static void track_init(struct record *r)
{
	r->track = (struct proc_track){
		.ops = {.ctx = r,
			.refresh = track_refresh,
			.loaded = track_loaded,
			.refresh_taken = track_refresh_taken,
			.add_vma = track_add_vma,
			.comm = track_comm,
			.exclude = track_exclude,
			.gone = track_gone,
			.release = track_release,
			.forget = track_forget},
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.system_wide = !r->o->command && !r->o->n_pids,
	};
}

/* ---- signals and stops -------------------------------------------------------------------- */

static void handle_signal(struct record *r)
{
	struct signalfd_siginfo si;

	while (read(r->fd.sig, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGCHLD)
			stop_rule_signal(&r->stop, (int)si.ssi_signo);
		else if (r->wl && workload__reap(r->wl, false, &r->wl_status) == 1)
			r->wl_exited = true;
	}
	if (r->wl_exited)
		stop_rule_command_exited(&r->stop);
}

bool record_stop_pending(struct record *r)
{
	handle_signal(r);
	return stop_rule_by_signal(&r->stop);
}

/*
 * Between requests from BPF and naming steps: whether to give way now. A flood of new
 * processes (an exec storm) must not keep the loop from a Ctrl-C or from the end of -d.
 */
static bool consume_interrupted(struct record *r)
{
	uint64_t now = monotonic_ns();

	if (!stop_rule_check_due(&r->stop, now))
		return false;
	handle_signal(r);
	stop_rule_time(&r->stop, now);
	return stop_rule_interrupts(&r->stop);
}

/*
 * A request from BPF (ring buffer): the first sample of (pid, gen) and the like. Answered
 * before giving way: libbpf drops the record whose callback fails, and BPF does not ask again.
 */
static int on_event(void *ctx, void *data, size_t size)
{
	struct record *r = ctx;
	int err = proc_track_event(&r->track, data, size);

	if (!err && consume_interrupted(r))
		return -EINTR; /* ends ring_buffer__consume; what is left stays queued */
	return err;
}

/* Seconds from a to b. */
static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

static void show_progress(struct record *r)
{
	uint64_t st[CP_STAT_MAX];
	struct timespec now;

	if (bpf_session__read_stats(r->bpf, st))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stderr, "\rcpuprof: recording %.0f s, %" PRIu64 " sample%s\033[K",
		ts_diff(&r->t0, &now), st[CP_STAT_RECORDED], st[CP_STAT_RECORDED] == 1 ? "" : "s");
}

/* ---- the watch and the stop of sampling ----------------------------------------------------- */

static void pause_sampling(void *ctx)
{
	bpf_session__pause_sampling(ctx);
}

/* Start the watch once sampling runs; without it (no thread) the event loop alone stops. */
static void start_watch(struct record *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (watch_start(&r->watch, &set, r->stop.deadline_ns, pause_sampling, r->bpf))
		pr_debug("no watch thread: -d and stop signals wait for the naming steps");
}

/*
 * Once sampling has stopped the user waits for the file, and on a busy machine a process at
 * the default priority gets a fraction of a CPU: the rest of the run (naming the last sets,
 * writing) goes at nice STOP_NICE, which the naming threads started from here inherit. Only
 * from the default priority: a cpuprof the user started with nice keeps it.
 */
#define STOP_NICE (-5)
static void stop_priority(void)
{
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == 0 && errno == 0 && setpriority(PRIO_PROCESS, 0, STOP_NICE))
		pr_debug("cannot raise the priority to finish: %s", strerror(errno));
}

/* The CPU time of the whole process so far (every thread), in seconds. */
static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Stop the sampling events now (once): the recording ends here, naming may go on. */
static void stop_sampling(struct record *r)
{
	struct timespec now;

	if (r->sampling_stopped)
		return;
	r->cpu_stop = cpu_seconds();
	stop_priority();
	watch_end(&r->watch);
	bpf_session__stop_sampling(r->bpf);
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the watch may have stopped the events earlier: the recording ended then */
	if (watch_paused(&r->watch, &r->t_stop))
		pr_debug("the stop was seen %.3f s after sampling paused, while %s",
			 ts_diff(&r->t_stop, &now), r->phase ? r->phase : "waiting");
	else
		r->t_stop = now;
	r->sampling_stopped = true;
}

/* ---- the event loop ---------------------------------------------------------------------- */

static int take_set(struct record *r);
static int drain_tick(struct record *r);

/* A timer of the loop into *fd, added to its epoll set. 0 or a negative errno. */
static int loop_timer(struct record *r, int *fd, uint64_t first_ms, uint64_t interval_ms)
{
	*fd = watch_timer(first_ms, interval_ms);
	if (*fd < 0)
		return *fd;
	return watch_add(r->fd.ep, *fd);
}

/* The loop's fds: signals, requests, timers, the -p targets' exits. */
static int loop_open(struct record *r)
{
	/* fill levels are looked at every 200 ms at most */
	uint64_t tick_ms = r->o->drain_ms < 200 ? r->o->drain_ms : 200;
	int err;

	r->fd.ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->fd.ep < 0)
		return -errno;
	err = watch_add(r->fd.ep, r->fd.sig);
	if (!err)
		err = watch_add(r->fd.ep, ring_buffer__epoll_fd(r->rb));
	if (!err && r->o->duration_ms)
		err = loop_timer(r, &r->fd.dur, r->o->duration_ms, 0);
	set_queue_init(&r->sets, r->o->drain_ms, monotonic_ns());
	if (!err)
		err = loop_timer(r, &r->fd.drain, tick_ms, tick_ms);
	if (!err && r->progress)
		err = loop_timer(r, &r->fd.prog, 1000, 1000);
	/*
	 * The interpreters: not ready at exec (tried again at each tick: a 0.1 s script is over
	 * before a slower one finds it), stacks to name while they live (every RT_NAME_TICKS-th
	 * tick: record_rt.c)
	 */
	if (!err && r->rt)
		err = loop_timer(r, &r->fd.py, RT_TICK_MS, RT_TICK_MS);
	for (size_t i = 0; !err && i < r->o->n_pids; i++)
		if (r->pidfds[i] >= 0)
			err = watch_add(r->fd.ep, r->pidfds[i]);
	return err;
}

/* One ready fd of the loop. 0 or a negative errno (the loop ends). */
static int loop_ready(struct record *r, int fd)
{
	if (fd == r->fd.sig) {
		handle_signal(r);
	} else if (fd == ring_buffer__epoll_fd(r->rb)) {
		ring_buffer__consume(r->rb);
	} else if (fd == r->fd.dur) {
		stop_rule_deadline(&r->stop);
	} else if (fd == r->fd.prog) {
		if (watch_ticked(fd))
			show_progress(r);
	} else if (fd == r->fd.drain) {
		if (watch_ticked(fd))
			return drain_tick(r);
	} else if (fd == r->fd.py) {
		if (watch_ticked(fd))
			record_rt_timer(r);
	} else {
		/* a -p process has exited (its pidfd is readable) */
		epoll_ctl(r->fd.ep, EPOLL_CTL_DEL, fd, NULL);
		stop_rule_target_exited(&r->stop);
	}
	return 0;
}

static int event_loop(struct record *r)
{
	struct epoll_event evs[8];
	int err = loop_open(r);

	if (err)
		return err;
	/* the command may have ended before its SIGCHLD could be seen */
	if (r->wl && workload__reap(r->wl, false, &r->wl_status) == 1) {
		r->wl_exited = true;
		stop_rule_command_exited(&r->stop);
	}
	while (r->stop.stop == STOP_NONE) {
		int n = epoll_wait(r->fd.ep, evs, ARRAY_LEN(evs), -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; !err && i < n; i++)
			err = loop_ready(r, evs[i].data.fd);
		if (err)
			return err;
	}
	if (r->progress)
		fputs("\r\033[K", stderr);
	return 0;
}

/* ---- drain ------------------------------------------------------------------------------ */

/*
 * The kernel aggregates in two sets of maps (bpf/shared.h): while samples go to one, the other
 * is copied out and cleared (take_set), and the copies are named into r->prof (name_queue).
 * While recording this runs every --drain-interval and whenever a set is filling up; at the
 * end both sets are taken and every copy named.
 */

static int check_gone(uint32_t pid, uint32_t gen, void *ctx)
{
	struct record *r = ctx;

	return proc_track_check(&r->track, pid, gen, set_queue_release_at(&r->sets));
}

static void free_set(void *set)
{
	bpf_copy__free(set);
}

/*
 * Switch sets, copy the one switched from out of the kernel and clear it: fast, so the sets
 * never fill up while a copy is named. The copy joins the queue of copies to name.
 */
static int take_set(struct record *r)
{
	struct bpf_copy *c;
	unsigned int old = 0;
	int err;

	/* ended processes: their snapshots go once the set after this one is named */
	if (!r->stop.draining && proc_track_looking(&r->track)) {
		err = proc_snapshot__for_each_snapshot(r->snap, check_gone, r);
		if (err)
			return err;
	}
	err = bpf_session__switch_slot(r->bpf, &old);
	if (err == -ETIMEDOUT)
		pr_debug("a BPF program did not leave the maps being drained within a second");
	else if (err)
		return err;
	err = bpf_session__copy_slot(r->bpf, old, &c);
	if (err)
		return err;
	/* --python: name the set's code objects now, while their processes may still live */
	record_rt_tick(r);
	err = set_queue_push(&r->sets, c, bpf_copy__total(c));
	if (err) {
		bpf_copy__free(c);
		return err;
	}
	/*
	 * Once sampling has stopped, the last two takes copy each set once and nothing reads
	 * them again: emptying them would only keep the user waiting.
	 */
	return r->stop.draining ? 0 : bpf_session__clear_slot(r->bpf, old);
}

/*
 * Between two naming steps while recording: answer the requests from BPF, take the active
 * set when it is filling up (naming may be slow on a busy machine), and stop sampling as
 * soon as a stop comes (-d holds, Ctrl-C is prompt). Once sampling has stopped: a second
 * stop signal hurries the naming.
 */
static void between_steps(struct record *r, struct aggregate *g)
{
	unsigned int pct;

	if (r->stop.draining) {
		handle_signal(r);
		if (stop_rule_hurry(&r->stop))
			aggregate_hurry(g);
		return;
	}
	/* processes that start while we name must be read before they are gone */
	ring_buffer__consume(r->rb);
	if (r->sampling_stopped)
		return;
	if (consume_interrupted(r)) {
		stop_sampling(r);
		return;
	}
	if (!set_queue_fill_due(&r->sets, monotonic_ns()) ||
	    bpf_session__fill_level(r->bpf, &pct) || !set_queue_filling(pct))
		return;
	if (take_set(r))
		r->sets.take_failed = true; /* the drain says so */
	r->sets.n_fill++;
}

static void aggregate_opts_of(struct record *r, struct aggregate_opts *ao)
{
	*ao = (struct aggregate_opts){
		.kernel_only = r->o->kernel_only,
		.no_kernel = r->o->no_kernel,
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.max_depth = r->max_depth,
		.rt_proc = r->rt ? record_rt_proc : NULL,
		.rt_name = record_rt_name,
		.rt_ctx = r,
		.cache = r->names,
		.jobs = r->jobs,
	};
}

/* Name copy c into r->prof, step by step; it leaves the queue whatever happens. */
static int name_set(struct record *r, struct bpf_copy *c)
{
	uint64_t before = profile__total(r->prof);
	struct aggregate_stats st = {0};
	struct aggregate_opts ao;
	struct aggregate *g;
	struct drain d;
	int err;

	aggregate_opts_of(r, &ao);
	bpf_copy__drain(c, &d);
	err = aggregate_begin(&d, r->sym, &ao, r->prof, &g);
	if (!err && r->stop.draining && stop_rule_hurry(&r->stop))
		aggregate_hurry(g);
	while (!err && (err = aggregate_step(g)) > 0) {
		between_steps(r, g);
		err = 0;
	}
	aggregate_end(g, &st);
	set_queue_named(&r->sets, profile__total(r->prof) - before + st.comm_filtered);
	aggregate_stats_add(&r->agg, &st);
	return err;
}

/* -vv: "A MiB (anon B, file C)" from /proc/self/status; "?" when it cannot be read. */
static const char *rss_split(char *buf, size_t size)
{
	struct proc_status st;

	if (proc_status_read("/proc", (uint32_t)getpid(), &st))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.1f MiB (anon %.1f, file %.1f)", st.rss_kib / 1024.0,
			 st.rss_anon_kib / 1024.0, st.rss_file_kib / 1024.0);
	return buf;
}

/* -vv: where the memory is after a drain. */
static void debug_memory(const struct record *r)
{
	struct mallinfo2 mi = mallinfo2();
	size_t objs, idx, sym_strs, sym_bytes;
	struct profile_spill ps;
	struct profile_mem pm;
	char rss[96];

	symbolizer__sizes(r->sym, &objs, &idx, &sym_strs, &sym_bytes);
	profile__spill_sizes(r->prof, &ps);
	profile__mem(r->prof, &pm);
	pr_debug("after %u drains: heap in use %.1f MiB (%.1f MiB of it mmapped, %.1f MiB "
		 "free in arenas); RSS %s; the profile: %zu distinct stacks (%.1f MiB), "
		 "%zu frames (%.1f MiB; %" PRIu64 " on disk, %.1f MiB), %zu strings "
		 "(%.1f MiB), %" PRIu64 " stacks on disk (%.1f MiB, %zu runs); %zu addresses "
		 "named in the cache (%.1f MiB); %zu objects, %zu shared indexes, %zu strings "
		 "(%.1f MiB)",
		 r->sets.n_taken, (double)(mi.uordblks + mi.hblkhd) / 1048576,
		 (double)mi.hblkhd / 1048576, (double)mi.fordblks / 1048576,
		 rss_split(rss, sizeof(rss)), profile__n_samples(r->prof),
		 (double)pm.samples / 1048576, profile__n_frames(r->prof),
		 (double)pm.frames / 1048576, ps.frames, (double)ps.frame_bytes / 1048576,
		 pm.n_strings, (double)pm.strings / 1048576, ps.records, (double)ps.bytes / 1048576,
		 ps.runs, name_cache__n(r->names), (double)name_cache__bytes(r->names) / 1048576,
		 objs, idx, sym_strs, (double)sym_bytes / 1048576);
}

/*
 * While recording, after the queue is named: every address so far is named, its names kept
 * in r->names, so the indexes of objects this drain did not use go (memory follows what
 * drains name, not every object seen), and the memory goes back (the naming threads' arenas
 * too), every 30 s at most. Not once sampling has stopped: the process is about to end, the
 * output reuses the memory, and freeing took 20-50 ms of the user's wait after Ctrl-C.
 */
static void give_back_memory(struct record *r)
{
	r->phase = "dropping indexes";
	symbolizer__drop_indexes(r->sym, false);
	r->go_trimmed += go_tables__trim(r->gotab);
	if (monotonic_ns() >= r->next_trim_ns) {
		r->phase = "trimming the heap";
		malloc_trim(0);
		r->next_trim_ns = monotonic_ns() + 30 * 1000000000ull;
	}
}

/* Name the queued copies into r->prof, oldest first (more may join meanwhile). */
static int name_queue(struct record *r)
{
	struct bpf_copy *c;
	int err = 0;

	while (!err && (c = set_queue_oldest(&r->sets))) {
		r->phase = "naming";
		err = name_set(r, c);
		bpf_copy__free(c);
		if (!r->stop.draining)
			proc_track_release(&r->track, r->sets.n_named);
		/* the next copy reads the perf maps (JIT symbols) again: they may have grown */
		symbolizer__forget_perf_maps(r->sym);
	}
	if (!r->stop.draining)
		give_back_memory(r);
	if (log_get_level() >= LOG_DEBUG)
		debug_memory(r);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool pid_ended(void *ctx, uint32_t pid)
{
	const struct proc_track *t = ctx;

	return bsearch(&pid, t->ended, t->n_ended, sizeof(*t->ended), cmp_u32) != NULL;
}

/*
 * System-wide, once more than ENDED_MERGE_AT processes have ended: their samples become
 * samples of no process, merged per (comm, stack) (README "Memory"), so the profile follows
 * the live processes and the distinct stacks, not every process the recording saw. A pid in
 * use again is left alone (it is listed again when that process ends).
 */
#define ENDED_MERGE_AT 256
static void merge_ended(struct record *r)
{
	struct proc_track *t = &r->track;
	size_t n = 0, merged = 0;

	if (t->n_ended <= ENDED_MERGE_AT)
		return;
	for (size_t i = 0; i < t->n_ended; i++)
		if (kill((pid_t)t->ended[i], 0) && errno == ESRCH)
			t->ended[n++] = t->ended[i];
	t->n_ended = n;
	qsort(t->ended, n, sizeof(*t->ended), cmp_u32);
	if (profile__merge_ended(r->prof, pid_ended, t, &merged)) {
		pr_debug("cannot merge the samples of ended processes: out of memory");
		return;
	}
	r->n_merged += merged;
	r->n_merged_procs += n;
	r->n_merges++;
	t->n_ended = 0;
}

/*
 * A drain while recording: look for ended processes, take the active set, name every copy
 * (sets taken meanwhile included). Snapshots are released as their sets are named, so memory
 * follows the live processes, not all the processes ever seen.
 */
static int drain_now(struct record *r)
{
	int err;

	/* requests still queued: their mappings name the samples drained now */
	ring_buffer__consume(r->rb);
	r->phase = "copying a set";
	err = take_set(r);
	if (!err)
		err = name_queue(r);
	r->phase = "merging ended processes";
	if (!err)
		merge_ended(r);
	r->phase = NULL;
	if (!err && r->sets.take_failed)
		err = -ENOMEM;
	set_queue_drained(&r->sets, monotonic_ns());
	return err;
}

/* A tick of the drain timer: drain when it is time or a set is filling up. */
static int drain_tick(struct record *r)
{
	uint64_t now = monotonic_ns();
	unsigned int pct;
	int fill = -1;

	/* the fill levels (system calls) only when the interval is not up */
	if (!set_queue_interval_up(&r->sets, now) && !bpf_session__fill_level(r->bpf, &pct))
		fill = (int)pct;
	return set_queue_tick(&r->sets, now, fill) ? drain_now(r) : 0;
}

/* Where cpuprof's own files go (spilled samples, inflated debug sections): $TMPDIR or /tmp. */
static const char *tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/* -v: the samples of ended processes kept on disk, or why they could not be. */
static void spill_summary(const struct record *r)
{
	const char *dir = tmp_dir();
	struct profile_spill ps;

	profile__spill_sizes(r->prof, &ps);
	if (ps.err)
		pr_info("the samples of ended processes stay in memory: cannot write them to %s "
			"(%s, %s; set TMPDIR to a writable directory, or raise ulimit -f)",
			dir, strerror(-ps.err), log_errname(-ps.err));
	if (ps.frame_err)
		pr_info("the frames are kept in memory: cannot write them to %s or read them "
			"back (%s, %s; set TMPDIR to a writable directory, or raise ulimit -f)",
			dir, strerror(-ps.frame_err), log_errname(-ps.frame_err));
	if (ps.records || ps.frames)
		pr_info("kept on disk until the output: %" PRIu64 " stacks of ended processes "
			"(%.1f MiB in %zu unnamed file%s), %" PRIu64 " frames (%.1f MiB)",
			ps.records, (double)ps.bytes / 1048576, ps.runs, ps.runs == 1 ? "" : "s",
			ps.frames, (double)ps.frame_bytes / 1048576);
}

/* -v: what the drains did, and the accounts, checked. */
static void drain_summary(const struct record *r)
{
	const struct set_queue *q = &r->sets;
	const struct proc_track *t = &r->track;

	pr_info("%" PRIu64 " samples counted in the kernel, %u sets drained (%u when a map was "
		"filling up); %" PRIu64 " snapshot%s of ended processes released; the profile "
		"holds %zu distinct stacks in memory, %zu frames, %zu mappings",
		r->stats[CP_STAT_RECORDED], q->n_taken, q->n_fill, t->n_released,
		t->n_released == 1 ? "" : "s", profile__n_samples(r->prof),
		profile__n_frames(r->prof), profile__n_mappings(r->prof));
	spill_summary(r);
	/* exact accounting, checked: every sample the kernel counted was copied out and named */
	if (!set_queue_adds_up(q, r->stats[CP_STAT_RECORDED]))
		pr_warn("the profile's samples do not add up: %" PRIu64 " counted in the kernel, "
			"%" PRIu64 " copied out of it, %" PRIu64 " named; please report it",
			r->stats[CP_STAT_RECORDED], q->n_copied, q->n_agg);
	if (r->n_merges)
		pr_info("%" PRIu64 " profile entries of %" PRIu64
			" ended processes merged per (comm, stack) in %u step%s",
			r->n_merged, r->n_merged_procs, r->n_merges, r->n_merges == 1 ? "" : "s");
	pr_info("%" PRIu64 " mappings found by the walker before they were read (%" PRIu64
		" of unknown files)",
		t->vma_added + t->vma_unknown, t->vma_unknown);
	if (t->read_failed)
		pr_debug("%" PRIu64 " reads of a process's mappings failed", t->read_failed);
}

/* After sampling has stopped: the copies not named yet, and both sets. */
static int drain(struct record *r)
{
	uint64_t t0 = monotonic_ns(), t1, t2;
	int err = 0;

	stop_rule_drain(&r->stop);
	/* requests still queued: name what is still alive */
	ring_buffer__consume(r->rb);
	for (int i = 0; !err && i < SET_QUEUE_LAST_TAKES; i++)
		err = take_set(r);
	t1 = monotonic_ns();
	if (!err)
		err = name_queue(r);
	t2 = monotonic_ns();
	pr_debug("the last drain: sets copied in %.3f s, named in %.3f s", (double)(t1 - t0) / 1e9,
		 (double)(t2 - t1) / 1e9);
	if (!err)
		err = bpf_session__read_stats(r->bpf, r->stats);
	if (!err)
		err = record_rt_read_stats(r);
	if (!err)
		drain_summary(r);
	return err;
}

/* ---- output and summary ------------------------------------------------------------------ */

static void fill_report(const struct record *r, struct report *rep)
{
	*rep = (struct report){
		.o = r->o,
		.prof = r->prof,
		.stats = r->stats,
		.agg = r->agg,
		.snapshot_failed = r->track.snapshot_failed,
		.refresh_failed = r->track.refresh_failed,
		.start_unix_ns = r->start_unix_ns,
		.recorded_s = ts_diff(&r->t0, &r->t_stop),
		.frequency = r->frequency,
		.um = r->um,
	};
}

/* ---- the session ------------------------------------------------------------------------- */

int record_block_signals(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	return sigprocmask(SIG_BLOCK, set, old) ? -errno : 0;
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

/* The perf maps not read: their processes' JIT frames have no names. */
static void perf_map_summary(const struct record *r)
{
	struct sym_perf_maps st;

	symbolizer__perf_maps(r->sym, &st);
	if (st.foreign || st.links)
		pr_warn("perf maps of %zu process%s not read: %zu owned by neither root nor the "
			"process's user, %zu symbolic link%s (as perf, cpuprof trusts no other "
			"map)",
			st.foreign + st.links, st.foreign + st.links == 1 ? "" : "es", st.foreign,
			st.links, st.links == 1 ? "" : "s");
	if (st.over_budget)
		pr_warn("perf maps of %zu process%s not read: over the %llu MiB held for perf maps "
			"at once",
			st.over_budget, st.over_budget == 1 ? "" : "es", CP_PERF_MAP_BUDGET >> 20);
}

/* The names the demangler's bounds left mangled (see demangle.h), in one line when any. */
static void demangle_summary(void)
{
	struct demangle_stats st;
	unsigned long long big, slow, n;

	demangle_stats(&st);
	big = st.over_mangled + st.over_len;
	slow = st.over_cpu + st.over_late_cpu;
	n = big + slow + st.refused;
	if (n)
		pr_warn("%llu name%s left mangled (over the demangler's bounds): %llu too long, "
			"%llu too slow, %llu not tried once its CPU budget of %d s was spent",
			n, n == 1 ? "" : "s", big, slow, st.refused,
			(DEMANGLE_BUDGET_MS + DEMANGLE_LATE_BUDGET_MS) / 1000);
}

/*
 * A stop signal came before sampling started: say so honestly, still write a complete (empty)
 * profile to every output, and exit as a process killed by that signal would: 128+N.
 */
static int stopped_before_sampling(struct record *r)
{
	struct report rep;

	pr_warn("stopped by %s before sampling started: the profile is empty",
		stop_rule_signal_name(r->stop.signal));
	profile__free(r->prof);
	r->prof = profile__new();
	if (!r->prof)
		return CP_EXIT_FAILURE;
	perf_map_summary(r);
	fill_report(r, &rep);
	if (report_write(&rep, r->outs, r->n_outs))
		return CP_EXIT_FAILURE;
	return stop_rule_exit_status(&r->stop);
}

/* What the profile kept on disk, back in memory for the writers; what failed, said. */
static int read_back(struct record *r)
{
	uint64_t t = monotonic_ns();
	struct profile_spill before, after;
	int err;

	profile__spill_sizes(r->prof, &before);
	err = profile__unspill(r->prof);
	profile__spill_sizes(r->prof, &after);
	pr_debug("%" PRIu64 " stacks and %" PRIu64 " frames read back from disk in %.3f s",
		 before.records, before.frames, (double)(monotonic_ns() - t) / 1e9);
	if (err && after.frames) {
		/* no frame can be written then: not even "[frame lost]" found memory */
		pr_err("cannot read back the frames kept on disk: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	if (err)
		pr_warn("cannot read back the samples of ended processes kept on disk (%s): the "
			"profile lacks some of them",
			strerror(-err));
	if (after.frame_err && after.frame_err != before.frame_err)
		pr_warn("cannot read back some frames kept on disk (%s): they are named "
			"\"[frame lost: ...]\"",
			strerror(-after.frame_err));
	/* complete: the indexes go before the writers (-EBUSY keeps them: nothing to say) */
	profile__seal(r->prof);
	return CP_EXIT_OK;
}

/*
 * After the last drain nothing more is named: the symbolizer (objects, symbol tables, indexes),
 * the process snapshots and the name cache go before the profile is read back and written, so
 * that the output phase reuses their memory (what the summary says of them is said before).
 */
static void release_naming(struct record *r)
{
	symbolizer__free(r->sym);
	r->sym = NULL;
	proc_snapshot__free(r->snap);
	r->snap = NULL;
	if (r->um)
		unwind_maps__set_go_tables(r->um, NULL);
	if (r->gotab) {
		size_t files, go;

		go_tables__counts(r->gotab, &files, &go);
		pr_debug(
			"Go function tables: %zu files looked at, %zu Go programs held at the end, "
			"%zu tables let go while recording (nobody used them for 8 drains)",
			files, go, r->go_trimmed);
	}
	/* it reads the snapshot and the Go tables */
	go_labels__free(r->golab);
	r->golab = NULL;
	go_tables__free(r->gotab);
	r->gotab = NULL;
	name_cache__free(r->names);
	r->names = NULL;
}

/*
 * -v: resident memory when sampling had ended and the last sets were named (rec: then, and
 * its peak since the start), and the peak of the output phase (read back and written) when
 * the peak could be reset in between (out_peak).
 */
static void memory_summary(const struct rss *rec, bool out_peak)
{
	struct rss now;

	if (!rec->peak_kib || rss_self(&now))
		return;
	if (out_peak)
		pr_info("memory: %.1f MiB when the last sets were named (peak %.1f MiB while "
			"recording), peak %.1f MiB while reading back and writing the output",
			(double)rec->now_kib / 1024, (double)rec->peak_kib / 1024,
			(double)now.peak_kib / 1024);
	else
		pr_info("memory: %.1f MiB when the last sets were named, peak %.1f MiB "
			"(the output's own peak is not known: /proc/self/clear_refs)",
			(double)rec->now_kib / 1024, (double)now.peak_kib / 1024);
}

/*
 * How many frames, and merged stacks of ended processes, a system-wide recording keeps in
 * memory before it moves them to disk: CP_SPILL_AFTER, or CPUPROF_SPILL_AFTER (the man page,
 * FILES: 0 moves everything, as the tests do).
 */
static size_t spill_after(void)
{
	const char *env = getenv("CPUPROF_SPILL_AFTER");
	char *end;
	unsigned long v;

	if (!env || !*env)
		return CP_SPILL_AFTER;
	errno = 0;
	v = strtoul(env, &end, 10);
	return errno || *end ? CP_SPILL_AFTER : (size_t)v;
}

/* Objects and symbols: the snapshots, the symbolizer, the kernel's names. */
static int setup_naming(struct record *r)
{
	int err;

	raise_fd_limit();
	r->snap = proc_snapshot__new("/proc");
	r->gotab = go_tables__new();
	r->sym = r->snap && r->gotab ? symbolizer__new(r->snap) : NULL;
	if (!r->sym) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	symbolizer__set_go_tables(r->sym, r->gotab);
	/* compressed debug sections inflated on disk, where spilled runs go, not in memory */
	if (symbolizer__set_unpack_dir(r->sym, tmp_dir())) {
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
	err = record_load_kernel_symbols(r);
	if (err)
		pr_warn("cannot read /proc/kallsyms: %s; kernel frames will be unnamed",
			strerror(-err));
	return CP_EXIT_OK;
}

static int go_set(void *ctx, uint32_t pid, const struct cp_go_proc *gp)
{
	return bpf_session__set_go_proc(ctx, pid, gp);
}

static int go_gen(void *ctx, uint32_t pid, uint32_t *gen)
{
	return bpf_session__proc_gen(ctx, pid, gen);
}

/* Goroutine labels (--no-go-labels: none): Go programs read before sampling, the command. */
static int setup_go_labels(struct record *r)
{
	const struct go_labels_ops ops = {r->bpf, go_set, go_gen};
	int err;

	if (!r->cfg.go_labels || !r->cfg.user_stacks)
		return 0;
	r->golab = go_labels__new(r->snap, r->gotab, &ops);
	if (!r->golab)
		return -ENOMEM;
	for (size_t i = 0; i < r->pre.procs; i++)
		(void)go_labels__loaded(r->golab, (uint32_t)r->pre.pids[i], 0);
	/* before it runs: its first samples carry their labels */
	err = r->wl ? go_labels__command(r->golab, (uint32_t)workload__pid(r->wl),
					 workload__path(r->wl))
		    : -ENOENT;
	if (!err)
		pr_debug("the command is a Go program: its goroutine labels are read");
	else if (err != -ENOENT && err != -ENOEXEC)
		pr_info("the command's Go tables could not be read (%s): its goroutine labels "
			"wait for its mappings to be read",
			strerror(-err));
	return 0;
}

/* The interpreters: their walkers, told the processes read before sampling (generation 0). */
static int setup_interpreters(struct record *r)
{
	if (record_rt_init(r)) {
		pr_err("cannot set up the interpreter walkers: %s", strerror(ENOMEM));
		return CP_EXIT_FAILURE;
	}
	/* -p's targets: their walkers loaded now, before sampling; system-wide: when found */
	for (size_t i = 0; r->rt && i < r->pre.procs; i++)
		if (r->o->n_pids)
			record_rt_new(r, (uint32_t)r->pre.pids[i], 0);
		else
			record_rt_later(r, (uint32_t)r->pre.pids[i], 0);
	if (setup_go_labels(r)) {
		pr_err("cannot set up the goroutine labels: %s", strerror(ENOMEM));
		return CP_EXIT_FAILURE;
	}
	return CP_EXIT_OK;
}

/* The requests from BPF, the profile and its names, the naming threads. */
static int setup_profile(struct record *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	track_init(r);
	r->rb = ring_buffer__new(bpf_session__events_fd(r->bpf), on_event, r, NULL);
	if (!r->rb) {
		pr_err("cannot set up the ring buffer: %s", strerror(errno));
		return CP_EXIT_FAILURE;
	}
	r->prof = profile__new();
	r->names = name_cache__new(CP_NAME_CACHE_MAX);
	r->jobs = r->o->jobs ? r->o->jobs : cpus < 1 ? 1 : cpus > 64 ? 64 : (unsigned int)cpus;
	/*
	 * system-wide: past the first CP_SPILL_AFTER frames and merged stacks (a minute or so of
	 * a busy machine), the frames and the samples of ended processes go to disk, so memory
	 * stays flat while a build runs thousands of programs (README "Memory")
	 */
	if (!r->prof || !r->names ||
	    (r->track.system_wide && profile__spill_to(r->prof, tmp_dir(), spill_after()))) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	return CP_EXIT_OK;
}

/*
 * The steps before sampling, in order. Each returns an exit status (CP_EXIT_OK: go on); after
 * those marked, a stop signal already received ends the recording there, with an empty
 * profile written.
 */
static const struct setup_step {
	int (*run)(struct record *r);
	bool stop_after;
} setup_steps[] = {
	{record_check_environment, false}, {record_open_outputs, true},	  {setup_naming, true},
	{record_prepare_command, true},	   {record_prepare_tables, true}, {record_load_bpf, true},
	{record_prepare_targets, false},   {setup_interpreters, true},	  {setup_profile, false},
};

static int run_setup(struct record *r)
{
	for (size_t i = 0; i < ARRAY_LEN(setup_steps); i++) {
		int rc = setup_steps[i].run(r);

		if (rc)
			return rc;
		if (setup_steps[i].stop_after && record_stop_pending(r))
			return stopped_before_sampling(r);
	}
	return CP_EXIT_OK;
}

/* Start sampling, the watch and the command. */
static int start_recording(struct record *r)
{
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	clock_gettime(CLOCK_REALTIME, &now);
	r->start_unix_ns = ts_ns(&now);
	rc = record_start_sampling(r);
	if (rc)
		return rc;
	/* -d counts from the start of sampling (t0) */
	stop_rule_start(&r->stop, ts_ns(&r->t0), r->o->duration_ms);
	start_watch(r);
	pr_info("sampling %d CPUs at %u Hz", bpf_session__ncpus(r->bpf), r->frequency);
	return start_command(r);
}

/* What the naming could not do, said once each. */
static void naming_warnings(const struct record *r)
{
	const char *changed;
	size_t n_changed = symbolizer__changed_objects(r->sym, &changed);

	if (r->agg.hurried)
		pr_warn("stopped naming early (a second %s): %" PRIu64 " addresses named from "
			"symbol tables only, without inlined frames or lines",
			stop_rule_signal_name(r->stop.signal), r->agg.hurried);
	if (symbolizer__debuginfod_error(r->sym))
		pr_warn("--debuginfod: the servers of DEBUGINFOD_URLS could not be asked (%s): "
			"objects without local debug files have no lines or inlined frames",
			strerror(-symbolizer__debuginfod_error(r->sym)));
	if (symbolizer__zstd_object(r->sym))
		pr_warn("%s has zstd-compressed debug sections, which libdw %s cannot read: its "
			"frames have no source lines or inlined functions (recompress them with "
			"objcopy --compress-debug-sections=zlib)",
			symbolizer__zstd_object(r->sym), dwfl_version(NULL));
	if (symbolizer__damaged_object(r->sym))
		pr_warn("%s has damaged debug sections (headers that do not match their data): "
			"some of its frames have no source lines or inlined functions",
			symbolizer__damaged_object(r->sym));
	if (n_changed)
		pr_warn("%zu object%s shrank while being read (truncated by %s owner), the first "
			"%s: %s frames are not named (object+offset)",
			n_changed, n_changed == 1 ? "" : "s", n_changed == 1 ? "its" : "their",
			changed, n_changed == 1 ? "its" : "their");
	perf_map_summary(r);
	demangle_summary();
}

/*
 * The output phase: the warnings, the naming's memory released, what is on disk back, every -o
 * written, the summary.
 */
static int write_outputs(struct record *r)
{
	struct timespec t_named, t_written;
	struct rss rec_mem = {0};
	bool out_peak;
	double cpu_named;
	struct report rep;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t_named);
	cpu_named = cpu_seconds();
	naming_warnings(r);
	rss_self(&rec_mem);
	release_naming(r);
	/*
	 * -v only: the mark set back, the output's own peak is told apart (memory_summary, and
	 * report's peak line takes the larger of both). Without -v the kernel's mark stays the
	 * whole run's: what /usr/bin/time or a cgroup reports is the true peak.
	 */
	out_peak = log_get_level() >= LOG_INFO && !rss_reset_peak();
	rc = read_back(r);
	if (rc)
		return rc;
	fill_report(r, &rep);
	rep.rec_peak_kib = rec_mem.peak_kib;
	if (report_write(&rep, r->outs, r->n_outs))
		return CP_EXIT_FAILURE;
	clock_gettime(CLOCK_MONOTONIC, &t_written);
	memory_summary(&rec_mem, out_peak);
	/* -v: how long the user waited for the file after sampling stopped, and for what */
	pr_info("after sampling stopped: the last sets named in %.3f s (CPU %.3f s), the output "
		"written in %.3f s (CPU %.3f s)",
		ts_diff(&r->t_stop, &t_named), cpu_named - r->cpu_stop,
		ts_diff(&t_named, &t_written), cpu_seconds() - cpu_named);
	report_summary(&rep, r->n_outs);
	record_rt_summary(r);
	return CP_EXIT_OK;
}

static int record_session(struct record *r)
{
	int rc = run_setup(r), err;

	if (!rc)
		rc = start_recording(r);
	if (rc)
		return rc;
	err = event_loop(r);
	stop_sampling(r);
	if (err)
		pr_err("recording stopped early: %s; writing what was collected", strerror(-err));
	err = drain(r);
	if (err) {
		pr_err("cannot read the samples from the kernel: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	return write_outputs(r);
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* Signals blocked, read from a signalfd: none is lost before the loop reads them. */
static int block_signals(struct record *r, sigset_t *old)
{
	sigset_t set;
	int err = record_block_signals(&set, old);

	if (err)
		return err;
	r->fd.sig = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->fd.sig < 0 ? -errno : 0;
}

static void close_fds(struct record *r)
{
	/* a second Ctrl-C during naming and writing must not kill us once unblocked */
	if (r->fd.sig >= 0) {
		struct signalfd_siginfo si;

		while (read(r->fd.sig, &si, sizeof(si)) == sizeof(si))
			;
	}
	close_fd(r->fd.sig);
	close_fd(r->fd.ep);
	close_fd(r->fd.dur);
	close_fd(r->fd.prog);
	close_fd(r->fd.drain);
	close_fd(r->fd.py);
	for (size_t i = 0; r->pidfds && i < r->o->n_pids; i++)
		close_fd(r->pidfds[i]);
}

static void record_free(struct record *r)
{
	for (size_t i = 0; i < r->n_outs; i++)
		out_file__abort(r->outs[i]);
	free(r->outs);
	watch_free(&r->watch);
	ring_buffer__free(r->rb);
	unwind_maps__free(r->um);
	prebuild_result_free(&r->pre);
	bpf_session__free(r->bpf);
	workload__free(r->wl);
	symbolizer__free(r->sym);
	proc_snapshot__free(r->snap);
	profile__free(r->prof);
	record_rt_free(r);
	go_labels__free(r->golab);
	go_tables__free(r->gotab);
	name_cache__free(r->names);
	proc_track_free(&r->track);
	set_queue_free(&r->sets, free_set);
	close_fds(r);
	free(r->pidfds);
	free(r->pids);
	if (r->comm_re_set)
		regfree(&r->comm_re);
}

int record_run(const struct cp_options *opts)
{
	struct record r = {
		.o = opts,
		.fd = {.sig = -1, .ep = -1, .dur = -1, .prog = -1, .drain = -1, .py = -1},
	};
	sigset_t old;
	int rc;

	watch_init(&r.watch);
	r.progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_WARN;
	/*
	 * The naming threads are short-lived: without a cap each new one may get an arena of its
	 * own, whose freed memory stays with it (40 MB each in a soak).
	 */
	mallopt(M_ARENA_MAX, 2);
	/*
	 * Big blocks (tables that grow, copies of the kernel's sets, indexes) straight from
	 * mmap, so they go back when freed: glibc's threshold otherwise rises to 32 MB after such
	 * frees and the heap keeps them, half of it free in a soak (193 MB, 96 MB in use).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
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
	record_free(&r);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
