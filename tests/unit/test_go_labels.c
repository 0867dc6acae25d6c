// SPDX-License-Identifier: GPL-2.0
/*
 * The goroutine label reader (bpf/go_labels.bpf.h) in the walkers' harness (bpf/rtwalk.bpf.c,
 * cp_go_test) on hand-made Go memory (tests/fixtures/fix_golabels.c): the map layout of Go up
 * to 1.23 with two buckets, an empty slot, a value longer than its field and an overflow
 * bucket (not read); the slice layout of Go 1.24 (no Go of that version to test with here),
 * past the 8 labels a sample keeps; a thread running no goroutine. Every sample of the fixture
 * must give exactly the labels its memory holds, or none where it holds none.
 *
 * Then what user space enters in go_procs (session/go_labels.c), on a fake procfs whose process
 * maps the Go fixture: the entry of the generation that runs, never one of an ended generation
 * (the mappings of a sample's request taken in the command's execve are read after its exec:
 * the new program's, under the old generation); the command's entry before its exec; and one
 * read of the executable's Go table for the unwinder and the labels both.
 */
#include <time.h>
#include "cmocka_inc.h"
#include <linux/types.h>
#include "runtime_shared.h"
#include "shared.h"
#include "rtwalk.skel.h"
#include "interp_fixture.h"
#include "elf/go_tables.h"
#include "proc/proc_snapshot.h"
#include "session/go_labels.h"
#include "unwind/unwind_table.h"

struct seen {
	size_t events, bad;
	uint64_t ns; /* spent reading the labels, all samples */
	char first_bad[512];
	const char *want; /* the labels, "k=v;..." in the order the reader finds them */
};

static int on_event(void *ctx, void *data, size_t size)
{
	const struct cp_go_labels *v = data;
	struct seen *s = ctx;
	char got[2048] = "";
	size_t len = 0;

	if (size < sizeof(*v))
		return 0;
	s->events++;
	for (uint32_t i = 0; i < v->n && i < CP_GO_LABELS; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%.*s=%.*s%s;",
					CP_GO_LABEL_KEY, v->l[i].key, CP_GO_LABEL_VAL, v->l[i].val,
					v->cut >> i & 1 ? "[cut]" : "");
	if (strcmp(got, s->want)) {
		if (!s->bad++)
			snprintf(s->first_bad, sizeof(s->first_bad), "%s", got);
	}
	return 0;
}

/* Run the fixture as what, the reader with the fixture's offsets and layout; the samples. */
static uint64_t run(const char *what, uint8_t layout, struct seen *s)
{
	const char *argv[] = {NULL, what, NULL};
	char path[PATH_MAX], line[64];
	struct cp_go_proc gp = {.gen = 0,
				.layout = layout,
				.tls_slot = 1,
				.g_m = 48,
				.m_curg = 192,
				.g_labels = 360};
	struct cpuprof_rtwalk *skel;
	struct bpf_link *links[INTERP_MAX_LINKS];
	struct ring_buffer *rb;
	struct timespec t0, t;
	uint64_t samples = 0;
	__u64 *v;
	int nlinks, ncpu = libbpf_num_possible_cpus();
	FILE *out;
	pid_t pid;

	fixture(path, sizeof(path), "fix_golabels");
	argv[0] = path;
	pid = interp_start(argv, &out, line, sizeof(line));
	assert_string_equal(line, "ready\n");
	skel = cpuprof_rtwalk__open();
	if (!skel || !skel->rodata) {
		fail_msg("cannot open the harness");
		return 0;
	}
	skel->rodata->target_tgid = (__u32)pid;
	assert_int_equal(cpuprof_rtwalk__load(skel), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.go_procs), &(__u32){(__u32)pid},
					     &gp, BPF_ANY),
			 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.go_events), on_event, s, NULL);
	assert_non_null(rb);
	nlinks = interp_attach_clocks(skel->progs.cp_go_test, links);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ring_buffer__poll(rb, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 500);
	interp_detach_clocks(links, nlinks);
	ring_buffer__consume(rb);
	v = calloc((size_t)ncpu, sizeof(*v));
	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.go_stats), &(__u32){0}, v), 0);
	for (int c = 0; c < ncpu; c++)
		samples += v[c];
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.go_stats), &(__u32){2}, v), 0);
	for (int c = 0; c < ncpu; c++)
		s->ns += v[c];
	free(v);
	ring_buffer__free(rb);
	cpuprof_rtwalk__destroy(skel);
	interp_stop(pid, out);
	return samples;
}

static void need_bpf(void)
{
	if (geteuid() != 0)
		cp_skip("BPF needs root");
}

/* map: both buckets, slots in use only, the long value cut and flagged, no overflow bucket */
static void test_map(void **state)
{
	static char want[512];
	struct seen s = {.want = want};
	uint64_t n;

	(void)state;
	need_bpf();
	snprintf(
		want, sizeof(want),
		"trace_id=4bf92f3577b34da6a3ce929d0e0e4736;k2=%.*s[cut];span_id=00f067aa0ba902b7;",
		CP_GO_LABEL_VAL - 1,
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	n = run("map", CP_GO_LAYOUT_MAP, &s);
	print_message("map: %zu of %llu samples with labels, %zu not as in memory (%s); %.0f ns "
		      "a read\n",
		      s.events, (unsigned long long)n, s.bad, s.first_bad,
		      n ? (double)s.ns / n : 0);
	assert_true(n >= 20);
	assert_int_equal(s.bad, 0);
	/* every sample of the spinning thread: its labels are there all the time */
	assert_int_equal(s.events, n);
}

/* slice (Go 1.24): the first 8 of 10 labels */
static void test_slice(void **state)
{
	struct seen s = {.want = "k0=v0;k1=v1;k2=v2;k3=v3;k4=v4;k5=v5;k6=v6;k7=v7;"};
	uint64_t n;

	(void)state;
	need_bpf();
	n = run("slice", CP_GO_LAYOUT_SLICE, &s);
	print_message("slice: %zu of %llu samples with labels, %zu not as in memory (%s); %.0f ns "
		      "a read\n",
		      s.events, (unsigned long long)n, s.bad, s.first_bad,
		      n ? (double)s.ns / n : 0);
	assert_true(n >= 20);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.events, n);
}

/* no goroutine on the thread (m.curg 0), or no layout (a Go version without one): no labels */
static void test_none(void **state)
{
	struct seen s = {.want = ""};
	uint64_t n;

	(void)state;
	need_bpf();
	n = run("idle", CP_GO_LAYOUT_MAP, &s);
	assert_true(n >= 20);
	assert_int_equal(s.events, 0);
	memset(&s, 0, sizeof(s));
	s.want = "";
	n = run("map", 0, &s);
	assert_true(n >= 20);
	assert_int_equal(s.events, 0);
}

/* ---- go_procs entries (no BPF: the maps are fakes) ---------------------------------------- */

/* The BPF side as go_labels sees it: the generation of each pid, the entries set. */
struct fake_bpf {
	uint32_t pid, gen; /* the one process BPF knows (pid 0: none) */
	size_t sets;
	uint32_t set_pid;
	struct cp_go_proc set;
};

static int fake_set(void *ctx, uint32_t pid, const struct cp_go_proc *gp)
{
	struct fake_bpf *b = ctx;

	b->sets++;
	b->set_pid = pid;
	b->set = *gp;
	return 0;
}

static int fake_gen(void *ctx, uint32_t pid, uint32_t *gen)
{
	struct fake_bpf *b = ctx;

	if (!b->pid || pid != b->pid)
		return -ENOENT;
	*gen = b->gen;
	return 0;
}

struct fake_proc {
	char dir[64], app[PATH_MAX];
	struct proc_snapshot *ps;
};

/*
 * A procfs in which process 42 maps the file name of the fixtures (at its link address:
 * both fixtures used are ET_EXEC with their text in their first segment) as /opt/app.
 */
static bool fake_proc(struct fake_proc *fp, const char *name, const char *maps)
{
	const char *fix = getenv("CPUPROF_FIXTURES");
	char cmd[3 * PATH_MAX + 64], path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fix && *fix ? fix : "build/rel/fixtures", name);
	if (access(path, R_OK))
		return false;
	snprintf(fp->dir, sizeof(fp->dir), "/tmp/cpuprof-golab.XXXXXX");
	assert_non_null(mkdtemp(fp->dir));
	snprintf(fp->app, sizeof(fp->app), "%s/42/root/opt/app", fp->dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/42/root/opt && cp '%s' %s", fp->dir, path, fp->app);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/42/maps", fp->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(maps, f) >= 0);
	assert_int_equal(fclose(f), 0);
	fp->ps = proc_snapshot__new(fp->dir);
	assert_non_null(fp->ps);
	return true;
}

static void fake_proc_free(struct fake_proc *fp)
{
	char cmd[128];

	proc_snapshot__free(fp->ps);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fp->dir);
	assert_int_equal(system(cmd), 0);
}

static const char go_maps[] = "00400000-00495000 r-xp 00000000 08:01 77 /opt/app\n"
			      "00495000-00533000 r--p 00095000 08:01 77 /opt/app\n";

/*
 * The command: before its exec, the entry of the generation exec starts (BPF's + 1, or 0 for a
 * process it has no entry of). Its execve's request answered after exec (generation 0, the Go
 * program's mappings) enters nothing, whether BPF counts generation 1 already or not yet; the
 * request of generation 1 enters generation 1. Before the fix, the late read of generation 0
 * replaced the command's entry with one of generation 0, which no sample of the program has.
 */
static void test_entry_generations(void **state)
{
	struct fake_bpf b = {.pid = 42, .gen = 0};
	const struct go_labels_ops ops = {&b, fake_set, fake_gen};
	struct go_tables *t = go_tables__new();
	struct cp_go_proc want;
	struct go_labels *gl;
	struct fake_proc fp;
	int fd;

	(void)state;
	assert_non_null(t);
	if (!fake_proc(&fp, "go_labels_s", go_maps)) {
		go_tables__free(t);
		cp_skip("no Go fixture (go missing when the fixtures were built)");
	}
	fd = open(fp.app, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(go_labels__from_fd(NULL, fd, &want), 0);
	close(fd);
	gl = go_labels__new(fp.ps, t, &ops);
	assert_non_null(gl);

	/* held before exec: BPF counts generation 0, the entry is for 1 */
	assert_int_equal(go_labels__command(gl, 42, fp.app), 0);
	assert_int_equal(b.sets, 1);
	assert_int_equal(b.set_pid, 42);
	assert_int_equal(b.set.gen, 1);
	assert_int_equal(b.set.tls_slot, want.tls_slot);
	assert_int_equal(b.set.g_labels, want.g_labels);
	assert_int_equal(b.set.layout, want.layout);

	/* the execve sample's request, read while exec has not reached its tracepoint */
	assert_int_equal(proc_snapshot__take(fp.ps, 42, 0), 0);
	assert_int_equal(go_labels__loaded(gl, 42, 0), -ESTALE);
	/* ... or once it has */
	b.gen = 1;
	assert_int_equal(go_labels__loaded(gl, 42, 0), -ESTALE);
	assert_int_equal(b.sets, 1);
	assert_int_equal(b.set.gen, 1);

	/* the request of the running generation */
	assert_int_equal(proc_snapshot__take(fp.ps, 42, 1), 0);
	assert_int_equal(go_labels__loaded(gl, 42, 1), 0);
	assert_int_equal(b.sets, 2);
	assert_int_equal(b.set.gen, 1);
	assert_int_equal(b.set.g_m, want.g_m);
	assert_int_equal(b.set.m_curg, want.m_curg);

	/* a process BPF has no entry of: exec starts generation 0 */
	b.pid = 0;
	assert_int_equal(go_labels__command(gl, 43, fp.app), 0);
	assert_int_equal(b.set_pid, 43);
	assert_int_equal(b.set.gen, 0);
	go_labels__free(gl);
	go_tables__free(t);
	fake_proc_free(&fp);
}

/* A program that is not Go (C, ET_EXEC at 0x401000): no entry, and its table not read. */
static void test_entry_not_go(void **state)
{
	struct fake_bpf b = {.pid = 42, .gen = 0};
	const struct go_labels_ops ops = {&b, fake_set, fake_gen};
	struct go_tables *t = go_tables__new();
	struct go_labels *gl;
	struct fake_proc fp;
	size_t files, go;

	(void)state;
	assert_true(
		fake_proc(&fp, "fix_nopie", "00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n"));
	gl = go_labels__new(fp.ps, t, &ops);
	assert_non_null(gl);
	assert_int_equal(proc_snapshot__take(fp.ps, 42, 0), 0);
	assert_int_equal(go_labels__loaded(gl, 42, 0), -ENOENT);
	assert_int_equal(go_labels__loaded(gl, 42, 5), -ESTALE); /* not the running generation */
	assert_int_equal(go_labels__command(gl, 42, fp.app), -ENOENT);
	assert_int_equal(go_labels__command(gl, 42, "/nonexistent/app"), -ENOENT);
	assert_int_equal(b.sets, 0);
	/* the snapshot knows it is no Go program: only the command's read looked at it */
	go_tables__counts(t, &files, &go);
	assert_int_equal(files, 1);
	assert_int_equal(go, 0);
	go_labels__free(gl);
	go_tables__free(t);
	fake_proc_free(&fp);
}

/*
 * One read of the Go table for the command's entry, its mapping's entry and its unwind table:
 * the unwind table built from the shared read has the rows of one built from its own.
 */
static void test_one_read(void **state)
{
	struct fake_bpf b = {.pid = 42, .gen = 0};
	const struct go_labels_ops ops = {&b, fake_set, fake_gen};
	struct go_tables *t = go_tables__new();
	const struct cp_unwind_row *r1, *r2;
	struct unwind_table *own, *shared;
	const struct gopclntab *g1, *g2;
	size_t files, go, n1, n2;
	struct go_labels *gl;
	struct fake_proc fp;
	int fd;

	(void)state;
	if (!fake_proc(&fp, "go_labels_s", go_maps)) {
		go_tables__free(t);
		cp_skip("no Go fixture (go missing when the fixtures were built)");
	}
	gl = go_labels__new(fp.ps, t, &ops);
	assert_non_null(gl);
	assert_int_equal(go_labels__command(gl, 42, fp.app), 0);
	b.gen = 1;
	assert_int_equal(proc_snapshot__take(fp.ps, 42, 1), 0);
	assert_int_equal(go_labels__loaded(gl, 42, 1), 0);
	fd = open(fp.app, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	shared = unwind_table__from_fd_go(fd, t);
	own = unwind_table__from_fd(fd);
	assert_non_null(shared);
	assert_non_null(own);
	go_tables__counts(t, &files, &go);
	assert_int_equal(files, 1);
	assert_int_equal(go, 1);
	/* every call hands out the one table */
	assert_int_equal(go_tables__get(t, fd, &g1), 0);
	assert_int_equal(go_tables__get(t, fd, &g2), 0);
	assert_ptr_equal(g1, g2);
	/* held: no trim takes it; given back, it stays 8 trims (a program run again soon) */
	for (int i = 0; i < 10; i++)
		assert_int_equal(go_tables__trim(t), 0);
	go_tables__put(t, g1);
	go_tables__put(t, g2);
	for (int i = 0; i < 8; i++)
		assert_int_equal(go_tables__trim(t), 0);
	assert_int_equal(go_tables__trim(t), 1);
	go_tables__counts(t, &files, &go);
	assert_int_equal(go, 0);
	/* read again when asked again */
	assert_int_equal(go_tables__get(t, fd, &g1), 0);
	assert_non_null(g1);
	go_tables__counts(t, &files, &go);
	assert_int_equal(files, 1);
	assert_int_equal(go, 1);
	go_tables__put(t, g1);
	close(fd);
	r1 = unwind_table__rows(own, &n1);
	r2 = unwind_table__rows(shared, &n2);
	assert_true(n1 > 1000);
	assert_int_equal(n1, n2);
	assert_memory_equal(r1, r2, n1 * sizeof(*r1));
	unwind_table__free(own);
	unwind_table__free(shared);
	go_labels__free(gl);
	go_tables__free(t);
	fake_proc_free(&fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),	     cmocka_unit_test(test_slice),
		cmocka_unit_test(test_none),	     cmocka_unit_test(test_entry_generations),
		cmocka_unit_test(test_entry_not_go), cmocka_unit_test(test_one_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
