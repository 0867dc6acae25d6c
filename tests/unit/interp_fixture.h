/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the interpreter tests (test_py_*.c, test_rb_*.c): find the machine's Pythons,
 * run an interpreter until it says it is up and stop it, and the BPF walk harnesses' clock
 * and cost. Include after cmocka_inc.h.
 */
#ifndef CPUPROF_INTERP_FIXTURE_H
#define CPUPROF_INTERP_FIXTURE_H
#include <dirent.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cmocka_inc.h"

/*
 * Runs ARGV (ARGV[0] searched in PATH, the list ends with NULL) with its stdout on a pipe and
 * reads the first line it writes into LINE: the interpreter is up. Returns its pid; *OUT is
 * the pipe, for interp_stop().
 */
static inline pid_t interp_start(const char *const argv[], FILE **out, char *line, int size)
{
	int pfd[2];
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	*out = fdopen(pfd[0], "r");
	assert_non_null(*out);
	assert_non_null(fgets(line, size, *out));
	return pid;
}

static inline void interp_stop(pid_t pid, FILE *out)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fclose(out);
}

/*
 * The pyenv interpreters ($PYENV_ROOT or ~/.pyenv, versions/NAME/bin/python) into BINS, and
 * with DEBIAN Debian's /usr/bin/python3.11 (libpython linked in statically, stripped,
 * non-PIE) after them. Returns how many.
 */
static inline size_t interp_pythons(char bins[][1024], size_t max, bool debian)
{
	const char *env = getenv("PYENV_ROOT");
	char dir[900];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (env && *env)
		snprintf(dir, sizeof(dir), "%s/versions", env);
	else
		snprintf(dir, sizeof(dir), "%s/.pyenv/versions",
			 getenv("HOME") ? getenv("HOME") : "");
	d = opendir(dir);
	while (d && (de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || strlen(de->d_name) > 64)
			continue;
		snprintf(bins[n], 1024, "%s/%s/bin/python", dir, de->d_name);
		if (!access(bins[n], X_OK))
			n++;
	}
	if (d)
		closedir(d);
	if (debian && n < max && !access("/usr/bin/python3.11", X_OK))
		snprintf(bins[n++], 1024, "/usr/bin/python3.11");
	return n;
}

/* The libpython BIN loads (its path in LIB), or "" when CPython is in BIN itself. */
static inline void interp_libpython(const char *bin, char *lib, int size)
{
	FILE *f = tool_output("ldd '%s' 2>/dev/null | awk '/libpython/ {print $3}'", bin);

	if (!fgets(lib, size, f))
		lib[0] = 0;
	pclose(f);
	lib[strcspn(lib, "\n")] = 0;
}

/* sys.hexversion of the Python BIN. */
static inline uint32_t interp_hexversion(const char *bin)
{
	unsigned long v = 0;
	FILE *f = tool_output("'%s' -c 'import sys; print(sys.hexversion)'", bin);

	assert_int_equal(fscanf(f, "%lu", &v), 1);
	tool_done(f);
	return (uint32_t)v;
}

static inline bool interp_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* A cpu-clock event at 997 Hz on CPU, for the walk harness to attach to. */
static inline int interp_open_clock(int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 997,
		.freq = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

#define INTERP_MAX_LINKS 256

/* prog (the harness's cp_rt_test) on a cpu-clock event of each online CPU, at most 256. */
static inline int interp_attach_clocks(struct bpf_program *prog, struct bpf_link **links)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), n = 0;

	for (int i = 0; i < ncpu && i < INTERP_MAX_LINKS; i++) {
		int fd = interp_open_clock(i);

		if (fd < 0)
			continue;
		links[n] = bpf_program__attach_perf_event(prog, fd);
		assert_non_null(links[n]);
		n++;
	}
	assert_true(n > 0);
	return n;
}

static inline void interp_detach_clocks(struct bpf_link **links, int n)
{
	for (int i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
}

/*
 * The walk's mean cost in ns over the walks of every CPU, from the harness's per-CPU cost map
 * (FD): key 0 the ns, key 1 the walks.
 */
static inline double interp_walk_cost(int fd)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *v = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*v));
	double ns = 0, walks = 0;
	__u32 k;

	assert_non_null(v);
	for (k = 0; k < 2; k++) {
		assert_int_equal(bpf_map_lookup_elem(fd, &k, v), 0);
		for (c = 0; c < ncpu; c++)
			*(k ? &walks : &ns) += (double)v[c];
	}
	free(v);
	return walks ? ns / walks : 0;
}
/* What a walk test counts of the samples of its main thread and of the other one. */
struct interp_tally {
	unsigned int main_samples, main_exact, main_hot, main_cold, hot_leaves, hot_lines_ok;
	unsigned int other_samples, other_exact, other_wrong;
	char example_main[512], example_other[512];
};

/*
 * Count a sample's chain (root first): the main thread's (main) against ROOT;hot and ROOT;cold
 * (hot_line: its leaf at one of hot's lines), else the other thread's (other_ok: the chain it
 * should have; one through outer or hot is wrong).
 */
static inline void interp_tally(struct interp_tally *t, bool main, const char *chain,
				const char *root, bool hot_line, bool other_ok)
{
	size_t n = strlen(root);

	if (!main) {
		t->other_samples++;
		if (other_ok)
			t->other_exact++;
		else if (!t->example_other[0])
			snprintf(t->example_other, sizeof(t->example_other), "%s", chain);
		t->other_wrong += strstr(chain, "outer") || strstr(chain, "hot");
		return;
	}
	t->main_samples++;
	if (!strncmp(chain, root, n) && !strcmp(chain + n, ";hot")) {
		t->main_exact++;
		t->main_hot++;
		t->hot_leaves++;
		t->hot_lines_ok += hot_line;
	} else if (!strncmp(chain, root, n) && !strcmp(chain + n, ";cold")) {
		t->main_exact++;
		t->main_cold++;
	} else if (!t->example_main[0]) {
		snprintf(t->example_main, sizeof(t->example_main), "%s", chain);
	}
}

/*
 * The walkers' harness (bpf/rtwalk.bpf.c) run on process pid, whose runtime id's record is
 * proc (size bytes), for ms milliseconds: each event to fn(ctx, ...). The mean walk in ns.
 * The caller includes "rtwalk.skel.h" first.
 */
#ifdef __CPUPROF_RTWALK_SKEL_H__
static inline double interp_harness_run(pid_t pid, uint32_t runtime, const void *proc, size_t size,
					unsigned int ms, ring_buffer_sample_fn fn, void *ctx)
{
	struct cp_rt_proc rp = {.runtime = runtime};
	int nlinks;
	struct cpuprof_rtwalk *skel = cpuprof_rtwalk__open();
	struct bpf_link *links[INTERP_MAX_LINKS];
	struct ring_buffer *rb;
	struct timespec t0, t;
	double cost;

	/* not assert_non_null: gcc's -Wnull-dereference does not know it ends the test */
	if (!skel || !skel->rodata) {
		fail_msg("cannot open the walkers' harness");
		return 0;
	}
	assert_true(size <= sizeof(rp.data));
	memcpy(rp.data, proc, size);
	skel->rodata->target_tgid = (__u32)pid;
	assert_int_equal(cpuprof_rtwalk__load(skel), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.rt_procs), &(__u32){(__u32)pid},
					     &rp, BPF_ANY),
			 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rt_events), fn, ctx, NULL);
	assert_non_null(rb);
	nlinks = interp_attach_clocks(skel->progs.cp_rt_test, links);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ring_buffer__poll(rb, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	interp_detach_clocks(links, nlinks);
	ring_buffer__consume(rb);
	cost = interp_walk_cost(bpf_map__fd(skel->maps.rt_cost));
	ring_buffer__free(rb);
	cpuprof_rtwalk__destroy(skel);
	return cost;
}
/* The stacks a harness run sent for one process, kept to be named once it has ended. */
struct interp_stacks {
	pid_t pid;
	struct cp_rt_stack *st;
	size_t n, cap;
};

/* ring_buffer_sample_fn: keep an event's stack if it is of the process ctx (interp_stacks). */
static inline int interp_keep_stack(void *ctx, void *data, size_t size)
{
	const struct cp_rt_event *ev = data;
	struct interp_stacks *s = ctx;

	if (size < sizeof(*ev) || ev->tid != (uint32_t)s->pid)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->st = realloc(s->st, s->cap * sizeof(*s->st));
		assert_non_null(s->st);
	}
	s->st[s->n++] = ev->st;
	return 0;
}

/*
 * The harness skel (loaded) on the process s->pid, whose record is rp, on every CPU until the
 * process ends by itself: its stacks into s. The process's wait status.
 */
static inline int interp_sample_until_exit(struct cpuprof_rtwalk *skel, const struct cp_rt_proc *rp,
					   struct interp_stacks *s)
{
	struct bpf_link *links[INTERP_MAX_LINKS];
	struct ring_buffer *rb;
	int nlinks, status = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.rt_procs),
					     &(__u32){(__u32)s->pid}, rp, BPF_ANY),
			 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rt_events), interp_keep_stack, s, NULL);
	assert_non_null(rb);
	nlinks = interp_attach_clocks(skel->progs.cp_rt_test, links);
	while (waitpid(s->pid, &status, WNOHANG) == 0)
		ring_buffer__poll(rb, 50);
	interp_detach_clocks(links, nlinks);
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return status;
}
#endif
#endif
