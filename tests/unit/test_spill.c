// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of samples on disk: what goes in comes back in key order, equal keys summed, through
 * merges; a failure leaves the runs as they were; a profile that moves its samples of ended
 * processes to disk writes the same samples as one that keeps them.
 */
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include "cmocka_inc.h"
#include "profile/profile.h"
#include "profile/spill.h"

/* An empty directory of the test's own, removed with what is left in it. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/cpuprof-test-runs.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

/* No file stays in the directory: the runs are unnamed. */
static void rmdir_empty(char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	assert_int_equal(n, 0);
	assert_int_equal(rmdir(d), 0);
	free(d);
}

struct seen {
	struct run_rec recs[4096];
	uint32_t frames[4096][8];
	char comm[4096][16], thread[4096][16], labels[4096][32];
	size_t n;
};

static int collect(void *ctx, const struct run_rec *r)
{
	struct seen *s = ctx;

	assert_true(s->n < 4096);
	assert_true(r->n <= 8);
	snprintf(s->comm[s->n], 16, "%s", r->comm);
	snprintf(s->thread[s->n], 16, "%s", r->thread);
	snprintf(s->labels[s->n], 32, "%s", r->labels);
	if (r->n)
		memcpy(s->frames[s->n], r->frames, r->n * sizeof(uint32_t));
	s->recs[s->n] = (struct run_rec){
		s->comm[s->n], s->thread[s->n], s->labels[s->n], s->frames[s->n], r->n, r->count};
	s->n++;
	return 0;
}

static void test_round_trip(void **state)
{
	static const uint32_t a[] = {1, 2, 3}, b[] = {1, 2, 4}, c[] = {1, 2, 300000, 7}, d[] = {5};
	const struct run_rec recs[] = {
		{"cc1", "", "", NULL, 0, 1}, /* no frames */
		{"cc1", "", "", a, 3, 2},	    {"cc1", "", "", b, 3, 4},
		{"cc1", "", "", c, 4, 3},	    /* a prefix shared, a big id */
		{"cc1", "", "k=v", c, 4, 9},	    /* labels change alone */
		{"cc1", "w", "", a, 3, 5},	    /* thread changes, frames too */
		{"make", "", "", a, 2, 1ull << 40}, /* comm changes, a prefix of the last stack */
		{"make", "", "", d, 1, 6},
	};
	size_t n = sizeof(recs) / sizeof(recs[0]);
	struct seen *s = calloc(1, sizeof(*s));
	char *d_ = tmpdir();
	struct sample_runs *sr = sample_runs__new(d_);

	(void)state;
	assert_non_null(s);
	assert_non_null(sr);
	for (size_t i = 1; i < n; i++)
		assert_true(sample_runs__cmp(&recs[i - 1], &recs[i]) < 0);
	assert_int_equal(sample_runs__add(sr, recs, n), 0);
	assert_int_equal(sample_runs__records(sr), n);
	assert_int_equal(sample_runs__n_runs(sr), 1);
	/* the coding is compact: about 3 bytes a record here */
	assert_true(sample_runs__bytes(sr) < 64);
	assert_int_equal(sample_runs__each(sr, collect, s), 0);
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sample_runs__cmp(&s->recs[i], &recs[i]), 0);
		assert_int_equal(s->recs[i].count, recs[i].count);
	}
	sample_runs__free(sr);
	rmdir_empty(d_);
	free(s);
}

/* Batch k of 100: keys i*k % 997 (a different subset each time), each count k. */
static void batch(struct run_rec *recs, uint32_t (*fr)[2], size_t *n, uint32_t k)
{
	uint32_t keys[100];

	for (uint32_t i = 0; i < 100; i++)
		keys[i] = (i * 37 + k * 101) % 997;
	/* sort, unique */
	for (uint32_t i = 1; i < 100; i++)
		for (uint32_t j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
			uint32_t t = keys[j];

			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	*n = 0;
	for (uint32_t i = 0; i < 100; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		fr[*n][0] = keys[i] / 100;
		fr[*n][1] = keys[i];
		recs[*n] = (struct run_rec){"p", "", "", fr[*n], 2, k};
		(*n)++;
	}
}

/* Many runs: merged as they come (few runs left), every key once, the counts summed. */
static void test_merges(void **state)
{
	uint64_t want[997] = {0}, got[997] = {0}, total = 0, sum = 0;
	struct seen *s = calloc(1, sizeof(*s));
	struct run_rec recs[100];
	uint32_t fr[100][2];
	char *d = tmpdir();
	struct sample_runs *sr = sample_runs__new(d);
	size_t n;

	(void)state;
	assert_non_null(s);
	for (uint32_t k = 1; k <= 200; k++) {
		batch(recs, fr, &n, k);
		for (size_t i = 0; i < n; i++) {
			want[fr[i][1]] += k;
			total += k;
		}
		assert_int_equal(sample_runs__add(sr, recs, n), 0);
		/* sizes at least halve from one run to the next: about log2(200) runs */
		assert_true(sample_runs__n_runs(sr) <= 9);
	}
	assert_int_equal(sample_runs__each(sr, collect, s), 0);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			assert_true(sample_runs__cmp(&s->recs[i - 1], &s->recs[i]) < 0);
		assert_int_equal(s->recs[i].frames[0], s->recs[i].frames[1] / 100);
		got[s->recs[i].frames[1]] = s->recs[i].count;
		sum += s->recs[i].count;
	}
	assert_int_equal(sum, total);
	assert_memory_equal(got, want, sizeof(got));
	sample_runs__free(sr);
	rmdir_empty(d);
	free(s);
}

static int stop_at_3(void *ctx, const struct run_rec *r)
{
	(void)r;
	return ++*(int *)ctx == 3 ? 42 : 0;
}

/* A directory that cannot hold the runs: an error, and nothing changes. fn can stop a read. */
static void test_failures(void **state)
{
	static const uint32_t a[] = {1};
	const struct run_rec recs[] = {{"a", "", "", a, 1, 1},
				       {"b", "", "", a, 1, 1},
				       {"c", "", "", a, 1, 1},
				       {"d", "", "", a, 1, 1}};
	struct sample_runs *sr = sample_runs__new("/nonexistent-cpuprof-dir");
	char *d = tmpdir();
	int calls = 0;

	(void)state;
	assert_non_null(sr);
	assert_true(sample_runs__add(sr, recs, 4) < 0);
	assert_int_equal(sample_runs__n_runs(sr), 0);
	assert_int_equal(sample_runs__records(sr), 0);
	assert_int_equal(sample_runs__each(sr, stop_at_3, &calls), 0);
	assert_int_equal(calls, 0);
	sample_runs__free(sr);
	sr = sample_runs__new(d);
	assert_int_equal(sample_runs__add(sr, recs, 4), 0);
	assert_int_equal(sample_runs__each(sr, stop_at_3, &calls), 42);
	assert_int_equal(calls, 3);
	sample_runs__free(sr);
	rmdir_empty(d);
}

static int check_frame(void *ctx, const struct log_frame *f)
{
	int *i = ctx;
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	switch ((*i)++) {
	case 0:
		assert_string_equal(f->name, "main");
		assert_string_equal(f->module, "/usr/bin/prog");
		assert_null(f->mangled);
		assert_string_equal(f->file, "main.c");
		assert_int_equal(f->addr, 0xffffffff81000000ull);
		assert_int_equal(f->rel, 0x1234);
		assert_int_equal(f->kind, 1);
		assert_int_equal(f->mapping, 7);
		assert_int_equal(f->line, 42);
		assert_int_equal(f->column, 3);
		assert_int_equal(f->start_line, 0);
		assert_true(f->named);
		assert_false(f->inlined);
		break;
	case 1:
		assert_string_equal(f->name, big);
		assert_null(f->module);
		assert_string_equal(f->mangled, "_Z3fooi");
		assert_null(f->file);
		assert_false(f->named);
		assert_true(f->inlined);
		assert_int_equal(f->start_line, UINT32_MAX);
		break;
	default:
		fail_msg("a third frame");
	}
	return 0;
}

static int stop_at_3f(void *ctx, const struct log_frame *f)
{
	(void)f;
	return ++*(int *)ctx == 3 ? 42 : 0;
}

/* The frame log gives back every field, absent strings and a long name included. */
static void test_frame_log(void **state)
{
	char big[3000];
	const struct log_frame f0 = {.name = "main",
				     .module = "/usr/bin/prog",
				     .file = "main.c",
				     .addr = 0xffffffff81000000ull,
				     .rel = 0x1234,
				     .kind = 1,
				     .mapping = 7,
				     .line = 42,
				     .column = 3,
				     .named = true};
	struct log_frame f1 = {.mangled = "_Z3fooi", .inlined = true, .start_line = UINT32_MAX};
	char *d = tmpdir();
	struct frame_log *fl = frame_log__new(d);
	int i = 0;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	f1.name = big;
	assert_non_null(fl);
	assert_int_equal(frame_log__add(fl, &f0), 0);
	assert_int_equal(frame_log__add(fl, &f1), 0);
	assert_int_equal(frame_log__n(fl), 2);
	assert_int_equal(frame_log__each(fl, check_frame, &i), 0);
	assert_int_equal(i, 2);
	/* read again, after more: the same first two */
	assert_int_equal(frame_log__add(fl, &f0), 0);
	i = 0;
	assert_int_equal(frame_log__each(fl, stop_at_3f, &i), 42);
	frame_log__free(fl);
	assert_null(frame_log__new("/nonexistent-cpuprof-dir"));
	assert_int_equal(errno, ENOENT);
	rmdir_empty(d);
}

static uint32_t frame(struct profile *p, uint64_t addr)
{
	char name[32];
	struct prof_frame f = {.name = name, .module = "mod", .addr = addr, .rel = addr};
	uint32_t id = UINT32_MAX;

	snprintf(name, sizeof(name), "f%" PRIu64, addr);
	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

static uint32_t g_round;
static bool ended_before_round(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid / 100 < g_round;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The samples of a profile as sorted text lines, for comparing two profiles. */
static char *dump(const struct profile *p)
{
	size_t n = profile__n_samples(p), len = 0;
	char **lines = calloc(n + 1, sizeof(*lines));
	char *out;

	assert_non_null(lines);
	for (size_t i = 0; i < n; i++) {
		const struct prof_sample *s = profile__sample(p, i);
		char buf[512];
		int k = snprintf(buf, sizeof(buf), "%u %s/%s", s->pid, s->comm, s->thread);

		for (uint32_t j = 0; j < s->nframes; j++)
			k += snprintf(buf + k, sizeof(buf) - (size_t)k, ";%s",
				      profile__frame(p, s->frames[j])->name);
		snprintf(buf + k, sizeof(buf) - (size_t)k, " %" PRIu64 "\n", s->count);
		lines[i] = strdup(buf);
		len += strlen(buf);
	}
	qsort(lines, n, sizeof(*lines), cmp_lines);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

/*
 * A profile that moves the samples of ended processes to disk holds the live ones only, then
 * the same samples as a profile that keeps them all, once read back.
 */
static void test_profile_spill(void **state)
{
	struct profile *mem = profile__new(), *disk = profile__new();
	char *d = tmpdir(), *a, *b;
	uint32_t ids[2][64];
	size_t merged;
	struct profile_spill ps;

	(void)state;
	assert_int_equal(profile__spill_to(disk, d, 0), 0);
	for (uint64_t i = 0; i < 64; i++) {
		ids[0][i] = frame(mem, 0x1000 + i);
		ids[1][i] = frame(disk, 0x1000 + i);
	}
	/* rounds of processes pid 100r..100r+9: "cc" and "sh", stacks of depth 1-5, some shared
	 * across rounds, some new; a stack of no frames too */
	for (g_round = 0; g_round < 30; g_round++) {
		for (uint32_t k = 0; k < 10; k++) {
			uint32_t pid = g_round * 100 + k, depth = 1 + (k + g_round) % 5;
			uint32_t st[2][8];

			for (uint32_t j = 0; j < depth; j++) {
				uint32_t f = (j * 7 + k * (g_round % 3 ? 1 : g_round)) % 64;

				st[0][j] = ids[0][f];
				st[1][j] = ids[1][f];
			}
			for (int x = 0; x < 2; x++) {
				struct profile *p = x ? disk : mem;
				const char *comm = k & 1 ? "cc" : "sh";

				assert_int_equal(
					profile__add(p, pid, 0, comm, "", st[x], depth, k + 1), 0);
				assert_int_equal(profile__add(p, pid, 0, comm, "", NULL, 0, 1), 0);
			}
		}
		assert_int_equal(profile__merge_ended(mem, ended_before_round, NULL, &merged), 0);
		assert_int_equal(profile__merge_ended(disk, ended_before_round, NULL, &merged), 0);
		/* in memory: this round's processes only */
		for (size_t i = 0; i < profile__n_samples(disk); i++)
			assert_int_equal(profile__sample(disk, i)->pid / 100, g_round);
		assert_int_equal(profile__total(disk), profile__total(mem));
	}
	profile__spill_sizes(disk, &ps);
	assert_int_equal(ps.err, 0);
	assert_int_equal(ps.frame_err, 0);
	assert_true(ps.records > 0);
	assert_true(ps.runs > 0 && ps.runs < 8);
	/* the frames are on disk: counted, not readable until they are back */
	assert_int_equal(ps.frames, 64);
	assert_int_equal(profile__n_frames(disk), 64);
	assert_string_equal(profile__frame(disk, 0)->name, PROFILE_FRAME_NOT_IN_MEMORY);
	/* some ended samples are still in memory in the other profile only */
	assert_true(profile__n_samples(disk) < profile__n_samples(mem));
	assert_int_equal(profile__unspill(disk), 0);
	assert_int_equal(profile__total(disk), profile__total(mem));
	a = dump(mem);
	b = dump(disk);
	assert_string_equal(a, b);
	free(a);
	free(b);
	profile__spill_sizes(disk, &ps);
	assert_int_equal(ps.records, 0);
	assert_int_equal(ps.runs, 0);
	assert_int_equal(ps.frames, 0);
	/* the frames came back with their ids and contents */
	assert_int_equal(profile__n_frames(disk), 64);
	for (uint32_t i = 0; i < 64; i++) {
		const struct prof_frame *x = profile__frame(mem, ids[0][i]),
					*y = profile__frame(disk, ids[1][i]);

		assert_int_equal(ids[0][i], ids[1][i]);
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->module, y->module);
		assert_int_equal(x->addr, y->addr);
	}
	profile__free(mem);
	profile__free(disk);
	rmdir_empty(d);
}

/*
 * profile__frame is total: a frame on disk is a pseudo frame that says so (a writer run before
 * profile__unspill writes it, never dereferences NULL), and the frame itself once it is back.
 */
static void test_frame_on_disk(void **state)
{
	struct profile *p = profile__new();
	const struct prof_frame *f;
	char *d = tmpdir();
	uint32_t id;

	(void)state;
	assert_int_equal(profile__spill_to(p, d, 0), 0);
	id = frame(p, 0x2000);
	f = profile__frame(p, id);
	assert_non_null(f);
	assert_string_equal(f->name, PROFILE_FRAME_NOT_IN_MEMORY);
	assert_int_equal(f->kind, FRAME_PSEUDO);
	assert_null(f->module);
	assert_null(f->file);
	/* not sealed while a frame is on disk */
	assert_int_equal(profile__seal(p), -EBUSY);
	assert_int_equal(profile__unspill(p), 0);
	assert_int_equal(profile__seal(p), 0);
	assert_string_equal(profile__frame(p, id)->name, "f8192");
	assert_string_equal(profile__frame(p, id)->module, "mod");
	assert_string_equal(profile__frame(p, id + 1)->name, PROFILE_FRAME_NOT_IN_MEMORY);
	profile__free(p);
	rmdir_empty(d);
}

/*
 * Frames that differ only in what the rule for foreign text replaces ("f\xff" and "f\xfe" are
 * both "f\uFFFD" in the profile), or only past the 1 MiB the log keeps of a name, are one
 * frame in memory: on disk they come back, every frame after them too, with their ids.
 */
static void test_frames_alike_on_disk(void **state)
{
	static const char *const names[] = {"f\xff", "f\xfe", "g\x01", "g\x02"};
	size_t big = (1u << 20) + 16;
	char *long_a = malloc(big + 1), *long_b = malloc(big + 1);
	struct profile *p = profile__new();
	struct profile_spill ps;
	char *d = tmpdir();
	uint32_t id[7];

	(void)state;
	assert_non_null(long_a);
	assert_non_null(long_b);
	memset(long_a, 'x', big);
	memset(long_b, 'x', big);
	long_a[big] = long_b[big] = '\0';
	long_b[big - 1] = 'y';
	assert_int_equal(profile__spill_to(p, d, 0), 0);
	for (int i = 0; i < 4; i++) {
		struct prof_frame f = {.name = names[i], .module = "mod", .kind = FRAME_USER};

		assert_int_equal(profile__intern_frame(p, &f, &id[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		struct prof_frame f = {.name = i ? long_b : long_a, .kind = FRAME_USER};

		assert_int_equal(profile__intern_frame(p, &f, &id[4 + i]), 0);
	}
	id[6] = frame(p, 0x3000);
	/* the same after the rule: one id on disk as in memory */
	assert_int_equal(id[0], id[1]);
	assert_int_equal(id[2], id[3]);
	assert_int_equal(profile__unspill(p), 0);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frame_err, 0);
	assert_string_equal(profile__frame(p, id[0])->name, "f\xef\xbf\xbd");
	assert_string_equal(profile__frame(p, id[2])->name, "g\xef\xbf\xbd");
	assert_int_equal(strlen(profile__frame(p, id[4])->name), 1u << 20);
	assert_int_equal(strlen(profile__frame(p, id[5])->name), 1u << 20);
	assert_string_equal(profile__frame(p, id[6])->name, "f12288");
	assert_string_equal(profile__frame(p, id[6])->module, "mod");
	for (uint32_t i = 0; i < profile__n_frames(p); i++)
		assert_null(strstr(profile__frame(p, i)->name, "[frame lost"));
	profile__free(p);
	rmdir_empty(d);
	free(long_a);
	free(long_b);
}

/* A directory that cannot hold the runs: the samples stay in memory, and the reason is kept. */
static void test_profile_no_dir(void **state)
{
	struct profile *p = profile__new();
	struct profile_spill ps;
	uint32_t id;
	size_t merged;

	(void)state;
	assert_int_equal(profile__spill_to(p, "/nonexistent-cpuprof-dir", 0), 0);
	id = frame(p, 0x1000);
	assert_int_equal(profile__add(p, 1, 0, "sh", "", &id, 1, 3), 0);
	assert_int_equal(profile__add(p, 2, 0, "sh", "", &id, 1, 4), 0);
	g_round = 1;
	assert_int_equal(profile__merge_ended(p, ended_before_round, NULL, &merged), 0);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.err, -ENOENT);
	assert_int_equal(ps.frame_err, -ENOENT);
	assert_int_equal(ps.records, 0);
	assert_int_equal(ps.frames, 0);
	assert_string_equal(profile__frame(p, id)->name, "f4096");
	assert_int_equal(profile__n_samples(p), 1);
	assert_int_equal(profile__sample(p, 0)->count, 7);
	assert_int_equal(profile__unspill(p), 0);
	assert_int_equal(profile__n_samples(p), 1);
	assert_int_equal(profile__total(p), 7);
	profile__free(p);
}

/*
 * With a threshold: the first 100 frames and merged stacks stay in memory; past it the frames
 * in memory move to the log with their ids, later ones follow, and merged stacks go to runs.
 */
static void test_spill_after(void **state)
{
	struct profile *p = profile__new();
	struct profile_spill ps;
	char *d = tmpdir();
	size_t merged;
	uint32_t ids[150];

	(void)state;
	assert_int_equal(profile__spill_to(p, d, 100), 0);
	for (uint64_t i = 0; i < 100; i++)
		ids[i] = frame(p, 0x1000 + i);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frames, 0);
	assert_non_null(profile__frame(p, 99));
	/* 99 stacks of ended processes: under the threshold, they stay */
	for (uint32_t i = 0; i < 99; i++)
		assert_int_equal(profile__add(p, 1, 0, "sh", "", &ids[i], 1, 1), 0);
	g_round = 1;
	assert_int_equal(profile__merge_ended(p, ended_before_round, NULL, &merged), 0);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.records, 0);
	assert_int_equal(profile__n_samples(p), 99);
	/* the 101st frame: all go to the log, the same ids; an old one is found again */
	for (uint64_t i = 100; i < 150; i++)
		ids[i] = frame(p, 0x1000 + i);
	assert_int_equal(frame(p, 0x1000 + 7), ids[7]);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frames, 150);
	assert_int_equal(ps.frame_err, 0);
	assert_string_equal(profile__frame(p, 0)->name, PROFILE_FRAME_NOT_IN_MEMORY);
	/* 51 more: 150 stacks of no process, over the threshold: they go */
	for (uint32_t i = 99; i < 150; i++)
		assert_int_equal(profile__add(p, 2, 0, "sh", "", &ids[i], 1, 1), 0);
	g_round = 3;
	assert_int_equal(profile__merge_ended(p, ended_before_round, NULL, &merged), 0);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.records, 150);
	assert_int_equal(profile__n_samples(p), 0);
	/* past the threshold once, one more stack goes at the next merge */
	assert_int_equal(profile__add(p, 4, 0, "cc", "", &ids[0], 1, 1), 0);
	g_round = 5;
	assert_int_equal(profile__merge_ended(p, ended_before_round, NULL, &merged), 0);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.records, 151);
	assert_int_equal(profile__n_samples(p), 0);
	assert_int_equal(profile__unspill(p), 0);
	assert_int_equal(profile__n_samples(p), 151);
	assert_int_equal(profile__total(p), 151);
	for (uint32_t i = 0; i < 150; i++) {
		char want[32];

		snprintf(want, sizeof(want), "f%" PRIu32, 0x1000 + i);
		assert_int_equal(ids[i], i);
		assert_string_equal(profile__frame(p, i)->name, want);
	}
	profile__free(p);
	rmdir_empty(d);
}

/* RLIMIT_FSIZE to bytes, as a full disk would (SIGXFSZ ignored); old gets the limit before. */
static void limit_files(struct rlimit *old, rlim_t bytes)
{
	struct rlimit small;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
	signal(SIGXFSZ, SIG_IGN);
	small = *old;
	small.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
}

static void unlimit_files(const struct rlimit *old)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, old), 0);
	signal(SIGXFSZ, SIG_DFL);
}

/* Frames 0..n-1, each a 220-byte record: a 200-byte name that ends in its number. */
static void add_numbered(struct profile *p, uint32_t n)
{
	char name[256];
	uint32_t id;

	for (uint32_t i = 0; i < n; i++) {
		struct prof_frame f = {.name = name, .addr = i};

		memset(name, 'a' + i % 26, 200);
		snprintf(name + 200, sizeof(name) - 200, "%u", i);
		assert_int_equal(profile__intern_frame(p, &f, &id), 0);
		assert_int_equal(id, i);
	}
}

/* After add_numbered: how many are "[frame lost: File too large]"; the others are whole. */
static size_t count_lost(const struct profile *p, uint32_t n, bool last_only)
{
	size_t lost = 0;

	assert_int_equal(profile__n_frames(p), n);
	for (uint32_t i = 0; i < n; i++) {
		const struct prof_frame *f = profile__frame(p, i);

		assert_non_null(f);
		if (!strcmp(f->name, "[frame lost: File too large]")) {
			lost++;
			continue;
		}
		if (last_only)
			assert_int_equal(lost, 0);
		assert_int_equal(f->addr, i);
		assert_int_equal(strtoul(f->name + 200, NULL, 10), i);
	}
	return lost;
}

/*
 * The log's file cannot grow (RLIMIT_FSIZE, as a full disk): the frames come back to memory
 * at once; those that never reached the file are "[frame lost: File too large]"; every id
 * stays, and later frames are whole. A name too long for the log is cut.
 */
static void test_frames_lost(void **state)
{
	struct profile *p = profile__new();
	struct rlimit old;
	struct profile_spill ps;
	char *d = tmpdir(), *huge;
	size_t lost;
	uint32_t id;

	(void)state;
	assert_int_equal(profile__spill_to(p, d, 0), 0);
	limit_files(&old, 100 << 10);
	add_numbered(p, 2000);
	unlimit_files(&old);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frame_err, -EFBIG);
	assert_int_equal(ps.frames, 0); /* back in memory */
	assert_int_equal(profile__unspill(p), 0);
	lost = count_lost(p, 2000, false);
	/* about 100 KiB of 220-byte records reached the file, a 64 KiB buffer did not */
	assert_true(lost > 0 && lost < 1000);
	assert_string_equal(profile__frame(p, 0)->name + 200, "0");
	profile__free(p);

	/*
	 * a name over 1 MiB (a planted perf map's): cut at 1 MiB, at a UTF-8 character; the log
	 * goes on and nothing comes back to memory early
	 */
	p = profile__new();
	huge = malloc((2 << 20) + 1);
	assert_non_null(huge);
	memset(huge, 'x', 2 << 20);
	memcpy(huge + (1 << 20) - 1, "\xc3\xa9", 2); /* an e-acute across the cut */
	huge[2 << 20] = '\0';
	assert_int_equal(profile__spill_to(p, d, 0), 0);
	{
		struct prof_frame a = {.name = "first"}, b = {.name = huge}, c = {.name = "third"};

		assert_int_equal(profile__intern_frame(p, &a, &id), 0);
		assert_int_equal(profile__intern_frame(p, &b, &id), 0);
		assert_int_equal(id, 1);
		assert_int_equal(profile__intern_frame(p, &c, &id), 0);
		assert_int_equal(profile__intern_frame(p, &b, &id), 0); /* the same frame again */
		assert_int_equal(id, 1);
	}
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frame_err, 0);
	assert_int_equal(ps.frames, 3);
	assert_int_equal(profile__unspill(p), 0);
	assert_string_equal(profile__frame(p, 0)->name, "first");
	assert_int_equal(strlen(profile__frame(p, 1)->name), (1 << 20) - 1);
	assert_string_equal(profile__frame(p, 2)->name, "third");
	free(huge);
	profile__free(p);
	rmdir_empty(d);
}

/*
 * The last write of the log fails when the frames are read back (the disk filled since): the
 * frames the file holds come back, only the last buffer's are lost.
 */
static void test_last_write_fails(void **state)
{
	struct profile *p = profile__new();
	struct rlimit old;
	struct profile_spill ps;
	char *d = tmpdir();
	size_t lost, n = 700; /* 150 KiB of records: two 64 KiB writes and a rest */

	(void)state;
	assert_int_equal(profile__spill_to(p, d, 0), 0);
	limit_files(&old, 128 << 10); /* the two writes fit exactly */
	add_numbered(p, n);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frame_err, 0);
	assert_int_equal(ps.frames, n); /* all in the log, the last ones not yet written */
	assert_int_equal(profile__unspill(p), 0);
	unlimit_files(&old);
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frame_err, -EFBIG);
	lost = count_lost(p, n, true); /* the lost ones are the last */
	/* 128 KiB of 220-byte records came back: about 595 */
	assert_true(lost > 0 && lost < 150);
	profile__free(p);
	rmdir_empty(d);
}

/* Name-only frames (kept compact in memory) go to the log and come back the same, ids too. */
static void test_compact_spill(void **state)
{
	struct profile *p = profile__new();
	char *d = tmpdir(), name[32];
	struct profile_spill ps;
	uint32_t ids[200];

	(void)state;
	assert_int_equal(profile__spill_to(p, d, 100), 0);
	for (uint32_t i = 0; i < 200; i++) {
		struct prof_frame f = {.name = name,
				       .kind = i % 3 ? FRAME_USER : FRAME_KERNEL,
				       .inlined = i % 5 == 0,
				       .named = true};

		snprintf(name, sizeof(name), "n%" PRIu32, i);
		/* every 10th a full frame: the ids are one sequence */
		if (i % 10 == 9) {
			f.module = "mod";
			f.addr = i;
		}
		assert_int_equal(profile__intern_frame(p, &f, &ids[i]), 0);
		assert_int_equal(ids[i], i);
	}
	profile__spill_sizes(p, &ps);
	assert_int_equal(ps.frames, 200);
	/* on disk, found again by content */
	{
		struct prof_frame f = {
			.name = "n10", .kind = FRAME_USER, .inlined = true, .named = true};
		uint32_t id;

		assert_int_equal(profile__intern_frame(p, &f, &id), 0);
		assert_int_equal(id, 10);
	}
	assert_int_equal(profile__unspill(p), 0);
	assert_int_equal(profile__n_frames(p), 200);
	for (uint32_t i = 0; i < 200; i++) {
		const struct prof_frame *f = profile__frame(p, i);

		snprintf(name, sizeof(name), "n%" PRIu32, i);
		assert_string_equal(f->name, name);
		assert_int_equal(f->kind, i % 3 ? FRAME_USER : FRAME_KERNEL);
		assert_int_equal(f->inlined, i % 5 == 0);
		assert_true(f->named);
		assert_int_equal(f->addr, i % 10 == 9 ? i : 0);
		if (i % 10 == 9)
			assert_string_equal(f->module, "mod");
		else
			assert_null(f->module);
	}
	profile__free(p);
	rmdir_empty(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_merges),
		cmocka_unit_test(test_failures),      cmocka_unit_test(test_frame_log),
		cmocka_unit_test(test_profile_spill), cmocka_unit_test(test_profile_no_dir),
		cmocka_unit_test(test_frames_lost),   cmocka_unit_test(test_frames_alike_on_disk),
		cmocka_unit_test(test_spill_after),   cmocka_unit_test(test_last_write_fails),
		cmocka_unit_test(test_frame_on_disk), cmocka_unit_test(test_compact_spill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
