// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include "profile/aggregate.h"
#include "session/bpf_loader.h"
#include "util/clock.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/rss.h"
#include "output/output.h"
#include "profile/profile.h"
#include "session/prebuild.h"
#include "proc/proc_snapshot.h"
#include "proc/proc_status.h"
#include "session/record.h"
#include "session/record_int.h"
#include "session/record_rt.h"
#include "session/report.h"
#include "symbol/demangle.h"
#include "symbol/perfmap.h"
#include "symbol/symbolize.h"
#include "unwind/unwind_maps.h"
#include "session/workload.h"

/* Tables for the mappings of (pid, gen) just read; until then, frame pointers. */
static void load_unwind(struct record *r, uint32_t pid, uint32_t gen)
{
	int err;

	if (!r->um)
		return;
	err = unwind_maps__add_proc(r->um, r->snap, pid, gen);
	if (err)
		pr_debug("cannot load the unwind tables of pid %u: %s", pid, strerror(-err));
}

static bool comm_matches(struct record *r, const char *comm)
{
	return regexec(&r->comm_re, comm, 0, NULL, 0) == 0;
}

static bool consume_interrupted(struct record *r);
static int drain_tick(struct record *r);

/* A request from BPF: the first sample of (pid, gen). */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct cp_event *ev = data;
	struct record *r = ctx;
	char comm[CP_COMM_LEN + 1];
	int err;

	if (size < sizeof(*ev))
		return 0;
	if (consume_interrupted(r))
		return -EINTR; /* ends ring_buffer__consume; what is left stays queued */
	if (ev->type == CP_EV_MAPS_CHANGED) {
		/* clear first: code mapped while we read asks again */
		bpf_session__refresh_taken(r->bpf, ev->pid);
		err = proc_snapshot__refresh(r->snap, ev->pid, ev->gen);
		if (err == -ESRCH)
			r->refresh_failed++;
		else if (err)
			pr_debug("cannot read the mappings of pid %u: %s", ev->pid, strerror(-err));
		else
			load_unwind(r, ev->pid, ev->gen);
		if (!err) {
			record_rt_new(r, ev->pid, ev->gen);
		}
		return 0;
	}
	if (ev->type == CP_EV_MAPPING && size >= sizeof(struct cp_map_event)) {
		const struct cp_map_event *me = data;
		struct ps_vma v = {
			.start = me->start,
			.end = me->end,
			.offset = me->pgoff * 4096,
			/* the kernel's MKDEV encoding, as st_dev has it */
			.dev = makedev(me->dev >> CP_KDEV_MINOR_BITS,
				       me->dev & ((1u << CP_KDEV_MINOR_BITS) - 1)),
			.ino = me->ino,
		};

		/* a file the walker met before the mappings were read: name its frames */
		err = proc_snapshot__add_vma(r->snap, ev->pid, ev->gen, &v);
		r->vma_added += err == 0;
		r->vma_unknown += err == -ENOENT;
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
	err = proc_snapshot__refresh(r->snap, ev->pid, ev->gen);
	if (err == -ESRCH)
		r->snapshot_failed++;
	else if (err)
		pr_debug("cannot read the mappings of pid %u: %s", ev->pid, strerror(-err));
	else
		load_unwind(r, ev->pid, ev->gen);
	if (!err) {
		record_rt_new(r, ev->pid, ev->gen);
	}
	return 0;
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

/* Seconds from a to b. */
static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static double elapsed_s(const struct record *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ts_diff(&r->t0, &now);
}

/* Length of the recording: from the start of sampling to its stop. */
static double recorded_s(const struct record *r)
{
	return ts_diff(&r->t0, &r->t_stop);
}

static void show_progress(struct record *r)
{
	uint64_t st[CP_STAT_MAX];

	if (bpf_session__read_stats(r->bpf, st))
		return;
	fprintf(stderr, "\rcpuprof: recording %.0f s, %" PRIu64 " sample%s\033[K", elapsed_s(r),
		st[CP_STAT_RECORDED], st[CP_STAT_RECORDED] == 1 ? "" : "s");
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
			r->n_stop_signals++;
		}
	}
}

bool record_stop_pending(struct record *r)
{
	handle_signal(r);
	return r->stop == STOP_SIGNAL;
}

/*
 * Between requests from BPF: whether to stop consuming them now. A flood of new processes
 * (an exec storm) must not keep the loop from a Ctrl-C or from the end of -d. While
 * recording, any stop does; while draining, only a second stop signal.
 */
static bool consume_interrupted(struct record *r)
{
	uint64_t now = monotonic_ns();

	if (now < r->next_check_ns)
		return false;
	r->next_check_ns = now + 50 * 1000000ull;
	handle_signal(r);
	if (r->draining)
		return r->n_stop_signals >= 2;
	/* -d counts from the start of sampling (t0) */
	if (r->o->duration_ms && r->stop == STOP_NONE &&
	    now >= (uint64_t)r->t0.tv_sec * 1000000000ull + (uint64_t)r->t0.tv_nsec +
			    r->o->duration_ms * 1000000ull)
		r->stop = STOP_DURATION;
	return r->stop != STOP_NONE;
}

/* aggregate_opts.hurry: a stop signal came after the one that ended sampling. */
static bool naming_hurried(void *ctx)
{
	struct record *r = ctx;

	handle_signal(r);
	return r->n_stop_signals >= 2;
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
	/* fill levels are looked at every 200 ms at most */
	r->next_drain_ns = monotonic_ns() + r->o->drain_ms * 1000000ull;
	r->drainfd = arm_timer(r->o->drain_ms < 200 ? r->o->drain_ms : 200,
			       r->o->drain_ms < 200 ? r->o->drain_ms : 200);
	if (r->drainfd < 0 || add_fd(r->epfd, r->drainfd))
		return r->drainfd < 0 ? r->drainfd : -errno;
	if (r->progress) {
		r->progfd = arm_timer(1000, 1000);
		if (r->progfd < 0 || add_fd(r->epfd, r->progfd))
			return r->progfd < 0 ? r->progfd : -errno;
	}
	if (r->rt) {
		/*
		 * --python, --ruby: interpreters not ready at exec (tried again at each tick: a
		 * 0.1 s script is over before a slower one finds it), stacks to name while they
		 * live (every RT_NAME_TICKS-th tick: record_rt.c)
		 */
		r->pyfd = arm_timer(RT_TICK_MS, RT_TICK_MS);
		if (r->pyfd < 0 || add_fd(r->epfd, r->pyfd))
			return r->pyfd < 0 ? r->pyfd : -errno;
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
			} else if (fd == r->drainfd) {
				int err = 0;

				if (read(fd, &ticks, sizeof(ticks)) > 0)
					err = drain_tick(r);
				if (err)
					return err;
			} else if (fd == r->pyfd) {
				if (read(fd, &ticks, sizeof(ticks)) > 0)
					record_rt_timer(r);
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

/*
 * The kernel aggregates in two sets of maps (bpf/shared.h): while samples go to one, the other
 * is copied out and cleared (take_set), and the copies are named into r->prof (name_queue).
 * While recording this runs every --drain-interval and whenever a set is filling up; at the
 * end both sets are taken and every copy named.
 */

static int take_set(struct record *r);
static int note_gone(uint32_t pid, uint32_t gen, void *ctx);
static void release_gone(struct record *r);

/* ---- the watch ---------------------------------------------------------------------------- */

static void *watch_main(void *arg)
{
	struct record *r = arg;
	struct pollfd p[2] = {{.fd = r->watch.quitfd, .events = POLLIN},
			      {.fd = r->watch.sigfd, .events = POLLIN}};

	for (;;) {
		int timeout = -1, n;

		if (r->watch.deadline_ns) {
			uint64_t now = monotonic_ns();

			if (now >= r->watch.deadline_ns)
				break;
			timeout = (int)((r->watch.deadline_ns - now + 999999) / 1000000);
		}
		n = poll(p, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return NULL;
		if (p[1].revents)
			break; /* a stop signal is pending: this thread reads it when it can */
	}
	bpf_session__pause_sampling(r->bpf);
	clock_gettime(CLOCK_MONOTONIC, &r->watch.t_pause);
	atomic_store(&r->watch.paused, true);
	return NULL;
}

/* Start the watch once sampling runs; without it (no thread) the event loop alone stops. */
static void watch_start(struct record *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	r->watch.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->watch.quitfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->o->duration_ms)
		r->watch.deadline_ns = (uint64_t)r->t0.tv_sec * 1000000000ull +
				       (uint64_t)r->t0.tv_nsec + r->o->duration_ms * 1000000ull;
	if (r->watch.sigfd < 0 || r->watch.quitfd < 0 ||
	    pthread_create(&r->watch.thread, NULL, watch_main, r)) {
		pr_debug("no watch thread: -d and stop signals wait for the naming steps");
		return;
	}
	r->watch.running = true;
}

/* End the watch (before the sampling events are closed). */
static void watch_end(struct record *r)
{
	uint64_t one = 1;

	if (r->watch.running) {
		if (write(r->watch.quitfd, &one, sizeof(one)) != sizeof(one))
			pr_debug("cannot end the watch: %s", strerror(errno));
		pthread_join(r->watch.thread, NULL);
		r->watch.running = false;
	}
}

/* Stop the sampling events now (once): the recording ends here, naming may go on. */
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

static void stop_sampling(struct record *r)
{
	if (r->sampling_stopped)
		return;
	r->cpu_stop = cpu_seconds();
	stop_priority();
	watch_end(r);
	bpf_session__stop_sampling(r->bpf);
	/* the watch may have stopped the events earlier: the recording ended then */
	if (atomic_load(&r->watch.paused)) {
		struct timespec now;

		r->t_stop = r->watch.t_pause;
		clock_gettime(CLOCK_MONOTONIC, &now);
		pr_debug("the stop was seen %.3f s after sampling paused, while %s",
			 ts_diff(&r->t_stop, &now), r->phase ? r->phase : "waiting");
	} else {
		clock_gettime(CLOCK_MONOTONIC, &r->t_stop);
	}
	r->sampling_stopped = true;
}

/*
 * aggregate_opts.hurry while recording, asked every 64 names: answer the requests from BPF,
 * take the active set when it is filling up (naming may be slow on a busy machine), and stop
 * sampling as soon as a stop comes (-d holds, Ctrl-C is prompt).
 */
static bool drain_requests(void *ctx)
{
	struct record *r = ctx;
	unsigned int pct;

	/* processes that start while we name must be read before they are gone */
	ring_buffer__consume(r->rb);
	if (r->sampling_stopped)
		return false;
	if (consume_interrupted(r)) {
		stop_sampling(r);
		return false;
	}
	/* asked every few names: the fill levels (system calls) every 50 ms */
	if (monotonic_ns() < r->next_fill_ns)
		return false;
	r->next_fill_ns = monotonic_ns() + 50 * 1000000ull;
	if (!bpf_session__fill_level(r->bpf, &pct) && pct >= CP_DRAIN_FILL_PCT) {
		if (take_set(r))
			r->take_failed = true; /* the event loop says so */
		r->n_fill_drains++;
	}
	return false;
}

static void aggregate_opts_of(struct record *r, struct aggregate_opts *ao)
{
	*ao = (struct aggregate_opts){
		.kernel_only = r->o->kernel_only,
		.no_kernel = r->o->no_kernel,
		.comm_re = r->comm_re_set ? &r->comm_re : NULL,
		.max_depth = r->max_depth,
		.hurry = r->draining ? naming_hurried : drain_requests,
		.hurry_ctx = r,
		.rt_proc = r->rt ? record_rt_proc : NULL,
		.rt_name = record_rt_name,
		.rt_ctx = r,
		.cache = r->names,
		.jobs = r->jobs,
	};
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

	/*
	 * Ended processes: their snapshots go once the set after this one is named. Looked for
	 * again only when those found before are released, so none is listed twice.
	 */
	if (!r->draining && !r->n_gone) {
		err = proc_snapshot__for_each_snapshot(r->snap, note_gone, r);
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
	if (array_grow((void **)&r->queue, &r->cap_queue, r->n_queue + 1, sizeof(*r->queue))) {
		bpf_copy__free(c);
		return -ENOMEM;
	}
	r->queue[r->n_queue++] = c;
	r->n_drains++;
	r->n_copied += bpf_copy__total(c);
	/*
	 * Once sampling has stopped, the last two takes copy each set once and nothing reads
	 * them again: emptying them (a system call per key) would only keep the user waiting.
	 */
	return r->draining ? 0 : bpf_session__clear_slot(r->bpf, old);
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

/* Name the queued copies into r->prof, oldest first (more may join meanwhile). */
static int name_queue(struct record *r)
{
	struct aggregate_stats st;
	struct aggregate_opts ao;
	struct drain d;
	int err = 0;

	while (!err && r->n_queue) {
		struct bpf_copy *c = r->queue[0];
		uint64_t before;

		r->phase = "naming";
		aggregate_opts_of(r, &ao);
		bpf_copy__drain(c, &d);
		before = profile__total(r->prof);
		err = aggregate_counts(&d, r->sym, &ao, r->prof, &st);
		r->n_agg += profile__total(r->prof) - before + st.comm_filtered;
		aggregate_stats_add(&r->agg, &st);
		bpf_copy__free(c);
		memmove(r->queue, r->queue + 1, --r->n_queue * sizeof(*r->queue));
		r->n_named++;
		if (!r->draining)
			release_gone(r);
		/* the next copy reads the perf maps (JIT symbols) again: they may have grown */
		symbolizer__forget_perf_maps(r->sym);
	}
	/*
	 * Every address so far is named, its names kept in r->names: the indexes of objects
	 * this drain did not use go (memory follows what drains name, not every object seen;
	 * new addresses of an object index it again). Not once sampling has stopped: the
	 * process is about to end, and freeing took 20-50 ms of the user's wait after Ctrl-C
	 * (peak RSS of bench/stop.sh unchanged, the output is made of little memory).
	 */
	if (!r->draining) {
		r->phase = "dropping indexes";
		symbolizer__drop_indexes(r->sym, false);
	}
	if (log_get_level() >= LOG_DEBUG) {
		struct mallinfo2 mi = mallinfo2();
		size_t objs, idx;
		char rss[96];
		struct profile_spill ps;
		size_t sym_strs, sym_bytes;
		struct profile_mem pm;

		symbolizer__sizes(r->sym, &objs, &idx, &sym_strs, &sym_bytes);
		profile__spill_sizes(r->prof, &ps);
		profile__mem(r->prof, &pm);
		pr_debug("after %u drains: heap in use %.1f MiB (%.1f MiB of it mmapped, %.1f MiB "
			 "free in arenas); RSS %s; the profile: %zu distinct stacks (%.1f MiB), "
			 "%zu frames (%.1f MiB; %" PRIu64 " on disk, %.1f MiB), %zu strings "
			 "(%.1f MiB), %" PRIu64
			 " stacks on disk (%.1f MiB, %zu runs); %zu addresses named in the cache "
			 "(%.1f MiB); %zu objects, %zu shared indexes, %zu strings (%.1f MiB)",
			 r->n_drains, (double)(mi.uordblks + mi.hblkhd) / 1048576,
			 (double)mi.hblkhd / 1048576, (double)mi.fordblks / 1048576,
			 rss_split(rss, sizeof(rss)), profile__n_samples(r->prof),
			 (double)pm.samples / 1048576, profile__n_frames(r->prof),
			 (double)pm.frames / 1048576, ps.frames, (double)ps.frame_bytes / 1048576,
			 pm.n_strings, (double)pm.strings / 1048576, ps.records,
			 (double)ps.bytes / 1048576, ps.runs, name_cache__n(r->names),
			 (double)name_cache__bytes(r->names) / 1048576, objs, idx, sym_strs,
			 (double)sym_bytes / 1048576);
	}
	/*
	 * and the memory goes back (the naming threads' arenas too), every 30 s at most; not
	 * once sampling has stopped: the output reuses it, and the user waits (a sixth of the
	 * time from Ctrl-C to the file in a self-profile went to its madvise calls)
	 */
	if (!r->draining && monotonic_ns() >= r->next_trim_ns) {
		r->phase = "trimming the heap";
		malloc_trim(0);
		r->next_trim_ns = monotonic_ns() + 30 * 1000000000ull;
	}
	return err;
}

/*
 * A snapshot whose process has exited, or whose generation exec or pid reuse has ended: no
 * sample of it can go to a set taken after the next one (the next may still get one from an
 * exit in progress, for microseconds). So it is released once that set is named.
 */
static int note_gone(uint32_t pid, uint32_t gen, void *ctx)
{
	struct record *r = ctx;
	uint32_t now;

	if (!(bpf_session__proc_gen(r->bpf, pid, &now) == 0 && now != gen) &&
	    !(kill((pid_t)pid, 0) && errno == ESRCH))
		return 0;
	if (array_grow((void **)&r->gone, &r->cap_gone, r->n_gone + 1, sizeof(*r->gone)))
		return -ENOMEM;
	r->gone[r->n_gone++] = (struct gone_snap){(uint64_t)pid << 32 | gen, r->n_drains + 2};
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define FORGET_AT 256

/* Release the snapshots of ended processes whose every set is named (oldest first). */
static void release_gone(struct record *r)
{
	size_t i;

	for (i = 0; i < r->n_gone && r->gone[i].named <= r->n_named; i++) {
		uint32_t pid = (uint32_t)(r->gone[i].key >> 32);

		if (!proc_snapshot__release(r->snap, pid, (uint32_t)r->gone[i].key))
			r->n_released++;
		if (!array_grow((void **)&r->forget, &r->cap_forget, r->n_forget + 1,
				sizeof(*r->forget)))
			r->forget[r->n_forget++] = r->gone[i].key;
		/* system-wide: its samples may go to no process (merge_ended) */
		if (!r->o->command && !r->o->n_pids &&
		    !array_grow((void **)&r->ended, &r->cap_ended, r->n_ended + 1,
				sizeof(*r->ended)))
			r->ended[r->n_ended++] = pid;
	}
	/* r->gone is NULL until a process has ended: memmove must not see it */
	if (i)
		memmove(r->gone, r->gone + i, (r->n_gone - i) * sizeof(*r->gone));
	r->n_gone -= i;
	/*
	 * and the names of their Python and Ruby frames, 256 processes at a time (a pass over
	 * every name kept): a 100 s recording of a busy machine held 11 MB of them
	 */
	if (r->n_forget >= FORGET_AT) {
		qsort(r->forget, r->n_forget, sizeof(*r->forget), cmp_u64);
		record_rt_forget(r, r->forget, r->n_forget);
		r->n_forget = 0;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool pid_ended(void *ctx, uint32_t pid)
{
	const struct record *r = ctx;

	return bsearch(&pid, r->ended, r->n_ended, sizeof(*r->ended), cmp_u32) != NULL;
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
	size_t n = 0, merged = 0;

	if (r->n_ended <= ENDED_MERGE_AT)
		return;
	for (size_t i = 0; i < r->n_ended; i++)
		if (kill((pid_t)r->ended[i], 0) && errno == ESRCH)
			r->ended[n++] = r->ended[i];
	r->n_ended = n;
	qsort(r->ended, n, sizeof(*r->ended), cmp_u32);
	if (profile__merge_ended(r->prof, pid_ended, r, &merged)) {
		pr_debug("cannot merge the samples of ended processes: out of memory");
		return;
	}
	r->n_merged += merged;
	r->n_merged_procs += n;
	r->n_merges++;
	r->n_ended = 0;
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
	if (!err && r->take_failed)
		err = -ENOMEM;
	r->next_drain_ns = monotonic_ns() + r->o->drain_ms * 1000000ull;
	return err;
}

/* A tick of the drain timer: drain when it is time or a set is filling up. */
static int drain_tick(struct record *r)
{
	unsigned int pct = 0;
	bool due = monotonic_ns() >= r->next_drain_ns;

	if (!due && bpf_session__fill_level(r->bpf, &pct))
		pct = 0;
	if (!due && pct < CP_DRAIN_FILL_PCT)
		return 0;
	r->n_fill_drains += !due;
	return drain_now(r);
}

/* -v: the samples of ended processes kept on disk, or why they could not be. */
static void spill_summary(const struct record *r)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
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

/* After sampling has stopped: the copies not named yet, and both sets. */
static int drain(struct record *r)
{
	uint64_t t0 = monotonic_ns(), t1, t2;
	int err;

	r->draining = true;
	/* requests still queued: name what is still alive */
	ring_buffer__consume(r->rb);
	err = take_set(r);
	if (!err)
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
		pr_info("%" PRIu64 " samples counted in the kernel, %u sets drained (%u when a map "
			"was filling "
			"up); %" PRIu64
			" snapshot%s of ended processes released; the profile holds "
			"%zu distinct stacks in memory, %zu frames, %zu mappings",
			r->stats[CP_STAT_RECORDED], r->n_drains, r->n_fill_drains, r->n_released,
			r->n_released == 1 ? "" : "s", profile__n_samples(r->prof),
			profile__n_frames(r->prof), profile__n_mappings(r->prof));
	if (!err)
		spill_summary(r);
	/* exact accounting, checked: every sample the kernel counted was copied out and named */
	if (!err && (r->stats[CP_STAT_RECORDED] != r->n_copied || r->n_copied != r->n_agg))
		pr_warn("the profile's samples do not add up: %" PRIu64 " counted in the kernel, "
			"%" PRIu64 " copied out of it, %" PRIu64 " named; please report it",
			r->stats[CP_STAT_RECORDED], r->n_copied, r->n_agg);
	if (!err && r->n_merges)
		pr_info("%" PRIu64 " profile entries of %" PRIu64
			" ended processes merged per (comm, stack) in %u step%s",
			r->n_merged, r->n_merged_procs, r->n_merges, r->n_merges == 1 ? "" : "s");
	if (!err)
		pr_info("%" PRIu64 " mappings found by the walker before they were read (%" PRIu64
			" of unknown files)",
			r->vma_added + r->vma_unknown, r->vma_unknown);
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
		.snapshot_failed = r->snapshot_failed,
		.refresh_failed = r->refresh_failed,
		.start_unix_ns = r->start_unix_ns,
		.recorded_s = recorded_s(r),
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

static int block_signals(struct record *r, sigset_t *old)
{
	sigset_t set;
	int err = record_block_signals(&set, old);

	if (err)
		return err;
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

static const char *stop_signal_name(int sig)
{
	return sig == SIGINT	? "SIGINT"
	       : sig == SIGTERM ? "SIGTERM"
	       : sig == SIGHUP	? "SIGHUP"
				: "a signal";
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
		stop_signal_name(r->stop_signal));
	profile__free(r->prof);
	r->prof = profile__new();
	if (!r->prof)
		return CP_EXIT_FAILURE;
	perf_map_summary(r);
	fill_report(r, &rep);
	if (report_write(&rep, r->outs, r->n_outs))
		return CP_EXIT_FAILURE;
	return 128 + r->stop_signal;
}

/* Between the steps before sampling: a stop signal ends the recording there. */
#define STOP_POINT(r)                                      \
	do {                                               \
		if (record_stop_pending(r))                \
			return stopped_before_sampling(r); \
	} while (0)

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

static int record_session(struct record *r)
{
	struct timespec now, t_named, t_written;
	struct rss rec_mem = {0};
	bool out_peak;
	double cpu_named;
	struct report rep;
	const char *changed;
	size_t n_changed;
	int rc, err;

	rc = record_check_environment(r);
	if (rc)
		return rc;
	rc = record_open_outputs(r);
	if (rc)
		return rc;
	STOP_POINT(r);
	raise_fd_limit();
	r->snap = proc_snapshot__new("/proc");
	r->sym = r->snap ? symbolizer__new(r->snap) : NULL;
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
	err = record_load_kernel_symbols(r);
	if (err)
		pr_warn("cannot read /proc/kallsyms: %s; kernel frames will be unnamed",
			strerror(-err));
	STOP_POINT(r);
	rc = record_prepare_command(r);
	if (rc)
		return rc;
	STOP_POINT(r);
	rc = record_prepare_tables(r);
	if (rc)
		return rc;
	STOP_POINT(r);
	rc = record_load_bpf(r);
	if (rc)
		return rc;
	STOP_POINT(r);
	rc = record_prepare_targets(r);
	if (rc)
		return rc;
	if (record_rt_init(r)) {
		pr_err("cannot set up the interpreter walkers: %s", strerror(ENOMEM));
		return CP_EXIT_FAILURE;
	}
	/* the processes read before sampling, generation 0 */
	for (size_t i = 0; r->rt && i < r->pre.procs; i++)
		record_rt_later(r, (uint32_t)r->pre.pids[i], 0);
	STOP_POINT(r);
	r->rb = ring_buffer__new(bpf_session__events_fd(r->bpf), on_event, r, NULL);
	if (!r->rb) {
		pr_err("cannot set up the ring buffer: %s", strerror(errno));
		return CP_EXIT_FAILURE;
	}
	r->prof = profile__new();
	r->names = name_cache__new(CP_NAME_CACHE_MAX);
	if (r->o->jobs) {
		r->jobs = r->o->jobs;
	} else {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		r->jobs = cpus < 1 ? 1 : cpus > 64 ? 64 : (unsigned int)cpus;
	}
	/*
	 * system-wide: past the first CP_SPILL_AFTER frames and merged stacks (a minute or so of
	 * a busy machine), the frames and the samples of ended processes go to disk, so memory
	 * stays flat while a build runs thousands of programs (README "Memory")
	 */
	if (!r->prof || !r->names ||
	    (!r->o->command && !r->o->n_pids &&
	     profile__spill_to(r->prof, getenv("TMPDIR"), spill_after()))) {
		pr_err("out of memory");
		return CP_EXIT_FAILURE;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	clock_gettime(CLOCK_REALTIME, &now);
	r->start_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	rc = record_start_sampling(r);
	if (rc)
		return rc;
	watch_start(r);
	pr_info("sampling %d CPUs at %u Hz", bpf_session__ncpus(r->bpf), r->frequency);
	rc = start_command(r);
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
	clock_gettime(CLOCK_MONOTONIC, &t_named);
	cpu_named = cpu_seconds();
	if (r->agg.hurried)
		pr_warn("stopped naming early (a second %s): %" PRIu64 " addresses named from "
			"symbol tables only, without inlined frames or lines",
			stop_signal_name(r->stop_signal), r->agg.hurried);
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
	n_changed = symbolizer__changed_objects(r->sym, &changed);
	if (n_changed)
		pr_warn("%zu object%s shrank while being read (truncated by %s owner), the first "
			"%s: "
			"%s frames are not named (object+offset)",
			n_changed, n_changed == 1 ? "" : "s", n_changed == 1 ? "its" : "their",
			changed, n_changed == 1 ? "its" : "their");
	perf_map_summary(r);
	demangle_summary();
	rss_self(&rec_mem);
	release_naming(r);
	out_peak = !rss_reset_peak();
	rc = read_back(r);
	if (rc)
		return rc;
	fill_report(r, &rep);
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
		.drainfd = -1,
		.pyfd = -1,
		.watch = {.quitfd = -1, .sigfd = -1},
	};
	sigset_t old;
	int rc;

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
	for (size_t i = 0; i < r.n_outs; i++)
		out_file__abort(r.outs[i]);
	free(r.outs);
	watch_end(&r);
	close_fd(r.watch.quitfd);
	close_fd(r.watch.sigfd);
	ring_buffer__free(r.rb);
	unwind_maps__free(r.um);
	prebuild_result_free(&r.pre);
	bpf_session__free(r.bpf);
	workload__free(r.wl);
	symbolizer__free(r.sym);
	proc_snapshot__free(r.snap);
	profile__free(r.prof);
	record_rt_free(&r);
	name_cache__free(r.names);
	for (size_t i = 0; r.pidfds && i < opts->n_pids; i++)
		close_fd(r.pidfds[i]);
	free(r.pidfds);
	free(r.ended);
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
	close_fd(r.drainfd);
	free(r.gone);
	free(r.forget);
	for (size_t i = 0; i < r.n_queue; i++)
		bpf_copy__free(r.queue[i]);
	free(r.queue);
	close_fd(r.pyfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
