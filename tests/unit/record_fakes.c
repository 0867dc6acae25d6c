// SPDX-License-Identifier: GPL-2.0
/*
 * Fakes of what the session (session/record.c) calls, for test_record.c: see record_fakes.h.
 * Each fake does the least the session needs (an object to hold, a count to give) and writes
 * the calls whose order matters to fw.trace.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include "record_fakes.h"
#include "session/record_int.h"
#include "session/record_rt.h"
#include "symbol/demangle.h"
#include "util/rss.h"
#include "proc/proc_status.h"

struct fake_world fw;

static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
	va_list ap;

	if (fw.n_trace >= FAKE_TRACE_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(fw.trace[fw.n_trace++], sizeof(fw.trace[0]), fmt, ap);
	va_end(ap);
}

void fake_reset(void)
{
	memset(&fw, 0, sizeof(fw));
	fw.now_ns = 1000 * FAKE_MS;
	fw.tick_ns = 200 * FAKE_MS;
	fw.n_outs = 2;
	fw.copy_fail_at = -1;
	fw.dur_fd = fw.drain_fd = fw.rb_fd = -1;
	for (size_t i = 0; i < FAKE_COPIES; i++) {
		fw.copy_total[i] = 10 + i;
		fw.copy_steps[i] = 1;
	}
}

size_t fake_first(const char *ev)
{
	for (size_t i = 0; i < fw.n_trace; i++)
		if (!strcmp(fw.trace[i], ev))
			return i;
	return FAKE_NONE;
}

size_t fake_last(const char *ev)
{
	for (size_t i = fw.n_trace; i-- > 0;)
		if (!strcmp(fw.trace[i], ev))
			return i;
	return FAKE_NONE;
}

size_t fake_count(const char *ev)
{
	size_t n = 0;

	for (size_t i = 0; i < fw.n_trace; i++)
		n += !strcmp(fw.trace[i], ev);
	return n;
}

void fake_dump(void)
{
	for (size_t i = 0; i < fw.n_trace; i++)
		fprintf(stderr, "  %3zu %s\n", i, fw.trace[i]);
}

static void *fake_alloc(size_t size)
{
	void *p = calloc(1, size);

	if (p)
		fw.live++;
	return p;
}

static void fake_free(void *p)
{
	if (!p)
		return;
	fw.live--;
	free(p);
}

/* ---- the clock, the poll, the priority (ld --wrap) -------------------------------------- */

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
int __real_epoll_wait(int ep, struct epoll_event *evs, int max, int timeout);
int __wrap_epoll_wait(int ep, struct epoll_event *evs, int max, int timeout);
int __wrap_setpriority(int which, id_t who, int prio);

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t t = fw.now_ns;

	if (id == CLOCK_REALTIME)
		t += 1700000000ull * 1000000000ull;
	else if (id != CLOCK_MONOTONIC)
		return __real_clock_gettime(id, ts);
	ts->tv_sec = (time_t)(t / 1000000000ull);
	ts->tv_nsec = (long)(t % 1000000000ull);
	return 0;
}

static void fire(int fd)
{
	uint64_t one = 1;

	if (fd < 0 || write(fd, &one, sizeof(one)) != sizeof(one))
		trace("cannot fire fd %d", fd);
}

int __wrap_epoll_wait(int ep, struct epoll_event *evs, int max, int timeout)
{
	const struct fake_act *a;

	(void)timeout;
	trace("wait");
	if (fw.next_act >= fw.n_script) {
		fw.script_over = true;
		errno = EIO;
		return -1;
	}
	a = &fw.script[fw.next_act++];
	switch (a->kind) {
	case FA_IDLE:
		break;
	case FA_TICK:
		fw.now_ns += fw.tick_ns;
		fire(fw.drain_fd);
		break;
	case FA_DEADLINE:
		fw.now_ns = fw.t_start + (uint64_t)a->arg * FAKE_MS;
		fire(fw.dur_fd);
		break;
	case FA_SIGNAL:
		kill(getpid(), a->arg); /* blocked: the session's signalfd reads it */
		break;
	case FA_EXIT:
		fw.wl_exited = true;
		fw.wl_status = W_EXITCODE(a->arg, 0);
		kill(getpid(), SIGCHLD);
		break;
	case FA_TARGET:
		fire(fw.target_fd[a->arg]);
		break;
	case FA_EVENTS:
		fw.rb_queued += (unsigned int)a->arg;
		fire(fw.rb_fd);
		break;
	}
	return __real_epoll_wait(ep, evs, max, 0);
}

/* The session raises its priority once sampling stops: not this test's. */
int __wrap_setpriority(int which, id_t who, int prio)
{
	(void)which;
	(void)who;
	(void)prio;
	trace("priority");
	return 0;
}

/* ---- the setup steps (record_setup.c) --------------------------------------------------- */

static int setup_step(const char *name)
{
	trace("setup:%s", name);
	if (fw.signal_step && !strcmp(fw.signal_step, name))
		kill(getpid(), fw.signal);
	return fw.fail_step && !strcmp(fw.fail_step, name) ? fw.fail_rc : CP_EXIT_OK;
}

struct out_file {
	int unused;
};
struct bpf_session {
	unsigned int slot;
};
struct bpf_copy {
	uint64_t total;
	unsigned int steps;
};
struct workload {
	int unused;
};
struct unwind_maps {
	int unused;
};
struct symbolizer {
	int unused;
};
struct proc_snapshot {
	int unused;
};
struct name_cache {
	int unused;
};
struct profile {
	uint64_t total;
};
struct aggregate {
	struct bpf_copy *c;
	struct profile *p;
	unsigned int left;
	bool hurried;
};
struct ring_buffer {
	int fd;
	ring_buffer_sample_fn cb;
	void *ctx;
};

int record_check_environment(struct record *r)
{
	r->frequency = 99;
	r->max_depth = 127;
	return setup_step("check_environment");
}

int record_open_outputs(struct record *r)
{
	r->outs = calloc(fw.n_outs, sizeof(*r->outs));
	for (size_t i = 0; r->outs && i < fw.n_outs; i++)
		r->outs[i] = fake_alloc(sizeof(struct out_file));
	r->n_outs = r->outs ? fw.n_outs : 0;
	return setup_step("open_outputs");
}

int record_prepare_command(struct record *r)
{
	if (r->o->command)
		r->wl = fake_alloc(sizeof(*r->wl));
	return setup_step("prepare_command");
}

int record_prepare_tables(struct record *r)
{
	r->um = fake_alloc(sizeof(*r->um));
	return setup_step("prepare_tables");
}

int record_load_bpf(struct record *r)
{
	r->bpf = fake_alloc(sizeof(*r->bpf));
	return setup_step("load_bpf");
}

/* As record_setup.c: a pidfd per -p target, readable once it has exited. */
int record_prepare_targets(struct record *r)
{
	size_t n = r->o->n_pids;

	r->pids = calloc(n ? n : 1, sizeof(*r->pids));
	r->pidfds = malloc((n ? n : 1) * sizeof(*r->pidfds));
	for (size_t i = 0; r->pids && r->pidfds && i < n && i < 4; i++) {
		r->pids[i] = r->o->pids[i];
		r->pidfds[i] = fw.target_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	}
	r->stop.n_targets = n;
	return setup_step("prepare_targets");
}

int record_load_kernel_symbols(struct record *r)
{
	(void)r;
	return 0;
}

int record_start_sampling(struct record *r)
{
	(void)r;
	fw.t_start = fw.now_ns;
	return setup_step("start_sampling");
}

void prebuild_result_free(struct prebuild_result *res)
{
	(void)res;
	trace("free:pre");
}

/* ---- the BPF session and its copies (bpf_loader.h) -------------------------------------- */

int bpf_session__switch_slot(struct bpf_session *s, unsigned int *old)
{
	trace("switch");
	*old = s->slot;
	s->slot ^= 1;
	return 0;
}

int bpf_session__copy_slot(struct bpf_session *s, unsigned int slot, struct bpf_copy **out)
{
	size_t i = fw.n_copies++;
	struct bpf_copy *c;

	(void)s;
	(void)slot;
	trace("copy");
	if ((int)i == fw.copy_fail_at)
		return -ENOMEM;
	c = fake_alloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->total = i < FAKE_COPIES ? fw.copy_total[i] : 0;
	c->steps = i < FAKE_COPIES ? fw.copy_steps[i] : 1;
	fw.recorded += c->total;
	*out = c;
	return 0;
}

int bpf_session__clear_slot(struct bpf_session *s, unsigned int slot)
{
	(void)s;
	(void)slot;
	trace("clear");
	return 0;
}

int bpf_session__read_stats(const struct bpf_session *s, uint64_t out[CP_STAT_MAX])
{
	(void)s;
	memset(out, 0, CP_STAT_MAX * sizeof(out[0]));
	out[CP_STAT_RECORDED] = fw.recorded;
	return 0;
}

int bpf_session__fill_level(const struct bpf_session *s, unsigned int *pct)
{
	(void)s;
	*pct = fw.fill_pct;
	return 0;
}

void bpf_session__stop_sampling(struct bpf_session *s)
{
	(void)s;
	trace("stop_sampling");
	fw.refreshed_at_stop = fw.n_refreshed;
}

void bpf_session__pause_sampling(struct bpf_session *s)
{
	(void)s;
	trace("pause_sampling");
}

void bpf_session__free(struct bpf_session *s)
{
	if (s)
		trace("free:bpf");
	fake_free(s);
}

int bpf_session__events_fd(const struct bpf_session *s)
{
	(void)s;
	return -1;
}

int bpf_session__exclude_proc(struct bpf_session *s, uint32_t pid)
{
	(void)s;
	(void)pid;
	return 0;
}

int bpf_session__ncpus(const struct bpf_session *s)
{
	(void)s;
	return 2;
}

int bpf_session__proc_gen(const struct bpf_session *s, uint32_t pid, uint32_t *gen)
{
	(void)s;
	(void)pid;
	(void)gen;
	return -ENOENT;
}

int bpf_session__refresh_taken(struct bpf_session *s, uint32_t pid)
{
	(void)s;
	(void)pid;
	return 0;
}

int bpf_session__set_go_proc(struct bpf_session *s, uint32_t pid, const struct cp_go_proc *gp)
{
	(void)s;
	(void)pid;
	(void)gp;
	return 0;
}

void bpf_copy__drain(struct bpf_copy *c, struct drain *out)
{
	memset(out, 0, sizeof(*out));
	out->ctx = c;
}

uint64_t bpf_copy__total(const struct bpf_copy *c)
{
	return c->total;
}

void bpf_copy__free(struct bpf_copy *c)
{
	fake_free(c);
}

/* ---- naming (aggregate.h): a copy's samples go into the profile at its last step -------- */

int aggregate_begin(const struct drain *d, struct symbolizer *sy, const struct aggregate_opts *o,
		    struct profile *p, struct aggregate **out)
{
	struct aggregate *g = fake_alloc(sizeof(*g));

	(void)sy;
	(void)o;
	if (!g)
		return -ENOMEM;
	g->c = d->ctx;
	g->p = p;
	g->left = g->c->steps;
	trace("name_begin");
	*out = g;
	return 0;
}

int aggregate_step(struct aggregate *g)
{
	if (!g->left)
		return 0;
	if (fw.kill_at_step && ++fw.n_steps == (unsigned int)fw.kill_at_step)
		kill(getpid(), fw.kill_sig);
	trace("name_step");
	fw.now_ns += fw.step_ns;
	/* the watch's thread wakes at the deadline, whatever the loop does */
	if (fw.watch_pause && fw.watch_deadline && !fw.watch_paused &&
	    fw.now_ns >= fw.watch_deadline) {
		fw.watch_paused = true;
		fw.watch_pause(fw.watch_ctx);
	}
	if (--g->left)
		return 1;
	g->p->total += g->c->total;
	fw.named += g->c->total;
	return 0;
}

void aggregate_hurry(struct aggregate *g)
{
	trace("hurry");
	g->hurried = true;
}

void aggregate_end(struct aggregate *g, struct aggregate_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ustacks = g->left ? 0 : g->c->total;
	st->hurried = g->hurried;
	trace("name_end");
	fake_free(g);
}

void aggregate_stats_add(struct aggregate_stats *to, const struct aggregate_stats *from)
{
	to->ustacks += from->ustacks;
	to->hurried += from->hurried;
}

struct name_cache *name_cache__new(size_t max_entries)
{
	(void)max_entries;
	return fake_alloc(sizeof(struct name_cache));
}

void name_cache__free(struct name_cache *nc)
{
	fake_free(nc);
}

size_t name_cache__n(const struct name_cache *nc)
{
	(void)nc;
	return 0;
}

size_t name_cache__bytes(const struct name_cache *nc)
{
	(void)nc;
	return 0;
}

/* ---- the profile ------------------------------------------------------------------------ */

struct profile *profile__new(void)
{
	return fake_alloc(sizeof(struct profile));
}

void profile__free(struct profile *p)
{
	if (p)
		trace("free:prof");
	fake_free(p);
}

uint64_t profile__total(const struct profile *p)
{
	return p->total;
}

int profile__unspill(struct profile *p)
{
	(void)p;
	trace("unspill");
	return 0;
}

int profile__seal(struct profile *p)
{
	(void)p;
	trace("seal");
	return 0;
}

void profile__spill_sizes(const struct profile *p, struct profile_spill *ps)
{
	(void)p;
	memset(ps, 0, sizeof(*ps));
}

int profile__spill_to(struct profile *p, const char *dir, size_t after)
{
	(void)p;
	(void)dir;
	(void)after;
	return 0;
}

void profile__mem(const struct profile *p, struct profile_mem *m)
{
	(void)p;
	memset(m, 0, sizeof(*m));
}

int profile__merge_ended(struct profile *p, bool (*ended)(void *ctx, uint32_t pid), void *ctx,
			 size_t *n_merged)
{
	(void)p;
	(void)ended;
	(void)ctx;
	*n_merged = 0;
	return 0;
}

size_t profile__n_frames(const struct profile *p)
{
	(void)p;
	return 0;
}

size_t profile__n_mappings(const struct profile *p)
{
	(void)p;
	return 0;
}

size_t profile__n_samples(const struct profile *p)
{
	(void)p;
	return 0;
}

/* ---- the outputs and the summary (report.h, output.h) ------------------------------------ */

int report_write(const struct report *r, struct out_file **outs, size_t n_outs)
{
	trace("report_write");
	fw.n_writes++;
	fw.rep = *r;
	memcpy(fw.rep_stats, r->stats, sizeof(fw.rep_stats));
	fw.rep_total = r->prof ? r->prof->total : UINT64_MAX;
	for (size_t i = 0; i < n_outs; i++) {
		fw.n_written += outs[i] != NULL;
		fake_free(outs[i]);
		outs[i] = NULL; /* committed */
	}
	return 0;
}

void report_summary(const struct report *r, size_t n_outs)
{
	(void)r;
	(void)n_outs;
	trace("report_summary");
}

void out_file__abort(struct out_file *o)
{
	if (!o)
		return;
	trace("abort");
	fw.n_aborted++;
	fake_free(o);
}

/* ---- the command (workload.h) ------------------------------------------------------------ */

int workload__start(struct workload *w)
{
	(void)w;
	trace("wl:start");
	return 0;
}

int workload__reap(struct workload *w, bool wait, int *status)
{
	(void)w;
	if (!fw.wl_exited && !wait)
		return 0;
	fw.wl_exited = true;
	*status = fw.wl_status;
	trace("wl:reaped");
	return 1;
}

void workload__signal(struct workload *w, int sig)
{
	(void)w;
	trace("wl:%s", sig == SIGTERM ? "SIGTERM" : "signal");
	/* the command dies of it */
	if (!fw.wl_exited) {
		fw.wl_exited = true;
		fw.wl_status = W_EXITCODE(0, sig);
	}
}

void workload__free(struct workload *w)
{
	if (w)
		trace("free:wl");
	fake_free(w);
}

const char *workload__path(const struct workload *w)
{
	(void)w;
	return "/bin/true";
}

pid_t workload__pid(const struct workload *w)
{
	(void)w;
	return 1;
}

/* As workload.c: the status a shell gives. */
int workload_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* ---- the watch and the loop's timers (watch.h): eventfds the script fires ---------------- */

void watch_init(struct watch *w)
{
	memset(w, 0, sizeof(*w));
}

int watch_start(struct watch *w, const sigset_t *stop, uint64_t deadline_ns,
		void (*pause)(void *ctx), void *ctx)
{
	(void)w;
	(void)stop;
	if (!fw.watch_thread)
		return -EAGAIN; /* no thread: the loop alone stops */
	fw.watch_deadline = deadline_ns;
	fw.watch_pause = pause;
	fw.watch_ctx = ctx;
	return 0;
}

void watch_end(struct watch *w)
{
	(void)w;
	fw.watch_pause = NULL;
	trace("watch_end");
}

bool watch_paused(const struct watch *w, struct timespec *when)
{
	(void)w;
	if (!fw.watch_paused)
		return false;
	when->tv_sec = (time_t)(fw.watch_deadline / 1000000000ull);
	when->tv_nsec = (long)(fw.watch_deadline % 1000000000ull);
	return true;
}

void watch_free(struct watch *w)
{
	(void)w;
}

/* The -d timer fires once (no interval); the drain timer is the first periodic one. */
int watch_timer(uint64_t first_ms, uint64_t interval_ms)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	(void)first_ms;
	if (fd < 0)
		return -errno;
	if (!interval_ms)
		fw.dur_fd = fd;
	else if (fw.drain_fd < 0)
		fw.drain_fd = fd;
	return fd;
}

int watch_add(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

bool watch_ticked(int fd)
{
	uint64_t n;

	return read(fd, &n, sizeof(n)) == sizeof(n) && n > 0;
}

/* ---- libbpf's ring buffer (the requests from BPF): none comes ------------------------------ */

struct ring_buffer *ring_buffer__new(int map_fd, ring_buffer_sample_fn sample_cb, void *ctx,
				     const struct ring_buffer_opts *opts)
{
	struct ring_buffer *rb = fake_alloc(sizeof(*rb));

	(void)map_fd;
	(void)opts;
	if (!rb)
		return NULL;
	rb->fd = fw.rb_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rb->cb = sample_cb;
	rb->ctx = ctx;
	return rb;
}

/*
 * As libbpf's: each queued record to the callback; a record whose callback fails is consumed
 * all the same (libbpf's ringbuf_process_ring moves past it), and the consume ends there.
 */
int ring_buffer__consume(struct ring_buffer *rb)
{
	int n = 0;

	while (fw.rb_queued) {
		struct cp_event ev = {.type = CP_EV_NEW_PROC, .pid = 1000 + fw.n_events, .gen = 1};
		int err;

		fw.rb_queued--;
		fw.n_events++;
		err = rb->cb(rb->ctx, &ev, sizeof(ev));
		if (err < 0)
			return err;
		n++;
	}
	watch_ticked(rb->fd); /* empty: not readable until more come */
	return n;
}

int ring_buffer__epoll_fd(const struct ring_buffer *rb)
{
	return rb->fd;
}

void ring_buffer__free(struct ring_buffer *rb)
{
	if (!rb)
		return;
	trace("free:rb");
	close(rb->fd);
	fake_free(rb);
}

/* ---- objects and symbols, unwind tables, interpreters, Go labels: inert ------------------- */

struct proc_snapshot *proc_snapshot__new(const char *procfs)
{
	(void)procfs;
	return fake_alloc(sizeof(struct proc_snapshot));
}

void proc_snapshot__free(struct proc_snapshot *ps)
{
	if (ps)
		trace("free:snap");
	fake_free(ps);
}

int proc_snapshot__for_each_snapshot(const struct proc_snapshot *ps, ps_snap_fn fn, void *ctx)
{
	(void)ps;
	(void)fn;
	(void)ctx;
	return 0;
}

/* Reading a process's mappings: refresh_ns; a signal may come meanwhile. */
int proc_snapshot__refresh(struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	(void)ps;
	(void)pid;
	(void)gen;
	fw.now_ns += fw.refresh_ns;
	if (++fw.n_refreshed == fw.kill_at_refresh)
		kill(getpid(), SIGINT);
	return 0;
}

int proc_snapshot__release(struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	(void)ps;
	(void)pid;
	(void)gen;
	return 0;
}

int proc_snapshot__add_vma(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
			   const struct ps_vma *v)
{
	(void)ps;
	(void)pid;
	(void)gen;
	(void)v;
	return 0;
}

int proc_comm_read(const char *procfs, uint32_t pid, char *buf, size_t size)
{
	(void)procfs;
	(void)pid;
	(void)buf;
	(void)size;
	return -ENOENT;
}

int proc_status_read(const char *procfs, uint32_t pid, struct proc_status *st)
{
	(void)procfs;
	(void)pid;
	(void)st;
	return -ENOENT;
}

struct symbolizer *symbolizer__new(struct proc_snapshot *ps)
{
	(void)ps;
	return fake_alloc(sizeof(struct symbolizer));
}

void symbolizer__free(struct symbolizer *sy)
{
	if (sy)
		trace("free:sym");
	fake_free(sy);
}

void symbolizer__set_debuginfod(struct symbolizer *sy, bool on)
{
	(void)sy;
	(void)on;
}

int symbolizer__set_unpack_dir(struct symbolizer *sy, const char *dir)
{
	(void)sy;
	(void)dir;
	return 0;
}

void symbolizer__drop_indexes(struct symbolizer *sy, bool all)
{
	(void)sy;
	(void)all;
}

void symbolizer__forget_perf_maps(struct symbolizer *sy)
{
	(void)sy;
}

void symbolizer__perf_maps(const struct symbolizer *sy, struct sym_perf_maps *st)
{
	(void)sy;
	memset(st, 0, sizeof(*st));
}

void symbolizer__sizes(struct symbolizer *sy, size_t *objects, size_t *indexes, size_t *strings,
		       size_t *string_bytes)
{
	(void)sy;
	*objects = *indexes = *strings = *string_bytes = 0;
}

size_t symbolizer__changed_objects(const struct symbolizer *sy, const char **first)
{
	(void)sy;
	*first = NULL;
	return 0;
}

const char *symbolizer__damaged_object(const struct symbolizer *sy)
{
	(void)sy;
	return NULL;
}

const char *symbolizer__zstd_object(const struct symbolizer *sy)
{
	(void)sy;
	return NULL;
}

int symbolizer__debuginfod_error(const struct symbolizer *sy)
{
	(void)sy;
	return 0;
}

void demangle_stats(struct demangle_stats *st)
{
	memset(st, 0, sizeof(*st));
}

const char *dwfl_version(Dwfl *dwfl)
{
	(void)dwfl;
	return "0";
}

int rss_self(struct rss *r)
{
	(void)r;
	return -ENOENT;
}

int rss_reset_peak(void)
{
	return -ENOENT;
}

int unwind_maps__add_proc(struct unwind_maps *um, struct proc_snapshot *ps, uint32_t pid,
			  uint32_t gen)
{
	(void)um;
	(void)ps;
	(void)pid;
	(void)gen;
	return 0;
}

void unwind_maps__free(struct unwind_maps *um)
{
	if (um)
		trace("free:um");
	fake_free(um);
}

int record_rt_init(struct record *r)
{
	r->rt = NULL;
	return 0;
}

void record_rt_free(struct record *r)
{
	(void)r;
}

void record_rt_new(struct record *r, uint32_t pid, uint32_t gen)
{
	(void)r;
	(void)pid;
	(void)gen;
}

void record_rt_later(struct record *r, uint32_t pid, uint32_t gen)
{
	(void)r;
	(void)pid;
	(void)gen;
}

void record_rt_forget(struct record *r, const uint64_t *keys, size_t n)
{
	(void)r;
	(void)keys;
	(void)n;
}

void record_rt_tick(struct record *r)
{
	(void)r;
}

void record_rt_timer(struct record *r)
{
	(void)r;
}

int record_rt_read_stats(struct record *r)
{
	(void)r;
	return 0;
}

void record_rt_summary(const struct record *r)
{
	(void)r;
}

const void *record_rt_proc(void *ctx, uint32_t id, uint32_t pid, uint32_t gen)
{
	(void)ctx;
	(void)id;
	(void)pid;
	(void)gen;
	return NULL;
}

int record_rt_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		   const struct rt_frame_info **out)
{
	(void)ctx;
	(void)pid;
	(void)gen;
	(void)f;
	*out = NULL;
	return -ENOENT;
}

struct go_labels *go_labels__new(struct proc_snapshot *ps, struct go_tables *tables,
				 const struct go_labels_ops *ops)
{
	(void)ps;
	(void)tables;
	(void)ops;
	return NULL;
}

void go_labels__free(struct go_labels *gl)
{
	(void)gl;
}

int go_labels__loaded(struct go_labels *gl, uint32_t pid, uint32_t gen)
{
	(void)gl;
	(void)pid;
	(void)gen;
	return -ENOENT;
}

int go_labels__command(struct go_labels *gl, uint32_t pid, const char *path)
{
	(void)gl;
	(void)pid;
	(void)path;
	return -ENOENT;
}

struct go_tables *go_tables__new(void)
{
	static char one;

	return (struct go_tables *)&one;
}

void go_tables__free(struct go_tables *t)
{
	(void)t;
}

size_t go_tables__trim(struct go_tables *t)
{
	(void)t;
	return 0;
}

void go_tables__counts(struct go_tables *t, size_t *files, size_t *go)
{
	(void)t;
	*files = 0;
	*go = 0;
}

void symbolizer__set_go_tables(struct symbolizer *sy, struct go_tables *t)
{
	(void)sy;
	(void)t;
}

void unwind_maps__set_go_tables(struct unwind_maps *um, struct go_tables *t)
{
	(void)um;
	(void)t;
}
