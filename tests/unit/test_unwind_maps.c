// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_maps on this test's own process: tables built before attach, laid out in a row store
 * whose chunks a fake holds, the budget of --max-unwind-memory (the largest tables left out,
 * before attach and after), and the mapping table a process gets (bias and row range that find
 * this code's own rows).
 */
#include "cmocka_inc.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "proc/proc_snapshot.h"
#include "unwind/unwind_maps.h"
#include "unwind/unwind_table.h"

#define MAX_PUB 8
#define MAX_OBJ 64

struct sink_state {
	struct cp_unwind_row *chunk[CP_MAX_ROW_CHUNKS]; /* the row store's chunks */
	uint32_t n_chunks;
	size_t n_pub;
	uint32_t pids[MAX_PUB];
	struct cp_unwind_proc procs[MAX_PUB];
	int fail;	/* publish returns this */
	int rows_fail;	/* writing rows returns this */
	int chunk_fail; /* creating a chunk returns this */
	size_t n_put;	/* writes done */
	size_t n_obj;
	struct cp_obj_key obj_keys[MAX_OBJ];
	struct cp_obj_table objs[MAX_OBJ];
};

static int put_object(void *ctx, const struct cp_obj_key *key, const struct cp_obj_table *t)
{
	struct sink_state *s = ctx;

	assert_true(s->n_obj < MAX_OBJ);
	s->obj_keys[s->n_obj] = *key;
	s->objs[s->n_obj++] = *t;
	return 0;
}

/*
 * What the BPF walker computes from a VMA (cp_vma_table): the objtab entry of the file and
 * the mapping's bias from its segment. Fails when there is no entry or segment.
 */
static struct cp_unwind_map objtab_map(const struct sink_state *s, const struct ps_map *m)
{
	struct cp_unwind_map r = {.start = m->start, .end = m->end};
	uint64_t kdev = (uint64_t)major(m->obj->dev) << CP_KDEV_MINOR_BITS | minor(m->obj->dev);

	for (size_t i = 0; i < s->n_obj; i++) {
		const struct cp_obj_table *t = &s->objs[i];

		if (s->obj_keys[i].dev != kdev || s->obj_keys[i].ino != m->obj->ino)
			continue;
		for (uint32_t j = 0; j < t->n_segs; j++) {
			if (m->offset >= t->segs[j].start && m->offset < t->segs[j].end) {
				r.bias = m->start - (m->offset + t->segs[j].delta) + t->base;
				r.first_row = t->first_row;
				r.n_rows = t->n_rows;
				return r;
			}
		}
	}
	fail_msg("no objtab entry for %s", m->path);
	abort();
}

static int publish(void *ctx, uint32_t pid, const struct cp_unwind_proc *up)
{
	struct sink_state *s = ctx;

	if (s->fail)
		return s->fail;
	assert_true(s->n_pub < MAX_PUB);
	s->pids[s->n_pub] = pid;
	s->procs[s->n_pub++] = *up;
	return 0;
}

static int add_chunks(void *ctx, uint32_t first, uint32_t n)
{
	struct sink_state *s = ctx;

	if (s->chunk_fail)
		return s->chunk_fail;
	assert_int_equal(first, s->n_chunks);
	for (uint32_t i = first; i < first + n; i++) {
		s->chunk[i] = calloc(CP_ROW_CHUNK_ROWS, sizeof(struct cp_unwind_row));
		assert_non_null(s->chunk[i]);
	}
	s->n_chunks = first + n;
	return 0;
}

static int write_rows(void *ctx, uint32_t i, uint32_t off, const struct cp_unwind_row *rows,
		      uint32_t n)
{
	struct sink_state *s = ctx;

	if (s->rows_fail)
		return s->rows_fail;
	assert_true(i < s->n_chunks && off < CP_ROW_CHUNK_ROWS && n <= CP_ROW_CHUNK_ROWS - off);
	memcpy(&s->chunk[i][off], rows, n * sizeof(*rows));
	s->n_put++;
	return 0;
}

/* Row i of the store, where the BPF walker reads it. */
static const struct cp_unwind_row *row(const struct sink_state *s, uint32_t i)
{
	assert_true(i >> CP_ROW_CHUNK_SHIFT < s->n_chunks);
	return &s->chunk[i >> CP_ROW_CHUNK_SHIFT][i & (CP_ROW_CHUNK_ROWS - 1)];
}

/* Rows [first, first + n) of the store equal want[0, n). */
static void assert_rows(const struct sink_state *s, uint32_t first,
			const struct cp_unwind_row *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_memory_equal(row(s, first + (uint32_t)i), &want[i], sizeof(*want));
}

static struct unwind_sink make_sink(struct sink_state *s)
{
	memset(s, 0, sizeof(*s));
	return (struct unwind_sink){
		.rows = {.add_chunks = add_chunks, .write = write_rows, .ctx = s},
		.publish = publish,
		.put_object = put_object,
		.ctx = s,
	};
}

static void free_sink(struct sink_state *s)
{
	for (uint32_t i = 0; i < s->n_chunks; i++)
		free(s->chunk[i]);
}

static struct proc_snapshot *self_snapshot(void)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");

	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)getpid(), 0), 0);
	return ps;
}

/* The mapping of p that holds addr; fails when none does. */
static const struct cp_unwind_map *find_map(const struct cp_unwind_proc *p, uint64_t addr)
{
	for (uint32_t i = 0; i < p->n_maps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	fail_msg("no mapping holds 0x%llx", (unsigned long long)addr);
	abort();
}

/* The table rows of the file of this test program, built directly. */
static struct unwind_table *own_table(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct unwind_table *ut;

	assert_true(fd >= 0);
	ut = unwind_table__from_fd(fd);
	close(fd);
	assert_non_null(ut);
	return ut;
}

static void test_attach_and_lookup(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct unwind_maps_stats st;
	struct sink_state ss;
	struct unwind_sink sink;
	const struct cp_unwind_map *m;
	const struct cp_unwind_row *want, *rows;
	struct unwind_table *ut = own_table();
	uint64_t pc = (uint64_t)(uintptr_t)&test_attach_and_lookup + 4, rel;
	uint32_t lo, hi;
	size_t n;

	(void)state;
	assert_non_null(um);
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	/* a second snapshot before attach replaces the first: one table per process */
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, &st);
	/* this program, libc, ld.so and the libraries it links at least */
	assert_true(st.objects >= 3);
	assert_int_equal(st.rows, unwind_maps__rows(um));
	assert_int_equal(st.rows_cap, 1u << 22);
	assert_int_equal(st.chunks, 0);

	sink = make_sink(&ss);
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	assert_int_equal(ss.n_pub, 1);
	assert_int_equal(ss.pids[0], (uint32_t)getpid());
	assert_int_equal(ss.procs[0].gen, 0);
	for (uint32_t i = 1; i < ss.procs[0].n_maps; i++)
		assert_true(ss.procs[0].maps[i].start >= ss.procs[0].maps[i - 1].end);
	unwind_maps__stats(um, &st);
	/* the store grew to what the tables take, not to the cap */
	assert_int_equal(st.chunks, (st.rows + CP_ROW_CHUNK_ROWS - 1) / CP_ROW_CHUNK_ROWS);
	assert_int_equal(st.chunks, ss.n_chunks);
	assert_int_equal(st.objects_dropped, 0);
	assert_int_equal(st.procs, 1);

	/* the vDSO has no file, and a table all the same (built from cpuprof's own copy) */
	m = find_map(&ss.procs[0], getauxval(AT_SYSINFO_EHDR));
	assert_true(m->n_rows > 0);
	assert_int_equal(m->bias, getauxval(AT_SYSINFO_EHDR) - m->start + m->bias);

	/* the row the BPF walker would find for this function is the table's own */
	m = find_map(&ss.procs[0], pc);
	assert_true(m->n_rows > 0);
	assert_true(m->first_row + m->n_rows <= unwind_maps__rows(um));
	rows = unwind_table__rows(ut, &n);
	assert_int_equal(m->n_rows, n);
	assert_rows(&ss, m->first_row, rows, n);
	rel = pc - m->bias;
	lo = m->first_row;
	hi = m->first_row + m->n_rows;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (row(&ss, mid)->pc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	want = unwind_table__lookup(ut, rel + unwind_table__base(ut));
	assert_non_null(want);
	assert_memory_equal(row(&ss, lo), want, sizeof(*want));

	/* the walker's own lookup by file (objtab) gives the same bias and rows */
	{
		const struct ps_map *pm = proc_snapshot__find(ps, (uint32_t)getpid(), 0, pc);
		struct cp_unwind_map om;

		assert_non_null(pm);
		assert_int_equal(pm->kind, PS_MAP_FILE);
		om = objtab_map(&ss, pm);
		assert_int_equal(om.bias, m->bias);
		assert_int_equal(om.first_row, m->first_row);
		assert_int_equal(om.n_rows, m->n_rows);
	}

	unwind_table__free(ut);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

/* The budget in rows of all but the largest table of this process, and what it built. */
static uint32_t all_but_largest(struct proc_snapshot *ps, struct unwind_maps_stats *all)
{
	struct unwind_maps *um = unwind_maps__new(1u << 22);

	assert_non_null(um);
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, all);
	unwind_maps__free(um);
	assert_true(all->objects >= 3);
	return (uint32_t)(all->rows - all->largest_rows);
}

/*
 * Before attach, a budget too small for all: the largest table is the one left out, whatever
 * the order the tables were built in (a later small table pushes out a larger one).
 */
static void test_budget_leaves_out_largest(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps_stats all, st;
	uint32_t budget = all_but_largest(ps, &all);
	struct unwind_maps *um = unwind_maps__new(budget);
	struct sink_state ss;
	struct unwind_sink sink;
	size_t with_rows = 0;

	(void)state;
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_full, 1);
	assert_int_equal(st.rows_full, all.largest_rows);
	assert_int_equal(st.largest_full, all.largest_rows);
	assert_int_equal(st.objects, all.objects - 1);
	assert_int_equal(st.rows, budget);
	sink = make_sink(&ss);
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_dropped, 0);
	assert_int_equal(st.rows, budget);
	/* the left-out object's mapping has no rows (frame pointers); the others keep theirs */
	assert_int_equal(ss.n_pub, 1);
	for (uint32_t i = 0; i < ss.procs[0].n_maps; i++) {
		const struct cp_unwind_map *m = &ss.procs[0].maps[i];

		assert_true(m->n_rows != all.largest_rows);
		assert_true(m->first_row + m->n_rows <= st.rows);
		with_rows += m->n_rows > 0;
	}
	assert_true(with_rows >= 2);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

/*
 * After attach, tables come as processes map them: one that does not fit in the budget left
 * is left out and counted with its rows (the summary asks for that much more), and one that
 * does still goes in.
 */
static void test_budget_after_attach(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_table *ut = own_table();
	struct unwind_maps_stats st;
	struct unwind_maps *um;
	struct sink_state ss;
	struct unwind_sink sink;
	char path[4096];
	size_t own;
	int fd;

	(void)state;
	unwind_table__rows(ut, &own);
	fixture(path, sizeof(path), "fix_tree_nofp");
	/* room for a small fixture's table, not for this test program's */
	um = unwind_maps__new((uint32_t)own - 1);
	assert_non_null(um);
	sink = make_sink(&ss);
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	close(fd);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_full, 1);
	assert_int_equal(st.rows_full, own);
	assert_int_equal(st.largest_full, own);
	assert_int_equal(st.objects, 0);
	assert_int_equal(ss.n_chunks, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	close(fd);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects, 1);
	assert_true(st.rows > 0 && st.rows < own);
	assert_int_equal(st.objects_full, 1);
	assert_int_equal(st.chunks, 1);
	unwind_table__free(ut);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

static void test_budget(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps *um = unwind_maps__new(10);
	struct unwind_maps_stats st;

	(void)state;
	/* every table is larger than 10 rows: all left out, and said so */
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects, 0);
	assert_int_equal(unwind_maps__rows(um), 0);
	assert_true(st.objects_full >= 3);
	assert_true(st.rows_full >= 30);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

static void test_after_attach(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct unwind_maps_stats st;
	struct sink_state ss;
	struct unwind_sink sink;
	struct unwind_table *ut = own_table();
	size_t n;
	int fd;

	(void)state;
	unwind_table__rows(ut, &n);
	sink = make_sink(&ss);
	/* nothing built yet: attach publishes nothing, and allocates nothing */
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	assert_int_equal(ss.n_pub, 0);
	assert_int_equal(ss.n_chunks, 0);
	/* a file added after attach goes straight into the store, once */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	close(fd);
	assert_int_equal(unwind_maps__rows(um), n);
	assert_rows(&ss, 0, unwind_table__rows(ut, &n), n);
	assert_int_equal(ss.n_chunks, 1);
	/* a process added after attach is published at once, reusing that table */
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	assert_int_equal(ss.n_pub, 1);
	assert_int_equal(find_map(&ss.procs[0], (uint64_t)(uintptr_t)&test_after_attach)->first_row,
			 0);
	/* a publisher error comes back */
	ss.fail = -E2BIG;
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), -E2BIG);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.procs, 1);
	/* no snapshot of that process */
	assert_int_equal(unwind_maps__add_proc(um, ps, 1, 7), -ENOENT);
	unwind_table__free(ut);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

/*
 * Rows that cannot be written to the row store, or a chunk that cannot be created: the object
 * is left out (frame pointers).
 */
static void test_rows_not_written(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct unwind_maps_stats before, st;
	struct sink_state ss;
	struct unwind_sink sink;
	char path[4096];
	int fd;

	(void)state;
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, &before);
	assert_true(before.objects >= 3);
	sink = make_sink(&ss);
	ss.rows_fail = -ENOMEM;
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_dropped, before.objects);
	assert_int_equal(st.rows_dropped, before.rows);
	assert_int_equal(st.objects, 0);
	assert_int_equal(st.rows, 0);
	assert_int_equal(ss.n_obj, 0);
	assert_int_equal(ss.n_pub, 1);
	for (uint32_t i = 0; i < ss.procs[0].n_maps; i++)
		assert_int_equal(ss.procs[0].maps[i].n_rows, 0);
	/* after attach too: a new file whose rows cannot be written is counted, not placed */
	fixture(path, sizeof(path), "fix_tree_nofp");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	close(fd);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_dropped, before.objects + 1);
	assert_int_equal(st.objects, 0);
	assert_int_equal(unwind_maps__rows(um), 0);
	assert_true(st.rows_dropped > before.rows);
	assert_int_equal(ss.n_put, 0);
	/* the chunk made for the rows that failed takes the next table, from row 0 */
	ss.rows_fail = 0;
	ss.chunk_fail = -ENOMEM;
	fixture(path, sizeof(path), "fix_tree");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_maps__add_file(um, fd), 0);
	close(fd);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_dropped, before.objects + 1);
	assert_int_equal(st.objects, 1);
	assert_int_equal(st.chunks, 1);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

/* No kernel memory for a chunk of the store: the tables are left out, counted as dropped. */
static void test_no_chunk(void **state)
{
	struct proc_snapshot *ps = self_snapshot();
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct unwind_maps_stats before, st;
	struct sink_state ss;
	struct unwind_sink sink;

	(void)state;
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)getpid(), 0), 0);
	unwind_maps__stats(um, &before);
	sink = make_sink(&ss);
	ss.chunk_fail = -ENOMEM;
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects_dropped, before.objects);
	assert_int_equal(st.objects_full, 0);
	assert_int_equal(st.objects, 0);
	assert_int_equal(st.chunks, 0);
	for (uint32_t i = 0; i < ss.procs[0].n_maps; i++)
		assert_int_equal(ss.procs[0].maps[i].n_rows, 0);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

/* Start fixture path for a few seconds; its pid. */
static pid_t spawn(const char *path)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, path, "5", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_shared_by_build_id(void **state)
{
	char orig[4096], copy[] = "/tmp/cpuprof-bid.XXXXXX", cmd[8300];
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct unwind_maps_stats one, two;
	struct sink_state ss;
	struct unwind_sink sink;
	pid_t a, b;
	int fd;

	(void)state;
	fixture(orig, sizeof(orig), "fix_tree_nofp");
	fd = mkstemp(copy);
	assert_true(fd >= 0);
	close(fd);
	/* another inode, the same bytes: the same build-id */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod +x '%s'", orig, copy, copy);
	assert_int_equal(system(cmd), 0);
	a = spawn(orig);
	b = spawn(copy);
	usleep(300000); /* past the dynamic loader */
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)a, 0), 0);
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)b, 0), 0);
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)a, 0), 0);
	unwind_maps__stats(um, &one);
	assert_int_equal(unwind_maps__add_proc(um, ps, (uint32_t)b, 0), 0);
	unwind_maps__stats(um, &two);
	/* the copy's table is the original's: no new object, no new rows */
	assert_int_equal(two.objects, one.objects);
	assert_int_equal(two.rows, one.rows);
	sink = make_sink(&ss);
	assert_int_equal(unwind_maps__attach(um, &sink), 0);
	assert_int_equal(ss.n_pub, 2);
	/* both executables map the same rows (each at its own address) */
	assert_int_equal(ss.procs[0].maps[0].first_row, ss.procs[1].maps[0].first_row);
	assert_int_equal(ss.procs[0].maps[0].n_rows, ss.procs[1].maps[0].n_rows);
	assert_true(ss.procs[0].maps[0].n_rows > 0);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	unlink(copy);
	free_sink(&ss);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_and_lookup),
		cmocka_unit_test(test_budget_leaves_out_largest),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_budget_after_attach),
		cmocka_unit_test(test_after_attach),
		cmocka_unit_test(test_rows_not_written),
		cmocka_unit_test(test_no_chunk),
		cmocka_unit_test(test_shared_by_build_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
