// SPDX-License-Identifier: GPL-2.0
/*
 * aggregate.c with a fake drain: hand-made counts, stacks and DWARF-walked stacks, named by a
 * real symbolizer on a fake procfs (process 42: fix_nopie as generation 0, inl_fix after an
 * exec as generation 1) and the kallsyms fixture. Every test checks the exact stacks that land
 * in the profile: frames root first, their kinds, pseudo-frames, counts and the drain's stats.
 */
#include <inttypes.h>
#include <regex.h>
#include "cmocka_inc.h"
#include "python_shared.h"
#include "ruby_shared.h"
#include "proc/proc_snapshot.h"
#include "profile/aggregate.h"

#define PID  42
#define COMM "fix_tree"
/* a second process of inl_fix (the same file), loaded at another address */
#define PID2  77
#define BASE2 0x7f0000000000ull

/* kernel addresses of tests/data/kallsyms_basic.txt */
#define K_START_KERNEL 0xffffffff81001000ull /* x86_64_start_kernel */
#define K_VFS_READ     0xffffffff81a3c2d0ull
#define K_VFS_WRITE    0xffffffff81a3c4f0ull /* right after vfs_read */

/* ---- the fake drain ------------------------------------------------------------------------ */

struct fake_count {
	struct cp_count_key key;
	uint64_t count;
};

struct fake_stack {
	bool kernel;
	int32_t id;
	size_t n;
	uint64_t ips[CP_MAX_STACK_DEPTH];
};

struct fake_dstack {
	uint64_t key;
	struct cp_dstack ds;
};

struct fake_rtstack {
	uint64_t key;
	struct cp_rt_stack st;
};

struct fake_labels {
	uint64_t key;
	struct cp_go_labels v;
};

struct fake {
	struct fake_labels labels[2];
	size_t n_labels;
	struct fake_rtstack rtstacks[2];
	size_t n_rtstacks;
	struct fake_count counts[600];
	size_t n_counts;
	struct fake_stack stacks[8];
	size_t n_stacks;
	struct fake_dstack dstacks[16];
	size_t n_dstacks;
	size_t fail_after;	 /* count() fails with -EIO at this count; 0: never */
	unsigned int reads[600]; /* count() calls per count */
};

static size_t fake_n_counts(void *ctx)
{
	return ((const struct fake *)ctx)->n_counts;
}

static int fake_count(void *ctx, size_t i, const struct cp_count_key **key, uint64_t *count)
{
	struct fake *f = ctx;

	f->reads[i]++;
	if (f->fail_after && i == f->fail_after)
		return -EIO;
	*key = &f->counts[i].key;
	*count = f->counts[i].count;
	return 0;
}

static int fake_stack(void *ctx, bool kernel, int32_t id, const uint64_t **ips, size_t *n)
{
	const struct fake *f = ctx;

	*n = 0;
	for (size_t i = 0; i < f->n_stacks; i++) {
		const struct fake_stack *s = &f->stacks[i];

		if (s->kernel == kernel && s->id == id) {
			*ips = s->ips;
			*n = s->n;
			return 0;
		}
	}
	return -ENOENT;
}

static int fake_dwarf_stack(void *ctx, uint64_t key, const uint64_t **ips, size_t *n, uint32_t *end)
{
	const struct fake *f = ctx;

	for (size_t i = 0; i < f->n_dstacks; i++) {
		if (f->dstacks[i].key == key) {
			*ips = (const uint64_t *)f->dstacks[i].ds.ips;
			*n = f->dstacks[i].ds.len;
			*end = f->dstacks[i].ds.end;
			return 0;
		}
	}
	return -ENOENT;
}

static int fake_rt_stack(void *ctx, uint64_t key, struct cp_rt_stack *out)
{
	const struct fake *f = ctx;

	for (size_t i = 0; i < f->n_rtstacks; i++) {
		if (f->rtstacks[i].key == key) {
			*out = f->rtstacks[i].st;
			return 0;
		}
	}
	return -ENOENT;
}

static int fake_labels(void *ctx, uint64_t key, const struct cp_go_labels **out)
{
	const struct fake *f = ctx;

	for (size_t i = 0; i < f->n_labels; i++) {
		if (f->labels[i].key == key) {
			*out = &f->labels[i].v;
			return 0;
		}
	}
	return -ENOENT;
}

static struct fake fk;
static struct profile *prof;

/* A count of n samples of process (pid, gen) named comm; the key, for more fields. */
static struct cp_count_key *add_count(uint32_t pid, uint32_t gen, int32_t ustack, int32_t kstack,
				      const char *comm, uint64_t n)
{
	struct fake_count *c;

	assert_true(fk.n_counts < sizeof(fk.counts) / sizeof(fk.counts[0]));
	c = &fk.counts[fk.n_counts++];
	memset(c, 0, sizeof(*c));
	c->key.pid = pid;
	c->key.gen = gen;
	c->key.ustack_id = ustack;
	c->key.kstack_id = kstack;
	memcpy(c->key.comm, comm, strnlen(comm, CP_COMM_LEN));
	c->count = n;
	return &c->key;
}

/* Stack id of the kernel or user stack map: n frames, leaf first. */
static void add_stack(bool kernel, int32_t id, size_t n, const uint64_t *ips)
{
	struct fake_stack *s;

	assert_true(fk.n_stacks < sizeof(fk.stacks) / sizeof(fk.stacks[0]));
	assert_true(n <= CP_MAX_STACK_DEPTH);
	s = &fk.stacks[fk.n_stacks++];
	s->kernel = kernel;
	s->id = id;
	s->n = n;
	memcpy(s->ips, ips, n * sizeof(*ips));
}

/* A DWARF-walked stack under key: n frames, leaf first, ended by end. */
static void add_dstack(uint64_t key, uint32_t end, size_t n, const uint64_t *ips)
{
	struct fake_dstack *d;

	assert_true(fk.n_dstacks < sizeof(fk.dstacks) / sizeof(fk.dstacks[0]));
	d = &fk.dstacks[fk.n_dstacks++];
	memset(d, 0, sizeof(*d));
	d->key = key;
	d->ds.len = (uint32_t)n;
	d->ds.end = end;
	memcpy(d->ds.ips, ips, n * sizeof(*ips));
}

/* Drain the fake into prof; the stats. */
/* The fake drain: the counts and stacks of fk. */
static const struct drain fake_drain = {
	.ctx = &fk,
	.n_counts = fake_n_counts,
	.count = fake_count,
	.stack = fake_stack,
	.dwarf_stack = fake_dwarf_stack,
	.rt_stack = fake_rt_stack,
	.labels = fake_labels,
};

static struct aggregate_stats run(struct symbolizer *sy, const struct aggregate_opts *o)
{
	struct aggregate_stats st;

	memset(&st, 0xff, sizeof(st));
	assert_int_equal(aggregate_counts(&fake_drain, sy, o, prof, &st), 0);
	return st;
}

static const struct prof_sample *sample(size_t i)
{
	const struct prof_sample *s = profile__sample(prof, i);

	assert_non_null(s);
	return s;
}

/* The frame names of sample i, root first, joined by ';'. */
static const char *names(size_t i)
{
	static char buf[8192];
	const struct prof_sample *s = sample(i);
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t j = 0; j < s->nframes; j++) {
		int n = snprintf(buf + len, sizeof(buf) - len, "%s%s", j ? ";" : "",
				 profile__frame(prof, s->frames[j])->name);

		assert_true(n > 0 && (size_t)n < sizeof(buf) - len);
		len += (size_t)n;
	}
	return buf;
}

/* The frame kinds of sample i, root first: U user, K kernel, P pseudo; i inlined (user). */
static const char *kinds(size_t i)
{
	static char buf[1024];
	const struct prof_sample *s = sample(i);
	uint32_t j;

	assert_true(s->nframes < sizeof(buf));
	for (j = 0; j < s->nframes; j++) {
		const struct prof_frame *f = profile__frame(prof, s->frames[j]);

		buf[j] = f->kind == FRAME_PSEUDO   ? 'P'
			 : f->kind == FRAME_KERNEL ? 'K'
			 : f->kind == FRAME_PYTHON ? 'Y'
			 : f->kind == FRAME_RUBY   ? 'R'
						   : 'U';
		if (f->inlined)
			buf[j] = 'i';
	}
	buf[j] = 0;
	return buf;
}

static const struct prof_frame *frame_of(size_t i, uint32_t j)
{
	const struct prof_sample *s = sample(i);

	assert_true(j < s->nframes);
	return profile__frame(prof, s->frames[j]);
}

/* ---- the symbolizer on fixtures ----------------------------------------------------------- */

/* Addresses of process 42, from nm (independently of the code under test). */
static struct {
	/* generation 0: fix_nopie, mapped at its link address */
	uint64_t start, main, run, heavy, leaf;
	/* generation 1: inl_fix, mapped at 0x400000 */
	uint64_t inl_start, inl_main, inl_local, inl_at; /* inl_at: leaf <- mid <- outer */
	char gen0_at_inl_local[256]; /* the function of fix_nopie at inl_local */
} ad;

static char procfs[] = "/tmp/cpuprof-agg.XXXXXX";
static struct symbolizer *sym;
static struct proc_snapshot *snap; /* the mappings sym names from */

/* Value (and size) of symbol name of fixture file, from nm -S. */
static uint64_t nm_sym(const char *file, const char *name, uint64_t *size)
{
	char path[4096], line[512], sname[256], type;
	unsigned long v = 0, s = 0, found = 0;
	FILE *p;

	fixture(path, sizeof(path), file);
	p = tool_output("nm -S %s", path);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %lx %c %255s", &v, &s, &type, sname) == 4 &&
		    !strcmp(sname, name)) {
			found = v;
			if (size)
				*size = s;
		}
	tool_done(p);
	assert_true(found != 0);
	return found;
}

/* The function of fixture file (linked at its load address) that holds addr, from nm -S. */
static void nm_at(const char *file, uint64_t addr, char *out, size_t len)
{
	char path[4096], line[512], sname[256], type;
	unsigned long v, s;
	FILE *p;

	fixture(path, sizeof(path), file);
	p = tool_output("nm -S %s", path);
	out[0] = 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %lx %c %255s", &v, &s, &type, sname) == 4 &&
		    (type == 't' || type == 'T') && v <= addr && addr < v + s)
			snprintf(out, len, "%s", sname);
	tool_done(p);
	assert_true(out[0] != 0);
}

static void write_pid_maps(int pid, const char *text)
{
	char path[4096];
	FILE *m;

	snprintf(path, sizeof(path), "%s/%d/maps", procfs, pid);
	m = fopen(path, "w");
	assert_non_null(m);
	fputs(text, m);
	fclose(m);
}

static void write_maps(const char *text)
{
	write_pid_maps(PID, text);
}

/*
 * The one place that builds the symbolizer: a fake procfs where process 42 ran fix_nopie
 * (generation 0), then exec'ed inl_fix (generation 1) at the same addresses; kernel names from
 * kallsyms_basic.txt.
 */
static struct symbolizer *fixture_symbolizer(void)
{
	char fix[4096], cmd[8192];
	struct symbolizer *sy;
	FILE *k;

	assert_non_null(mkdtemp(procfs));
	fixture(fix, sizeof(fix), "fix_nopie");
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%d/root/opt && cp %s %s/%d/root/opt/app", procfs,
		 PID, fix, procfs, PID);
	assert_int_equal(system(cmd), 0);
	fixture(fix, sizeof(fix), "inl_fix");
	snprintf(cmd, sizeof(cmd), "cp %s %s/%d/root/opt/inl", fix, procfs, PID);
	assert_int_equal(system(cmd), 0);
	snap = proc_snapshot__new(procfs);
	assert_non_null(snap);
	sy = symbolizer__new(snap);
	assert_non_null(sy);
	/* fix_nopie is ET_EXEC: its text at its link address, 0x401000, offset 0x1000 */
	write_maps("00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n");
	assert_int_equal(proc_snapshot__take(snap, PID, 0), 0);
	/* inl_fix is a PIE: mapped from offset 0 at 0x400000, so its addresses are 0x400000 + nm */
	write_maps("00400000-00403000 r-xp 00000000 08:01 78 /opt/inl\n");
	assert_int_equal(proc_snapshot__take(snap, PID, 1), 0);
	/* PID2 ran inl_fix too, the same file (its root is PID's), loaded at BASE2 */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%d && ln -s ../%d/root %s/%d/root", procfs, PID2,
		 PID, procfs, PID2);
	assert_int_equal(system(cmd), 0);
	write_pid_maps(PID2, "7f0000000000-7f0000003000 r-xp 00000000 08:01 78 /opt/inl\n");
	assert_int_equal(proc_snapshot__take(snap, PID2, 0), 0);
	k = open_data("kallsyms_basic.txt");
	assert_int_equal(symbolizer__load_kallsyms(sy, k), 0);
	fclose(k);
	return sy;
}

static int group_setup(void **state)
{
	struct sym_frame f[8];
	uint64_t size = 0, outer;
	size_t n = 0;

	(void)state;
	ad.start = nm_sym("fix_nopie", "_start", NULL);
	ad.main = nm_sym("fix_nopie", "main", NULL);
	ad.run = nm_sym("fix_nopie", "cp_fix_run", NULL);
	ad.heavy = nm_sym("fix_nopie", "cp_fix_heavy", NULL);
	ad.leaf = nm_sym("fix_nopie", "cp_fix_leaf", &size);
	/* a return address at cp_fix_heavy's first byte is a call at cp_fix_leaf's end */
	assert_int_equal(ad.leaf + size, ad.heavy);
	ad.inl_start = 0x400000 + nm_sym("inl_fix", "_start", NULL);
	ad.inl_main = 0x400000 + nm_sym("inl_fix", "main", NULL);
	ad.inl_local = 0x400000 + nm_sym("inl_fix", "cp_inl_local", NULL);
	nm_at("fix_nopie", ad.inl_local + 2, ad.gen0_at_inl_local, sizeof(ad.gen0_at_inl_local));
	assert_string_not_equal(ad.gen0_at_inl_local, "cp_inl_local");
	sym = fixture_symbolizer();
	/* the first address of cp_inl_outer where cp_inl_leaf is inlined through cp_inl_mid */
	outer = 0x400000 + nm_sym("inl_fix", "cp_inl_outer", &size);
	for (ad.inl_at = outer; ad.inl_at < outer + size; ad.inl_at++) {
		assert_int_equal(symbolizer__user_chain(sym, PID, 1, ad.inl_at, true, f, 8, &n), 0);
		if (n == 3)
			break;
	}
	assert_int_equal(n, 3);
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[4200];

	(void)state;
	symbolizer__free(sym);
	proc_snapshot__free(snap);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", procfs);
	return system(cmd) == 0 ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	prof = profile__new();
	return prof ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	profile__free(prof);
	prof = NULL;
	return 0;
}

static const struct aggregate_opts defaults = {.max_depth = CP_MAX_STACK_DEPTH};

/* ---- tests ------------------------------------------------------------------------------- */

/*
 * A user stack (frame pointers) from _start to the leaf, joined at its leaf by the kernel stack
 * the sample was taken in; the same stacks under another stack id merge into one sample.
 */
static void test_user_kernel_join(void **state)
{
	const uint64_t u[] = {ad.leaf + 4, ad.heavy + 8, ad.run + 0x10, ad.main + 0x20,
			      ad.start + 0x10};
	/* vfs_write's first byte: as the leaf vfs_write, as a return address the call in vfs_read
	 */
	const uint64_t k[] = {K_VFS_WRITE, K_VFS_WRITE, K_START_KERNEL + 0x10};
	struct cp_count_key *key;
	struct aggregate_stats st;
	const struct prof_frame *f;

	(void)state;
	add_stack(false, 1, 5, u);
	add_stack(true, 1, 3, k);
	add_stack(false, 2, 5, u);
	key = add_count(PID, 0, 1, 1, COMM, 3);
	key->tid = 43;
	memcpy(key->tcomm, "worker", 6);
	key = add_count(PID, 0, 2, 1, COMM, 4);
	key->tid = 43;
	memcpy(key->tcomm, "worker", 6);
	st = run(sym, &defaults);

	assert_int_equal(profile__n_samples(prof), 1);
	assert_string_equal(names(0), "_start;main;cp_fix_run;cp_fix_heavy;cp_fix_leaf;"
				      "x86_64_start_kernel;vfs_read;vfs_write");
	assert_string_equal(kinds(0), "UUUUUKKK");
	assert_int_equal(sample(0)->count, 7);
	assert_int_equal(sample(0)->pid, PID);
	assert_int_equal(sample(0)->tid, 43);
	assert_string_equal(sample(0)->comm, COMM);
	assert_string_equal(sample(0)->thread, "worker");
	/* each frame keeps its own address; the user frames map in the process, the kernel in 0 */
	f = frame_of(0, 4);
	assert_int_equal(f->addr, ad.leaf + 4);
	assert_int_not_equal(f->mapping, 0);
	assert_int_equal(profile__mapping(prof, f->mapping - 1)->pid, PID);
	assert_int_equal(profile__mapping(prof, f->mapping - 1)->kind, PMAP_FILE);
	f = frame_of(0, 7);
	assert_int_equal(f->addr, K_VFS_WRITE);
	assert_int_not_equal(f->mapping, 0);
	assert_int_equal(profile__mapping(prof, f->mapping - 1)->pid, 0);
	assert_int_equal(profile__mapping(prof, f->mapping - 1)->kind, PMAP_KERNEL);
	assert_int_equal(st.ustacks, 7);
	assert_int_equal(st.ustacks_entry, 7); /* outermost frame _start: complete */
	assert_int_equal(st.stacks_missing, 0);
	assert_int_equal(st.comm_filtered, 0);
}

/* Only the leaf is named at its own address; callers at the return address - 1. */
static void test_leaf_and_callers(void **state)
{
	const uint64_t u[] = {ad.heavy, ad.heavy, ad.main + 0x20};
	struct aggregate_stats st;

	(void)state;
	add_stack(false, 1, 3, u);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 1);
	st = run(sym, &defaults);
	assert_string_equal(names(0), "main;cp_fix_leaf;cp_fix_heavy");
	assert_string_equal(kinds(0), "UUU");
	assert_int_equal(frame_of(0, 1)->addr, ad.heavy);
	assert_int_equal(frame_of(0, 2)->addr, ad.heavy);
	assert_int_equal(st.ustacks, 1);
	assert_int_equal(st.ustacks_entry, 0); /* main is no entry point */
}

/* A stack as deep as the kernel keeps was possibly cut: a marker at its root, not complete. */
static void test_truncated_at_max_depth(void **state)
{
	const uint64_t u3[] = {ad.leaf + 4, ad.heavy + 8, ad.start + 0x10};
	const uint64_t k3[] = {K_VFS_WRITE, K_VFS_WRITE, K_START_KERNEL + 0x10};
	const struct aggregate_opts o = {.max_depth = 3};
	struct aggregate_stats st;

	(void)state;
	add_stack(false, 1, 3, u3); /* as deep as max_depth */
	add_stack(false, 2, 2, u3); /* one frame less: whole */
	add_stack(true, 1, 3, k3);
	add_stack(true, 2, 2, k3);
	add_count(PID, 0, 1, 2, COMM, 1);
	add_count(PID, 0, 2, 1, COMM, 2);
	add_count(PID, 0, 2, 2, COMM, 4);
	st = run(sym, &o);

	assert_int_equal(profile__n_samples(prof), 3);
	assert_string_equal(
		names(0),
		"[user stack truncated];_start;cp_fix_heavy;cp_fix_leaf;vfs_read;vfs_write");
	assert_string_equal(kinds(0), "PUUUKK");
	assert_string_equal(names(1), "cp_fix_heavy;cp_fix_leaf;[kernel stack truncated];"
				      "x86_64_start_kernel;vfs_read;vfs_write");
	assert_string_equal(kinds(1), "UUPKKK");
	assert_string_equal(names(2), "cp_fix_heavy;cp_fix_leaf;vfs_read;vfs_write");
	assert_int_equal(st.ustacks, 7);
	/* the truncated stack ends in _start, but its outermost callers may be lost */
	assert_int_equal(st.ustacks_entry, 0);
}

/*
 * A return address outside the process's executable mappings (a frame-pointer walk that read
 * something else, here the bytes of "https://") ends the stack there, in both kinds of
 * stacks; a leaf outside them (a sample in execve) leaves only the marker.
 */
static void test_bad_return_address(void **state)
{
	const uint64_t u[] = {ad.leaf + 4, ad.heavy + 8, 0x2f2f3a7370747468ull, ad.main + 0x20,
			      ad.start + 0x10};
	const uint64_t leaf_only[] = {0x1234, ad.heavy + 8, ad.start + 0x10};
	struct aggregate_stats st;

	(void)state;
	add_stack(false, 1, 5, u);
	add_stack(false, 2, 3, leaf_only);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 3);
	add_count(PID, 0, 2, CP_STACK_NONE, COMM, 4);
	add_dstack(7, CP_DEND_OK, 5, u);
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 5)->dstack = 7;
	st = run(sym, &defaults);

	/* the two stacks cut alike are one in the profile */
	assert_int_equal(profile__n_samples(prof), 2);
	assert_string_equal(names(0), "[truncated: bad return address];cp_fix_heavy;cp_fix_leaf");
	assert_string_equal(kinds(0), "PUU");
	assert_int_equal(sample(0)->count, 3 + 5);
	/* a leaf outside the mappings: nothing is left but the marker */
	assert_string_equal(names(1), "[truncated: pc outside the mappings]");
	assert_string_equal(kinds(1), "P");
	assert_int_equal(st.bad_ra, 3 + 4 + 5);
	assert_int_equal(st.ustacks, 12);
	assert_int_equal(st.ustacks_entry, 0);
}

/* A stack id that is an error, or whose stack cannot be read back: one pseudo-frame. */
static void test_stacks_lost(void **state)
{
	const uint64_t k[] = {K_VFS_WRITE};
	const int32_t errs[] = {-EEXIST, -ENOMEM, -EFAULT, -ENOENT, -EINVAL};
	static const char *const why[] = {"hash collision", "stack map full", "unreadable",
					  "missing", "error"};
	char want[128];
	struct aggregate_stats st;
	size_t i;

	(void)state;
	add_stack(true, 1, 1, k);
	add_stack(false, 3, 0, k); /* an empty stack */
	for (i = 0; i < 5; i++)
		add_count(PID, 0, errs[i], 1, COMM, 1);
	for (i = 0; i < 5; i++)
		add_count(PID, 0, CP_STACK_NONE, errs[i], COMM, 10);
	add_count(PID, 0, 7, 1, COMM, 100);  /* a user stack id the map does not hold */
	add_count(PID, 0, 3, 1, COMM, 1000); /* an empty user stack */
	add_count(PID, 0, CP_STACK_NONE, 9, COMM, 10000); /* a kernel stack id the map lacks */
	st = run(sym, &defaults);

	assert_int_equal(profile__n_samples(prof), 10);
	for (i = 0; i < 5; i++) {
		snprintf(want, sizeof(want), "[user stack lost: %s];vfs_write", why[i]);
		assert_string_equal(names(i), want);
		assert_string_equal(kinds(i), "PK");
		snprintf(want, sizeof(want), "[kernel stack lost: %s]", why[i]);
		assert_string_equal(names(5 + i), want);
		assert_string_equal(kinds(5 + i), "P");
	}
	/* ids >= 0 that could not be read back are missing; they merge with -ENOENT's samples */
	assert_int_equal(sample(3)->count, 1 + 100 + 1000);
	assert_int_equal(sample(8)->count, 10 + 10000);
	assert_int_equal(st.stacks_missing, 100 + 1000 + 10000);
	/* a lost user stack is a user stack all the same */
	assert_int_equal(st.ustacks, 5 + 100 + 1000);
	assert_int_equal(st.ustacks_entry, 0);
}

/* --unwind dwarf: a walked stack, CP_IP_EXACT frames named as they are. */
static void test_dwarf_stack(void **state)
{
	/* a signal frame: the interrupted pc, exact, in the middle of the stack */
	const uint64_t u[] = {ad.leaf + 4, ad.heavy | CP_IP_EXACT, ad.heavy, ad.main + 0x20,
			      ad.start + 0x10};
	const uint64_t k[] = {K_VFS_WRITE};
	struct cp_count_key *key;
	struct aggregate_stats st;

	(void)state;
	add_dstack(0xabcdef, CP_DEND_OK, 5, u);
	add_stack(true, 1, 1, k);
	key = add_count(PID, 0, CP_STACK_DWARF, 1, COMM, 5);
	key->dstack = 0xabcdef;
	st = run(sym, &defaults);

	assert_string_equal(names(0), "_start;main;cp_fix_leaf;cp_fix_heavy;cp_fix_leaf;vfs_write");
	assert_string_equal(kinds(0), "UUUUUK");
	assert_int_equal(frame_of(0, 3)->addr, ad.heavy); /* the marker bit is not an address */
	assert_int_equal(st.ustacks, 5);
	assert_int_equal(st.ustacks_entry, 5);
	assert_int_equal(st.stacks_missing, 0);
}

/* The interpreters' processes (PID generation 0), per runtime; NULL: none. */
static struct cp_py_proc fake_pp;
static struct cp_rb_proc fake_rp;
static const void *fake_procs[CP_RT_MAX];

static const void *fake_rt_proc(void *ctx, uint32_t id, uint32_t pid, uint32_t gen)
{
	(void)ctx;
	return pid == PID && gen == 0 && id < CP_RT_MAX ? fake_procs[id] : NULL;
}

/* Frames named: Python's code objects 0x1000, 0x2000, Ruby's 0x5000 (iseq), 0x6000 (cfunc). */
static int fake_rt_name(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
			const struct rt_frame_info **out)
{
	static struct rt_frame_info outer = {"Outer.run", "/srv/app.py", 10, 12, 0},
				    inner = {"inner", "/srv/lib.py", 3, 7, 0},
				    rb_outer = {"outer", "/srv/app.rb", 20, 22, 0},
				    times = {"times", "", 0, -1, 0};

	(void)ctx;
	if (pid != PID || gen != 0)
		return -ENOENT;
	*out = f->ptr == 0x1000	  ? &outer
	       : f->ptr == 0x2000 ? &inner
	       : f->ptr == 0x5000 ? &rb_outer
	       : f->ptr == 0x6000 ? &times
				  : NULL;
	if (f->ptr == 0x4000)
		return -ESRCH; /* its process ended, and BPF copied nothing */
	return *out ? 0 : -EINVAL;
}

/*
 * Python frames take the place of the eval loop's frame (here cp_fix_heavy stands for it): the
 * activation's frames from the innermost up to the entry frame, root first, with file, line
 * and start line; a code object that cannot be named is py::[unknown], counted per reason.
 * Without --python (no rt_proc), the native stack as it is.
 */
static void test_python_frames(void **state)
{
	const uint64_t u[] = {ad.leaf + 4, ad.heavy + 8, ad.main + 0x20, ad.start + 0x10};
	struct aggregate_opts o = {
		.max_depth = CP_MAX_STACK_DEPTH, .rt_proc = fake_rt_proc, .rt_name = fake_rt_name};
	struct fake_rtstack *ps = &fk.rtstacks[0];
	const struct prof_frame *f;
	struct aggregate_stats st;

	(void)state;
	memset(fake_procs, 0, sizeof(fake_procs));
	fake_procs[CP_RT_PYTHON] = &fake_pp;
	fake_pp.eval_start = ad.heavy;
	fake_pp.eval_end = ad.heavy + 0x20;
	ps->key = 77;
	ps->st.len = 4;
	ps->st.frames[0] = (struct cp_rt_frame){.ptr = 0x2000, .kind = CP_PY_FRAME_CODE};
	ps->st.frames[1] = (struct cp_rt_frame){.ptr = 0x3000, .kind = CP_PY_FRAME_CODE};
	ps->st.frames[2] = (struct cp_rt_frame){.ptr = 0x4000, .kind = CP_PY_FRAME_CODE};
	ps->st.frames[3] = (struct cp_rt_frame){
		.ptr = 0x1000, .kind = CP_PY_FRAME_CODE, .flags = CP_RT_FF_ENTRY};
	fk.n_rtstacks = 1;
	add_dstack(5, CP_DEND_OK, 4, u);
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 3)->dstack = 5;
	fk.counts[0].key.istack = 77;
	fk.counts[0].key.istack_kind = CP_RT_PYTHON;
	st = run(sym, &o);

	assert_string_equal(names(0), "_start;main;py::Outer.run;py::[unknown];py::[unknown];"
				      "py::inner;cp_fix_leaf");
	assert_string_equal(kinds(0), "UUYYYYU");
	f = frame_of(0, 2);
	assert_string_equal(f->file, "/srv/app.py");
	assert_int_equal(f->line, 12);
	assert_int_equal(f->start_line, 10);
	/* no address: the same function in another process is the same frame */
	assert_int_equal(f->addr, 0);
	assert_int_equal(frame_of(0, 5)->line, 7);
	assert_int_equal(st.rt_stacks[CP_RT_PYTHON], 3);
	assert_int_equal(st.rt_frames[CP_RT_PYTHON], 12);
	assert_int_equal(st.rt_unnamed[CP_RT_PYTHON][RT_UNNAMED_UNREADABLE], 3);
	assert_int_equal(st.rt_unnamed[CP_RT_PYTHON][RT_UNNAMED_GONE], 3);
	assert_int_equal(st.rt_unnamed_samples[CP_RT_PYTHON], 3);
	assert_int_equal(st.ustacks_entry, 3);

	/* --no-python */
	profile__free(prof);
	prof = profile__new();
	assert_non_null(prof);
	st = run(sym, &defaults);
	assert_string_equal(names(0), "_start;main;cp_fix_heavy;cp_fix_leaf");
	assert_int_equal(st.rt_stacks[CP_RT_PYTHON], 0);
}

/*
 * Ruby frames take the place of rb_vm_exec's frame (cp_fix_heavy stands for it) up to the
 * FINISH-flagged one, root first: a method with file, line and start line, a C method without
 * a file, a frame that cannot be named rb::[unknown]. A stack under another runtime's kind is
 * not taken for a Ruby one. Without --ruby, the native stack as it is.
 */
static void test_ruby_frames(void **state)
{
	const uint64_t u[] = {ad.leaf + 4, ad.heavy + 8, ad.main + 0x20, ad.start + 0x10};
	struct aggregate_opts o = {
		.max_depth = CP_MAX_STACK_DEPTH, .rt_proc = fake_rt_proc, .rt_name = fake_rt_name};
	struct fake_rtstack *rs = &fk.rtstacks[0];
	const struct prof_frame *f;
	struct aggregate_stats st;

	(void)state;
	memset(fake_procs, 0, sizeof(fake_procs));
	fake_procs[CP_RT_RUBY] = &fake_rp;
	fake_rp.vm_exec_start = ad.heavy;
	fake_rp.vm_exec_end = ad.heavy + 0x20;
	rs->key = 78;
	rs->st.len = 3;
	rs->st.frames[0] = (struct cp_rt_frame){.ptr = 0x6000, .kind = CP_RB_FRAME_CFUNC};
	rs->st.frames[1] = (struct cp_rt_frame){.ptr = 0x3000, .kind = CP_RB_FRAME_ISEQ};
	rs->st.frames[2] = (struct cp_rt_frame){
		.ptr = 0x5000, .pos = 4, .kind = CP_RB_FRAME_ISEQ, .flags = CP_RT_FF_ENTRY};
	fk.n_rtstacks = 1;
	add_dstack(5, CP_DEND_OK, 4, u);
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 3)->dstack = 5;
	fk.counts[0].key.istack = 78;
	fk.counts[0].key.istack_kind = CP_RT_RUBY;
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, "other", 2)->dstack = 5;
	fk.counts[1].key.istack = 78;
	fk.counts[1].key.istack_kind = CP_RT_PYTHON;
	st = run(sym, &o);

	assert_int_equal(profile__n_samples(prof), 2);
	assert_string_equal(names(0), "_start;main;rb::outer;rb::[unknown];rb::times;cp_fix_leaf");
	assert_string_equal(kinds(0), "UURRRU");
	f = frame_of(0, 2);
	assert_string_equal(f->file, "/srv/app.rb");
	assert_int_equal(f->line, 22);
	assert_int_equal(f->start_line, 20);
	assert_int_equal(f->addr, 0); /* as a Python frame's */
	assert_null(frame_of(0, 4)->file);
	assert_string_equal(names(1), "_start;main;cp_fix_heavy;cp_fix_leaf");
	assert_int_equal(st.rt_stacks[CP_RT_RUBY], 3);
	assert_int_equal(st.rt_stacks[CP_RT_PYTHON], 0);
	assert_int_equal(st.ustacks_entry, 5);

	/* --no-ruby */
	profile__free(prof);
	prof = profile__new();
	assert_non_null(prof);
	st = run(sym, &defaults);
	assert_string_equal(names(0), "_start;main;cp_fix_heavy;cp_fix_leaf");
	assert_int_equal(st.rt_stacks[CP_RT_RUBY], 0);
}

/* How a DWARF walk ended, at the root of its stack; a stack that cannot be read: lost. */
static void test_dwarf_ends(void **state)
{
	static const char *const why[] = {
		[CP_DEND_TRUNCATED] = "[truncated]",
		[CP_DEND_NO_MAPPING] = "[unwind-failed: no mapping]",
		[CP_DEND_NOT_COVERED] = "[unwind-failed: no unwind info]",
		[CP_DEND_UNSUPPORTED] = "[unwind-failed: unsupported rule]",
		[CP_DEND_READ] = "[unwind-failed: stack unreadable]",
		[CP_DEND_LOOP] = "[unwind-failed: loop]",
		[CP_DEND_BAD_FP] = "[truncated: bad frame pointer]",
		[CP_DEND_BAD_RA] = "[truncated: bad return address]",
		[CP_DEND_MAX] = "[unwind-failed: unknown]",
	};
	const uint64_t u[] = {ad.leaf + 4, ad.heavy + 8, ad.start + 0x10};
	char want[256];
	struct aggregate_stats st;
	uint32_t end;

	(void)state;
	for (end = CP_DEND_TRUNCATED; end <= CP_DEND_MAX; end++) {
		add_dstack(end, end, 3, u);
		add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 1)->dstack = end;
	}
	add_dstack(100, CP_DEND_OK, 0, u); /* an empty stack */
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 10)->dstack = 100;
	add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 100)->dstack = 101; /* no stack */
	st = run(sym, &defaults);

	assert_int_equal(profile__n_samples(prof), CP_DEND_MAX + 1);
	for (end = CP_DEND_TRUNCATED; end <= CP_DEND_MAX; end++) {
		snprintf(want, sizeof(want), "%s;_start;cp_fix_heavy;cp_fix_leaf", why[end]);
		assert_string_equal(names(end - 1), want);
		assert_string_equal(kinds(end - 1), "PUUU");
	}
	assert_string_equal(names(CP_DEND_MAX), "[user stack lost: missing]");
	assert_string_equal(kinds(CP_DEND_MAX), "P");
	assert_int_equal(sample(CP_DEND_MAX)->count, 110);
	assert_int_equal(st.stacks_missing, 110);
	assert_int_equal(st.ustacks, CP_DEND_MAX + 110);
	/* a walk that ended early is not complete, even when it reached _start */
	assert_int_equal(st.ustacks_entry, 0);
}

/* The leaf in an inlined function: its inline chain, root first, at one address. */
static void test_inlined_leaf(void **state)
{
	const uint64_t u[] = {ad.inl_at, ad.inl_main + 0x10, ad.inl_start + 0x10};
	struct aggregate_stats st;

	(void)state;
	add_stack(false, 1, 3, u);
	add_count(PID, 1, 1, CP_STACK_NONE, "inl_fix", 2);
	st = run(sym, &defaults);

	assert_string_equal(names(0), "_start;main;cp_inl_outer;cp_inl_mid;cp_inl_leaf");
	assert_string_equal(kinds(0), "UUUii");
	for (uint32_t j = 2; j < 5; j++) {
		/* the object's own address: inl_fix is a PIE mapped at 0x400000 */
		assert_int_equal(frame_of(0, j)->addr, ad.inl_at - 0x400000);
		assert_true(frame_of(0, j)->line > 0);
	}
	assert_int_equal(st.ustacks_entry, 2);
}

/*
 * Hurried (a second Ctrl-C) before the first step: names from the symbol table only, one
 * frame, and counted. The caller hurries between steps: nothing calls it back.
 */
static void test_hurry(void **state)
{
	const uint64_t u[] = {ad.inl_at, ad.inl_main + 0x10, ad.inl_start + 0x10};
	struct aggregate_stats st;
	struct aggregate *g;

	(void)state;
	add_stack(false, 1, 3, u);
	add_count(PID, 1, 1, CP_STACK_NONE, "inl_fix", 2);
	assert_int_equal(aggregate_begin(&fake_drain, sym, &defaults, prof, &g), 0);
	assert_false(aggregate_hurried(g));
	aggregate_hurry(g);
	assert_true(aggregate_hurried(g));
	assert_int_equal(aggregate_step(g), 0);
	aggregate_end(g, &st);

	/* the inlined chain of test_inlined_leaf collapses to the function that holds it */
	assert_string_equal(names(0), "_start;main;cp_inl_outer");
	assert_string_equal(kinds(0), "UUU");
	assert_int_equal(st.hurried, 3);
}

/*
 * Steps: a few hundred counts at a time, so the caller runs its loop between them; every
 * count is added once whatever the steps, --comm asked once per count (not once to name
 * ahead and again to add), and an end before the last step frees what was begun.
 */
static void test_steps(void **state)
{
	static struct fake big;
	struct aggregate_opts o = defaults;
	struct drain d = fake_drain;
	struct aggregate_stats st;
	struct aggregate *g;
	regex_t re;
	int steps = 0, rc;

	(void)state;
	d.ctx = &big;
	assert_int_equal(regcomp(&re, "^kept", REG_EXTENDED | REG_NOSUB), 0);
	o.comm_re = &re;
	big.n_counts = 600; /* COUNT_CHUNK (256) counts a step */
	for (size_t i = 0; i < big.n_counts; i++) {
		big.counts[i].key.pid = PID;
		big.counts[i].key.tid = PID;
		big.counts[i].key.ustack_id = -EEXIST;
		big.counts[i].key.kstack_id = CP_STACK_NONE;
		memcpy(big.counts[i].key.comm, i % 2 ? "kept" : "left", 4);
		big.counts[i].count = 1;
	}
	assert_int_equal(aggregate_begin(&d, sym, &o, prof, &g), 0);
	do {
		rc = aggregate_step(g);
		steps++;
	} while (rc > 0);
	assert_int_equal(rc, 0);
	aggregate_end(g, &st);
	assert_int_equal(steps, 3);
	assert_int_equal(profile__total(prof), 300);
	assert_int_equal(st.comm_filtered, 300);
	assert_int_equal(st.comm_checks, 600);
	for (size_t i = 0; i < big.n_counts; i++)
		assert_int_equal(big.reads[i], 2); /* noted, then added: no other pass */
	/* ended before its steps: nothing added, nothing leaked (the sanitizer build checks) */
	assert_int_equal(aggregate_begin(&d, sym, &o, prof, &g), 0);
	aggregate_end(g, NULL);
	assert_int_equal(profile__total(prof), 300);
	regfree(&re);
}

/* The key's generation selects the snapshot, for both unwinders: one address, three names. */
static void test_exec_generations(void **state)
{
	const uint64_t u[] = {ad.inl_local + 2};
	/* without a snapshot no address is known to be code */
	const char *unknown = "[truncated: pc outside the mappings]";

	(void)state;
	add_stack(false, 1, 1, u);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 1);
	add_count(PID, 1, 1, CP_STACK_NONE, "inl_fix", 2);
	add_count(PID, 2, 1, CP_STACK_NONE, "inl_fix", 4);  /* no snapshot of generation 2 */
	add_count(PID + 1, 0, 1, CP_STACK_NONE, COMM, 8);   /* nor of process 43 */
	add_count(PID, 0, 1, CP_STACK_NONE, "renamed", 16); /* generation 0 again */
	add_dstack(7, CP_DEND_OK, 1, u);
	add_count(PID, 1, CP_STACK_DWARF, CP_STACK_NONE, "walked", 32)->dstack = 7;
	run(sym, &defaults);

	assert_int_equal(profile__n_samples(prof), 6);
	assert_string_equal(names(0), ad.gen0_at_inl_local);
	assert_string_equal(names(1), "cp_inl_local");
	assert_string_equal(names(2), unknown);
	assert_string_equal(names(3), unknown);
	assert_int_equal(sample(3)->pid, PID + 1);
	assert_string_equal(names(4), ad.gen0_at_inl_local);
	assert_string_equal(sample(4)->comm, "renamed");
	assert_string_equal(names(5), "cp_inl_local");
}

/* No frame at all: why, by the options. */
static void test_no_frames(void **state)
{
	const uint64_t u[] = {ad.leaf + 4};
	const struct aggregate_opts kernel_only = {.kernel_only = true,
						   .max_depth = CP_MAX_STACK_DEPTH};
	const struct aggregate_opts no_kernel = {.no_kernel = true,
						 .max_depth = CP_MAX_STACK_DEPTH};
	const char *want[] = {"[no stack]", "[user space]", "[kernel]"};
	const struct aggregate_opts *o[] = {&defaults, &kernel_only, &no_kernel};

	(void)state;
	add_stack(false, 1, 1, u);
	add_count(PID, 0, CP_STACK_NONE, CP_STACK_NONE, COMM, 1);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 2); /* frames: no pseudo-frame */
	for (int i = 0; i < 3; i++) {
		struct aggregate_stats st = run(sym, o[i]);

		assert_int_equal(profile__n_samples(prof), 2);
		assert_string_equal(names(0), want[i]);
		assert_string_equal(kinds(0), "P");
		assert_string_equal(names(1), "cp_fix_leaf");
		assert_int_equal(st.ustacks, 2);
		profile__free(prof);
		prof = profile__new();
		assert_non_null(prof);
	}
}

/* The idle task: pid 0, a kernel stack only. */
static void test_idle(void **state)
{
	const uint64_t k[] = {K_VFS_READ + 8, K_START_KERNEL + 0x10};
	struct aggregate_stats st;

	(void)state;
	add_stack(true, 5, 2, k);
	add_count(0, 0, CP_STACK_NONE, 5, "swapper/0", 9);
	st = run(sym, &defaults);
	assert_int_equal(profile__n_samples(prof), 1);
	assert_string_equal(names(0), "x86_64_start_kernel;vfs_read");
	assert_string_equal(kinds(0), "KK");
	assert_int_equal(sample(0)->pid, 0);
	assert_string_equal(sample(0)->comm, "swapper/0");
	assert_int_equal(st.ustacks, 0);
}

/* --comm: the process name at sample time, all CP_COMM_LEN bytes of it, decides. */
static void test_comm_filter(void **state)
{
	struct aggregate_opts oc = {.max_depth = CP_MAX_STACK_DEPTH};
	struct aggregate_stats st;
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "^(fix_tree|abcdefghijklmnop)$", REG_EXTENDED | REG_NOSUB),
			 0);
	oc.comm_re = &re;
	add_count(PID, 0, CP_STACK_NONE, CP_STACK_NONE, "bash", 1);
	add_count(PID, 0, CP_STACK_NONE, CP_STACK_NONE, COMM, 2);
	add_count(PID, 0, CP_STACK_NONE, CP_STACK_NONE, "abcdefghijklmnop", 4); /* not terminated */
	add_count(PID, 0, CP_STACK_NONE, CP_STACK_NONE, "fix", 8);
	st = run(sym, &oc);
	regfree(&re);

	assert_int_equal(profile__n_samples(prof), 2);
	assert_string_equal(sample(0)->comm, COMM);
	assert_string_equal(sample(1)->comm, "abcdefghijklmnop");
	assert_int_equal(profile__total(prof), 6);
	assert_int_equal(st.comm_filtered, 9);
}

/* The stack of test_inlined_leaf in process (pid, gen) loaded at base, stack id id. */
static void add_inl_stack(int32_t id, uint64_t base)
{
	const uint64_t u[] = {ad.inl_at, ad.inl_main + 0x10, ad.inl_start + 0x10};
	uint64_t v[3];

	for (int i = 0; i < 3; i++)
		v[i] = u[i] - 0x400000 + base;
	add_stack(false, id, 3, v);
}

/*
 * Two processes of one program at different load addresses (ASLR): their frames are the
 * object's, named once, so the same stack is the same frames; each process keeps its sample.
 */
static void test_object_frames_shared(void **state)
{
	const struct prof_sample *a, *b;
	const struct prof_mapping *m;

	(void)state;
	add_inl_stack(1, 0x400000);
	add_inl_stack(2, BASE2);
	add_count(PID, 1, 1, CP_STACK_NONE, "inl_fix", 2);
	add_count(PID2, 0, 2, CP_STACK_NONE, "inl_fix", 3);
	run(sym, &defaults);

	assert_int_equal(profile__n_samples(prof), 2);
	a = sample(0);
	b = sample(1);
	assert_int_equal(a->pid, PID);
	assert_int_equal(b->pid, PID2);
	assert_string_equal(names(1), "_start;main;cp_inl_outer;cp_inl_mid;cp_inl_leaf");
	assert_int_equal(a->nframes, 5);
	assert_int_equal(b->nframes, 5);
	assert_memory_equal(a->frames, b->frames, 5 * sizeof(*a->frames));
	assert_int_equal(profile__n_frames(prof), 5);
	/* in the object's addresses: its mapping from vaddr 0, as in both processes */
	assert_int_equal(frame_of(1, 4)->addr, ad.inl_at - 0x400000);
	m = profile__mapping(prof, frame_of(1, 4)->mapping - 1);
	assert_int_equal(m->start, 0);
	assert_int_equal(m->limit, 0x3000);
	assert_int_equal(m->pid, PID); /* the first process that mapped the file */
	assert_int_equal(profile__n_mappings(prof), 1);
}

/*
 * The names of a program's addresses are kept across drains: a later drain of another of its
 * processes adds no frame and no name; a full cache starts again and names the same.
 */
static void test_name_cache(void **state)
{
	struct name_cache *nc = name_cache__new(64), *tiny = name_cache__new(2);
	struct aggregate_opts o = defaults;
	size_t n_names, n_frames;

	(void)state;
	assert_non_null(nc);
	assert_non_null(tiny);
	o.cache = nc;
	add_inl_stack(1, 0x400000);
	add_count(PID, 1, 1, CP_STACK_NONE, "inl_fix", 2);
	run(sym, &o);
	n_names = name_cache__n(nc);
	n_frames = profile__n_frames(prof);
	assert_int_equal(n_names, 3); /* one per address */
	assert_int_equal(n_frames, 5);

	memset(&fk, 0, sizeof(fk));
	add_inl_stack(1, BASE2);
	add_count(PID2, 0, 1, CP_STACK_NONE, "inl_fix", 3);
	run(sym, &o);
	assert_int_equal(name_cache__n(nc), n_names);
	assert_int_equal(profile__n_frames(prof), n_frames);
	assert_int_equal(name_cache__resets(nc), 0);
	assert_memory_equal(sample(0)->frames, sample(1)->frames, 5 * sizeof(uint32_t));

	/* two addresses at most: it starts again, and the names are the same */
	o.cache = tiny;
	run(sym, &o);
	assert_true(name_cache__resets(tiny) > 0);
	assert_true(name_cache__n(tiny) <= 2);
	assert_int_equal(profile__n_samples(prof), 2);
	assert_int_equal(sample(1)->count, 6);
	assert_int_equal(profile__n_frames(prof), n_frames);
	name_cache__free(nc);
	name_cache__free(tiny);
}

/* The counts of a few processes of two programs, with kernel stacks, into a new profile. */
static struct profile *record_jobs(unsigned int jobs)
{
	const uint64_t a[] = {ad.leaf + 4, ad.heavy + 8, ad.run + 0x10, ad.main + 0x20,
			      ad.start + 0x10};
	const uint64_t b[] = {ad.heavy + 8, ad.run + 0x10, ad.main + 0x20, ad.start + 0x10};
	const uint64_t k[] = {K_VFS_WRITE, K_VFS_WRITE, K_START_KERNEL + 0x10};
	struct aggregate_opts o = defaults;
	struct name_cache *nc = name_cache__new(1024);
	struct profile *saved = prof, *out;

	assert_non_null(nc);
	o.cache = nc;
	o.jobs = jobs;
	memset(&fk, 0, sizeof(fk));
	add_stack(false, 1, 5, a);
	add_stack(false, 2, 4, b);
	add_inl_stack(3, 0x400000);
	add_inl_stack(4, BASE2);
	add_stack(true, 1, 3, k);
	add_count(PID, 0, 1, 1, COMM, 3);
	add_count(PID, 0, 2, CP_STACK_NONE, COMM, 5);
	add_count(PID, 1, 3, 1, "inl_fix", 7);
	add_count(PID2, 0, 4, CP_STACK_NONE, "inl_fix", 11);
	add_count(PID2, 0, 3, CP_STACK_NONE, "inl_fix", 13); /* not its mappings: cut */
	prof = profile__new();
	assert_non_null(prof);
	run(sym, &o);
	out = prof;
	prof = saved;
	name_cache__free(nc);
	return out;
}

/* The profile does not depend on the number of threads naming: frame for frame, id for id. */
static void test_jobs_deterministic(void **state)
{
	struct profile *one = record_jobs(1), *three = record_jobs(3);

	(void)state;
	assert_int_equal(profile__n_samples(one), profile__n_samples(three));
	assert_int_equal(profile__n_frames(one), profile__n_frames(three));
	assert_int_equal(profile__n_mappings(one), profile__n_mappings(three));
	assert_true(profile__n_samples(one) >= 4);
	for (size_t i = 0; i < profile__n_samples(one); i++) {
		const struct prof_sample *x = profile__sample(one, i),
					 *y = profile__sample(three, i);

		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->count, y->count);
		assert_int_equal(x->nframes, y->nframes);
		assert_memory_equal(x->frames, y->frames, x->nframes * sizeof(*x->frames));
	}
	for (uint32_t j = 0; j < profile__n_frames(one); j++) {
		const struct prof_frame *f = profile__frame(one, j), *g = profile__frame(three, j);

		assert_string_equal(f->name, g->name);
		assert_int_equal(f->addr, g->addr);
		assert_int_equal(f->line, g->line);
		assert_int_equal(f->inlined, g->inlined);
		assert_int_equal(f->mapping, g->mapping);
	}
	profile__free(one);
	profile__free(three);
}

/* An error of the drain ends the walk and is returned, with the stats so far. */
static void test_drain_error(void **state)
{
	struct aggregate_stats st;

	(void)state;
	add_count(PID, 0, -EEXIST, CP_STACK_NONE, COMM, 3);
	add_count(PID, 0, -EEXIST, CP_STACK_NONE, COMM, 5);
	fk.fail_after = 1;
	assert_int_equal(aggregate_counts(&fake_drain, sym, &defaults, prof, &st), -EIO);
	assert_int_equal(profile__total(prof), 3);
	assert_int_equal(st.ustacks, 3);
}

/*
 * Goroutine labels: a count's label set (golabels, under the key's labels) becomes the sample's
 * labels in labelset form (sorted, escaped, cut ones marked "..."); equal stacks with different
 * labels are apart, the same labels in another order are one set; a set gone is counted lost
 * and the sample kept without labels.
 */
static void test_labels(void **state)
{
	const uint64_t a[] = {ad.leaf + 4, ad.heavy + 8, ad.run + 0x10, ad.main + 0x20,
			      ad.start + 0x10};
	char longval[CP_GO_LABEL_VAL + 10];
	struct cp_go_labels *l;
	struct aggregate_stats st;
	struct cp_count_key *key;

	(void)state;
	add_stack(false, 1, 5, a);
	fk.labels[0].key = 11;
	l = &fk.labels[0].v;
	l->n = 2;
	strcpy(l->l[0].key, "trace_id");
	strcpy(l->l[0].val, "4bf92f3577b34da6a3ce929d0e0e4736");
	strcpy(l->l[1].key, "a,b");
	strcpy(l->l[1].val, "x=y;z");
	fk.labels[1].key = 12;
	l = &fk.labels[1].v;
	l->n = 1;
	l->cut = 1;
	memset(longval, 'v', sizeof(longval));
	memcpy(l->l[0].key, "span_id", 8);
	memcpy(l->l[0].val, longval, CP_GO_LABEL_VAL - 1);
	fk.n_labels = 2;
	key = add_count(PID, 0, 1, CP_STACK_NONE, COMM, 3);
	key->labels = 11;
	key = add_count(PID, 0, 1, CP_STACK_NONE, COMM, 4);
	key->labels = 12;
	key = add_count(PID, 0, 1, CP_STACK_NONE, COMM, 5);
	key->labels = 13; /* gone */
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 6);
	st = run(sym, &defaults);
	assert_int_equal(st.labeled, 7);
	assert_int_equal(st.labels_lost, 5);
	/* the lost set's samples and the unlabeled ones are one sample */
	assert_int_equal(profile__n_samples(prof), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct prof_sample *s = sample(i);

		assert_string_equal(names(i), "_start;main;cp_fix_run;cp_fix_heavy;cp_fix_leaf");
		if (s->count == 3)
			assert_string_equal(s->labels, "a%2Cb=x%3Dy%3Bz,"
						       "trace_id=4bf92f3577b34da6a3ce929d0e0e4736");
		else if (s->count == 4)
			assert_true(!strncmp(s->labels, "span_id=vvvv", 12) &&
				    strlen(s->labels) == 8 + CP_GO_LABEL_VAL - 1 + 3 &&
				    !strcmp(s->labels + strlen(s->labels) - 4, "v..."));
		else
			assert_int_equal(s->count, 11), assert_string_equal(s->labels, "");
	}
}

/*
 * Drains while recording: each set of maps is named into the same profile, then cleared, so a
 * stack id or DWARF key of one drain may stand for another stack in the next. Equal named
 * stacks of several drains are one sample whose counts add up; stack ids never leak from one
 * drain into the next; the stats of the drains add up with aggregate_stats_add.
 */
static void test_drains_merge(void **state)
{
	const uint64_t a[] = {ad.leaf + 4, ad.heavy + 8, ad.run + 0x10, ad.main + 0x20,
			      ad.start + 0x10};
	const uint64_t b[] = {ad.leaf + 4, ad.run + 0x10, ad.main + 0x20, ad.start + 0x10};
	const char *const sa = "_start;main;cp_fix_run;cp_fix_heavy;cp_fix_leaf";
	const char *const sb = "_start;main;cp_fix_run;cp_fix_leaf";
	struct aggregate_stats st, sum;
	struct cp_count_key *key;
	size_t ia, ib;

	(void)state;
	memset(&sum, 0, sizeof(sum));
	/* drain 1: id 1 is a, DWARF key 7 is b, and a count of another process's name */
	add_stack(false, 1, 5, a);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 3);
	add_dstack(7, CP_DEND_OK, 4, b);
	key = add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 2);
	key->dstack = 7;
	st = run(sym, &defaults);
	aggregate_stats_add(&sum, &st);
	assert_int_equal(profile__n_samples(prof), 2);
	assert_int_equal(profile__total(prof), 5);

	/* drain 2, the set cleared: id 1 is now b, id 2 is a; DWARF key 7 is gone, 9 is a */
	memset(&fk, 0, sizeof(fk));
	add_stack(false, 1, 4, b);
	add_stack(false, 2, 5, a);
	add_count(PID, 0, 1, CP_STACK_NONE, COMM, 5);
	add_count(PID, 0, 2, CP_STACK_NONE, COMM, 4);
	add_dstack(9, CP_DEND_OK, 5, a);
	key = add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 1);
	key->dstack = 9;
	/* a key of drain 1 whose stack was cleared with its set: lost, and counted so */
	key = add_count(PID, 0, CP_STACK_DWARF, CP_STACK_NONE, COMM, 6);
	key->dstack = 7;
	st = run(sym, &defaults);
	assert_int_equal(st.ustacks, 16);
	assert_int_equal(st.stacks_missing, 6);
	aggregate_stats_add(&sum, &st);

	/* drain 3: nothing was sampled */
	memset(&fk, 0, sizeof(fk));
	st = run(sym, &defaults);
	aggregate_stats_add(&sum, &st);

	assert_int_equal(profile__n_samples(prof), 3);
	ia = !strcmp(names(0), sa) ? 0 : !strcmp(names(1), sa) ? 1 : 2;
	ib = !strcmp(names(0), sb) ? 0 : !strcmp(names(1), sb) ? 1 : 2;
	assert_string_equal(names(ia), sa);
	assert_string_equal(names(ib), sb);
	assert_int_equal(sample(ia)->count, 3 + 4 + 1);
	assert_int_equal(sample(ib)->count, 2 + 5);
	assert_string_equal(names(3 - ia - ib), "[user stack lost: missing]");
	assert_int_equal(sample(3 - ia - ib)->count, 6);
	assert_int_equal(profile__total(prof), 21);
	assert_int_equal(sum.ustacks, 21);
	assert_int_equal(sum.ustacks_entry, 15);
	assert_int_equal(sum.stacks_missing, 6);
	assert_int_equal(sum.comm_filtered, 0);
	assert_int_equal(sum.hurried, 0);
}

/* aggregate_stats_add adds every field (a field left out would be lost after a drain). */
static void test_stats_add(void **state)
{
	struct aggregate_stats
		to = {1,
		      2,
		      3,
		      4,
		      5,
		      6,
		      {0},
		      {0},
		      {0},
		      {{0}},
		      {0},
		      {0},
		      9,
		      7,
		      8,
		      3,
		      {{7, "node", 3, 0}, {0, "", 0, 0}, {0, "", 0, 0}, {0, "", 0, 0}}},
		from = {10,
			20,
			30,
			40,
			50,
			60,
			{0},
			{0},
			{0},
			{{0}},
			{0},
			{0},
			90,
			70,
			80,
			9,
			{{8, "java", 4, 0}, {7, "node", 5, 2}, {0, "", 0, 0}, {0, "", 0, 0}}};

	(void)state;
	/* the initializers above fill every field: a new field must be added there and here */
	_Static_assert(sizeof(struct aggregate_stats) ==
			       (10 + CP_STAT_MAX + CP_RT_MAX * (4 + RT_UNNAMED_MAX)) *
					       sizeof(uint64_t) +
				       AGG_ANON_PROCS * sizeof(struct agg_anon_proc),
		       "fields");
	_Static_assert(sizeof(struct agg_anon_proc) == 40, "agg_anon_proc fields");
	for (int i = 0; i < CP_RT_MAX; i++) {
		to.rt_stacks[i] = 77;
		from.rt_frames[i] = 88;
		to.rt_glue[i] = 1;
		from.rt_glue[i] = 2;
		from.rt_unnamed_samples[i] = 5;
		for (int j = 0; j < RT_UNNAMED_MAX; j++)
			from.rt_unnamed[i][j] = (uint64_t)j;
	}
	for (int i = 0; i < CP_STAT_MAX; i++) {
		to.kept[i] = (uint64_t)i;
		from.kept[i] = 100;
	}
	aggregate_stats_add(&to, &from);
	assert_int_equal(to.comm_filtered, 11);
	assert_int_equal(to.stacks_missing, 22);
	assert_int_equal(to.ustacks, 33);
	assert_int_equal(to.ustacks_entry, 44);
	assert_int_equal(to.hurried, 55);
	assert_int_equal(to.bad_ra, 66);
	assert_int_equal(to.comm_checks, 99);
	assert_int_equal(to.labeled, 77);
	assert_int_equal(to.labels_lost, 88);
	/* the processes by pid (9 samples from has beyond its two kept ones stay counted) */
	assert_int_equal(to.anon_samples, 12);
	assert_int_equal(to.anon[0].pid, 7);
	assert_int_equal(to.anon[0].samples, 3 + 5);
	assert_int_equal(to.anon[0].walked, 2);
	assert_int_equal(to.anon[1].pid, 8);
	assert_string_equal(to.anon[1].comm, "java");
	assert_int_equal(to.anon[1].samples, 4);
	for (int i = 0; i < CP_STAT_MAX; i++)
		assert_int_equal(to.kept[i], 100 + i);
	for (int i = 0; i < CP_RT_MAX; i++) {
		assert_int_equal(to.rt_stacks[i], 77);
		assert_int_equal(to.rt_frames[i], 88);
		assert_int_equal(to.rt_glue[i], 3);
		assert_int_equal(to.rt_unnamed_samples[i], 5);
		for (int j = 0; j < RT_UNNAMED_MAX; j++)
			assert_int_equal(to.rt_unnamed[i][j], j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_user_kernel_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaf_and_callers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_at_max_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_return_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stacks_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dwarf_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_python_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ruby_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dwarf_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inlined_leaf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hurry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_generations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_object_frames_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drains_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_add, setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
