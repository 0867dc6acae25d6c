// SPDX-License-Identifier: GPL-2.0
/*
 * A profile that kept its samples of ended processes and its frames on disk (profile__spill_to)
 * writes, once read back, the same bytes in every format as the same recording kept in memory:
 * the read-back appends the samples in the runs' key order, shares the frame ids of a stack
 * with the one before it when that one is its prefix, and drops the indexes; none of that may
 * show in an output.
 */
#include <stdio.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/folded.h"
#include "output/html.h"
#include "output/json_out.h"
#include "output/pb.h"
#include "output/pprof.h"
#include "output/svg.h"
#include "profile/profile.h"

#define N_FRAMES 96
#define ROUNDS	 6

static char *tmpdir(void)
{
	char *d = strdup("/tmp/cpuprof-test-spill-out.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static unsigned int g_round;

/* The processes of earlier rounds have ended (pids are round * 100 + n). */
static bool ended_before(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid / 100 < g_round;
}

/* A small call tree: frame k's callees are 3k+1..3k+3 (mod N_FRAMES); a walk of it. */
static uint32_t walk(uint32_t *st, unsigned int seed, uint32_t depth)
{
	uint32_t f = seed % 4;

	for (uint32_t i = 0; i < depth; i++) {
		st[i] = f;
		seed = seed * 1103515245u + 12345u;
		f = (3 * f + 1 + (seed >> 16) % 3) % N_FRAMES;
	}
	return depth;
}

/* The same recording into p: frames of several kinds, samples over ROUNDS rounds. */
static void record(struct profile *p)
{
	static const char *const comms[] = {"cc1", "make", "sh", "python3"};
	static const char *const threads[] = {"", "worker"};
	static const char *const labels[] = {"", "k=v"};
	uint32_t map, id, st[40];
	char name[64], file[32];

	assert_int_equal(profile__intern_mapping(p,
						 &(struct prof_mapping){
							 .pid = 7,
							 .start = 0x400000,
							 .limit = 0x500000,
							 .path = "/usr/bin/cc1",
							 .build_id = "ab12",
						 },
						 &map),
			 0);
	for (uint32_t i = 0; i < N_FRAMES; i++) {
		struct prof_frame f = {.name = name, .kind = FRAME_USER};

		snprintf(name, sizeof(name), "fn_%u", i);
		if (i % 3 == 0) { /* a frame with an address, a file and a line */
			snprintf(file, sizeof(file), "src/f%u.c", i % 7);
			f.module = "/usr/bin/cc1";
			f.addr = 0x401000 + 16 * i;
			f.rel = 0x1000 + 16 * i;
			f.mapping = map + 1;
			f.named = true;
			f.file = file;
			f.line = i + 1;
			f.inlined = i % 9 == 3;
		} else if (i % 3 == 1) {
			f.kind = FRAME_KERNEL;
			f.addr = 0xffffffff81000000ull + i;
			f.named = true;
		}
		assert_int_equal(profile__intern_frame(p, &f, &id), 0);
		assert_int_equal(id, i);
	}
	for (g_round = 0; g_round < ROUNDS; g_round++) {
		for (unsigned int k = 0; k < 150; k++) {
			uint32_t pid = g_round * 100 + k % 9 + 1;
			/* a stack and, often, its prefix: a sample in the caller */
			uint32_t n = walk(st, k * 7 + g_round, 3 + k % 30);

			assert_int_equal(profile__add_labeled(p, pid, k % 5, comms[k % 4],
							      threads[k % 2], labels[k % 3 == 0],
							      st, n, k + 1),
					 0);
			assert_int_equal(profile__add_labeled(p, pid, 0, comms[k % 4], "", "", st,
							      n - n / 3, 2),
					 0);
			if (k % 50 == 0) /* no stack */
				assert_int_equal(
					profile__add(p, pid, 0, comms[k % 4], "", NULL, 0, 1), 0);
		}
		assert_int_equal(profile__merge_ended(p, ended_before, NULL, NULL), 0);
	}
	/* samples of no process still in memory when the recording ends, keys also on disk */
	for (unsigned int k = 0; k < 20; k++) {
		uint32_t n = walk(st, k * 7, 3 + k % 30);

		assert_int_equal(profile__add(p, 0, 0, comms[k % 4], "", st, n - n / 3, 5), 0);
	}
}

struct outs {
	char *buf[6];
	size_t len[6];
};

static const char *const format_names[] = {"folded", "folded per thread", "pprof", "json", "svg",
					   "html"};

static void write_all(const struct profile *p, struct outs *o)
{
	struct profile_meta m = {
		.version = "test",
		.command_line = "cpuprof record",
		.event = "cpu-clock",
		.frequency = 99,
		.period_ns = 10101010,
		.per_thread = true,
	};
	struct pb b = PB_INIT;

	for (int i = 0; i < 6; i++) {
		FILE *f;

		if (i == 2) {
			assert_int_equal(pprof_encode(p, &m, &b), 0);
			o->buf[i] = malloc(b.len ? b.len : 1);
			assert_non_null(o->buf[i]);
			memcpy(o->buf[i], b.buf, b.len);
			o->len[i] = b.len;
			continue;
		}
		f = open_memstream(&o->buf[i], &o->len[i]);
		assert_non_null(f);
		switch (i) {
		case 0:
			assert_int_equal(folded_write(p, &(struct folded_opts){.labels = true}, f),
					 0);
			break;
		case 1:
			assert_int_equal(folded_write(p,
						      &(struct folded_opts){.per_thread = true,
									    .lines = true},
						      f),
					 0);
			break;
		case 3:
			assert_int_equal(json_write(p, &m, f), 0);
			break;
		case 4:
			assert_int_equal(svg_write_profile(p, NULL, true, "t", f), 0);
			break;
		default:
			assert_int_equal(html_write_profile(p, NULL, false, "t", f), 0);
			break;
		}
		assert_int_equal(fclose(f), 0);
	}
	pb_free(&b);
}

static void test_same_bytes(void **state)
{
	char *dir = tmpdir();
	struct profile *mem = profile__new(), *disk = profile__new();
	struct profile_spill ps;
	struct outs a = {0}, b = {0};

	(void)state;
	assert_non_null(mem);
	assert_non_null(disk);
	/* everything to disk at once: frames from the first, samples from the first merge */
	assert_int_equal(profile__spill_to(disk, dir, 0), 0);
	record(mem);
	record(disk);
	profile__spill_sizes(disk, &ps);
	assert_true(ps.runs >= 1 && ps.records > 100);
	assert_int_equal(ps.frames, N_FRAMES);
	assert_int_equal(profile__unspill(disk), 0);
	assert_int_equal(profile__seal(disk), 0);
	assert_int_equal(profile__seal(mem), 0);
	assert_int_equal(profile__total(disk), profile__total(mem));
	/* the read-back holds the samples in another order: the writers' own must not change */
	write_all(mem, &a);
	write_all(disk, &b);
	for (int i = 0; i < 6; i++) {
		if (a.len[i] != b.len[i] || memcmp(a.buf[i], b.buf[i], a.len[i]))
			fail_msg("%s: %zu bytes in memory, %zu after the read-back, not the same",
				 format_names[i], a.len[i], b.len[i]);
		assert_true(a.len[i] > 100);
		free(a.buf[i]);
		free(b.buf[i]);
	}
	profile__free(mem);
	profile__free(disk);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

/*
 * After the read-back (which drops the indexes) a profile that is not sealed still merges an
 * equal sample into the one read back, and a stack read back shares nothing it must not: a
 * later stack's frames are its own.
 */
static void test_add_after_read_back(void **state)
{
	char *dir = tmpdir();
	struct profile *p = profile__new();
	uint32_t st[40], id;
	size_t n;
	uint64_t total;

	(void)state;
	assert_int_equal(profile__spill_to(p, dir, 0), 0);
	for (uint32_t i = 0; i < N_FRAMES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(profile__intern_frame(p, &(struct prof_frame){.name = name}, &id),
				 0);
	}
	/* a stack, then its extension, then the first again: ended, on disk */
	walk(st, 1, 20);
	assert_int_equal(profile__add(p, 1, 0, "a", "", st, 10, 1), 0);
	assert_int_equal(profile__add(p, 1, 0, "a", "", st, 20, 2), 0);
	assert_int_equal(profile__add(p, 2, 0, "a", "", st, 15, 4), 0);
	g_round = 1;
	assert_int_equal(profile__merge_ended(p, ended_before, NULL, NULL), 0);
	assert_int_equal(profile__unspill(p), 0);
	n = profile__n_samples(p);
	total = profile__total(p);
	assert_int_equal(n, 3);
	assert_int_equal(total, 7);
	/* the three share one array of ids, each its own length */
	for (size_t i = 0; i < n; i++) {
		const struct prof_sample *s = profile__sample(p, i);

		assert_memory_equal(s->frames, st, s->nframes * sizeof(*st));
	}
	assert_ptr_equal(profile__sample(p, 0)->frames, profile__sample(p, 2)->frames);
	/* an equal key merges, a new one is new and whole */
	assert_int_equal(profile__add(p, 0, 0, "a", "", st, 15, 8), 0);
	assert_int_equal(profile__n_samples(p), 3);
	assert_int_equal(profile__total(p), 15);
	walk(st, 9, 25);
	assert_int_equal(profile__add(p, 0, 0, "a", "", st, 25, 1), 0);
	assert_int_equal(profile__n_samples(p), 4);
	assert_memory_equal(profile__sample(p, 3)->frames, st, 25 * sizeof(*st));
	walk(st, 1, 20);
	for (size_t i = 0; i < 3; i++) {
		const struct prof_sample *s = profile__sample(p, i);

		assert_memory_equal(s->frames, st, s->nframes * sizeof(*st));
		if (s->nframes == 15)
			assert_int_equal(s->count, 12);
	}
	profile__free(p);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_add_after_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
