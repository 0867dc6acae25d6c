// SPDX-License-Identifier: GPL-2.0
/* Aggregation: frames are interned, identical samples merge, totals add up. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cmocka_inc.h"
#include "profile/profile.h"

static uint32_t frame(struct profile *p, const char *name, uint64_t addr, enum frame_kind kind)
{
	struct prof_frame f = {
		.name = name, .module = "mod", .addr = addr, .rel = addr, .kind = kind};
	uint32_t id = UINT32_MAX;

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

static void test_intern_frames(void **state)
{
	struct profile *p = profile__new();
	char name[16];
	uint32_t a, b, c;

	(void)state;
	a = frame(p, "main", 0x1000, FRAME_USER);
	strcpy(name, "main");
	/* equal content, different string storage: the same frame */
	b = frame(p, name, 0x1000, FRAME_USER);
	assert_int_equal(a, b);
	/* same name, other address or kind: distinct frames */
	c = frame(p, "main", 0x1004, FRAME_USER);
	assert_int_not_equal(a, c);
	assert_int_not_equal(frame(p, "main", 0x1000, FRAME_KERNEL), a);
	assert_int_equal(profile__n_frames(p), 3);
	assert_string_equal(profile__frame(p, a)->name, "main");
	assert_string_equal(profile__frame(p, a)->module, "mod");
	/* an id out of range: a pseudo frame that says so, never NULL */
	assert_non_null(profile__frame(p, 99));
	assert_string_equal(profile__frame(p, 99)->name, PROFILE_FRAME_NOT_IN_MEMORY);
	assert_int_equal(profile__frame(p, 99)->kind, FRAME_PSEUDO);
	assert_null(profile__frame(p, 99)->module);
	profile__free(p);
}

static void test_merge_samples(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[3];

	(void)state;
	st[0] = frame(p, "main", 1, FRAME_USER);
	st[1] = frame(p, "run", 2, FRAME_USER);
	st[2] = frame(p, "leaf", 3, FRAME_USER);
	assert_int_equal(profile__add(p, 10, 0, "app", "", st, 3, 5), 0);
	assert_int_equal(profile__add(p, 10, 0, "app", NULL, st, 3, 7), 0); /* NULL thread = "" */
	assert_int_equal(profile__n_samples(p), 1);
	assert_int_equal(profile__sample(p, 0)->count, 12);
	/* a prefix of the stack is another sample */
	assert_int_equal(profile__add(p, 10, 0, "app", "", st, 2, 1), 0);
	/* same stack, other pid / name / thread: other samples */
	assert_int_equal(profile__add(p, 11, 0, "app", "", st, 3, 1), 0);
	assert_int_equal(profile__add(p, 10, 0, "app2", "", st, 3, 1), 0);
	assert_int_equal(profile__add(p, 10, 12, "app", "worker", st, 3, 1), 0);
	assert_int_equal(profile__n_samples(p), 5);
	assert_int_equal(profile__total(p), 16);
	assert_int_equal(profile__n_processes(p), 2);
	assert_string_equal(profile__sample(p, 4)->thread, "worker");
	assert_int_equal(profile__sample(p, 4)->tid, 12);
	/* past the last sample: a sample of nothing, never NULL */
	assert_non_null(profile__sample(p, 5));
	assert_int_equal(profile__sample(p, 5)->count, 0);
	assert_int_equal(profile__sample(p, 5)->nframes, 0);
	assert_string_equal(profile__sample(p, 5)->comm, "");
	assert_string_equal(profile__sample(p, 5)->thread, "");
	/* a mapping id never interned: a mapping of nothing known, never NULL */
	assert_int_equal(profile__n_mappings(p), 0);
	assert_non_null(profile__mapping(p, 0));
	assert_int_equal(profile__mapping(p, 0)->kind, PMAP_UNKNOWN);
	assert_string_equal(profile__mapping(p, 0)->path, PROFILE_MAPPING_UNKNOWN);
	assert_string_equal(profile__mapping(p, 0)->build_id, "");
	/* samples of one stack share one copy of it (processes of a program: one stack each) */
	assert_ptr_equal(profile__sample(p, 0)->frames, profile__sample(p, 2)->frames);
	assert_ptr_equal(profile__sample(p, 0)->frames, profile__sample(p, 4)->frames);
	assert_ptr_not_equal(profile__sample(p, 0)->frames, profile__sample(p, 1)->frames);
	/* a frame id that was never interned */
	st[0] = 77;
	assert_int_equal(profile__add(p, 10, 0, "app", "", st, 3, 1), -EINVAL);
	assert_int_equal(profile__total(p), 16);
	/* a stack of no frames may come without an array (the pprof reader's empty samples);
	 * UBSan: memcpy/memcmp must not be handed NULL */
	assert_int_equal(profile__add(p, 10, 0, "app", "", NULL, 0, 2), 0);
	assert_int_equal(profile__add(p, 10, 0, "app", "", NULL, 0, 3), 0);
	assert_int_equal(profile__n_samples(p), 6);
	assert_int_equal(profile__total(p), 21);
	{
		size_t n = profile__n_samples(p);
		uint64_t total = profile__total(p);

		/* sealed: nothing more is added, what is there reads the same */
		assert_int_equal(profile__seal(p), 0);
		assert_int_equal(profile__add(p, 10, 0, "app", "", NULL, 0, 5), -EINVAL);
		assert_int_equal(
			profile__intern_frame(p, &(struct prof_frame){.name = "x"}, &st[0]),
			-EINVAL);
		assert_int_equal(
			profile__intern_mapping(p, &(struct prof_mapping){.path = "/x"}, &st[0]),
			-EINVAL);
		assert_int_equal(profile__n_samples(p), n);
		assert_int_equal(profile__total(p), total);
		assert_int_equal(profile__sample(p, 0)->count, 12);
		assert_string_equal(profile__frame(p, profile__sample(p, 0)->frames[2])->name,
				    "leaf");
	}
	profile__free(p);
}

/* Many samples: the index grows and every sample stays findable. */
static bool odd_pid(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid & 1;
}

/* Ended processes: their samples lose pid and tid and merge per (comm, thread, stack). */
static void test_merge_ended(void **state)
{
	struct profile *p = profile__new();
	const struct prof_sample *s;
	uint32_t st[2];
	size_t merged = 99;
	uint64_t sum = 0;

	(void)state;
	st[0] = frame(p, "main", 1, FRAME_USER);
	st[1] = frame(p, "leaf", 2, FRAME_USER);
	/* ended (odd pids): sh x2 on one stack, sh on its prefix, cc, a worker thread of cc */
	assert_int_equal(profile__add(p, 11, 0, "sh", "", st, 2, 3), 0);
	assert_int_equal(profile__add(p, 13, 0, "sh", "", st, 2, 4), 0);
	assert_int_equal(profile__add(p, 13, 0, "sh", "", st, 1, 1), 0);
	assert_int_equal(profile__add(p, 15, 0, "cc", "", st, 2, 2), 0);
	assert_int_equal(profile__add(p, 15, 16, "cc", "w", st, 2, 1), 0);
	/* live (even pids) keep their pids, the same stack and name included */
	assert_int_equal(profile__add(p, 20, 0, "sh", "", st, 2, 10), 0);
	assert_int_equal(profile__n_samples(p), 6);
	assert_int_equal(profile__merge_ended(p, odd_pid, NULL, &merged), 0);
	assert_int_equal(merged, 5);
	/* sh/st:2 (7), sh/st:1 (1), cc (2), cc "w" (1), pid 20 (10) */
	assert_int_equal(profile__n_samples(p), 5);
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		s = profile__sample(p, i);
		sum += s->count;
		if (s->pid == 20) {
			assert_int_equal(s->count, 10);
			continue;
		}
		assert_int_equal(s->pid, 0);
		assert_int_equal(s->tid, 0);
		if (!strcmp(s->comm, "sh") && s->nframes == 2)
			assert_int_equal(s->count, 7);
		if (!strcmp(s->comm, "cc"))
			assert_int_equal(s->count, *s->thread ? 1 : 2);
	}
	assert_int_equal(sum, 21);
	assert_int_equal(profile__total(p), 21);
	/* later samples of the same (comm, stack) join the merged entry once their pid ends */
	assert_int_equal(profile__add(p, 17, 0, "sh", "", st, 2, 5), 0);
	assert_int_equal(profile__add(p, 17, 0, "sh", "", st, 2, 1), 0);
	assert_int_equal(profile__n_samples(p), 6);
	assert_int_equal(profile__merge_ended(p, odd_pid, NULL, &merged), 0);
	assert_int_equal(merged, 1);
	assert_int_equal(profile__n_samples(p), 5);
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		s = profile__sample(p, i);
		if (!s->pid && !strcmp(s->comm, "sh") && s->nframes == 2)
			assert_int_equal(s->count, 13);
	}
	/* and merged entries are found again by profile__add */
	assert_int_equal(profile__add(p, 0, 0, "cc", "", st, 2, 1), 0);
	assert_int_equal(profile__n_samples(p), 5);
	profile__free(p);
}

static void test_many(void **state)
{
	struct profile *p = profile__new();
	uint32_t ids[2];

	(void)state;
	ids[0] = frame(p, "root", 1, FRAME_USER);
	for (uint32_t i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%u", i);
		ids[1] = frame(p, name, 100 + i, FRAME_USER);
		assert_int_equal(profile__add(p, i % 7, 0, "x", "", ids, 2, 1), 0);
	}
	for (uint32_t i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%u", i);
		ids[1] = frame(p, name, 100 + i, FRAME_USER);
		assert_int_equal(profile__add(p, i % 7, 0, "x", "", ids, 2, 2), 0);
	}
	assert_int_equal(profile__n_frames(p), 5001);
	assert_int_equal(profile__n_samples(p), 5000);
	assert_int_equal(profile__total(p), 15000);
	for (size_t i = 0; i < 5000; i++)
		assert_int_equal(profile__sample(p, i)->count, 3);
	assert_int_equal(profile__n_processes(p), 7);
	profile__free(p);
}

static uint32_t named(struct profile *p, const char *name, enum frame_kind kind, bool inlined)
{
	struct prof_frame f = {.name = name, .kind = kind, .named = true, .inlined = inlined};
	uint32_t id = UINT32_MAX;

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

/*
 * Frames that are a name only (the readers') are kept compact and built on demand: the same
 * content is the same frame, any other field tells them apart, ids are shared with full
 * frames, a pointer holds for PROFILE_FRAME_RING calls, names stay, trim changes nothing.
 */
static void test_compact_frames(void **state)
{
	struct profile *p = profile__new();
	char name[32], *big = malloc(5000);
	const struct prof_frame *held[PROFILE_FRAME_RING];
	uint32_t a, b, full, ids[300], k, big_id;
	const char *nm;

	(void)state;
	assert_non_null(big);
	a = named(p, "main", FRAME_USER, false);
	strcpy(name, "main");
	assert_int_equal(named(p, name, FRAME_USER, false), a);
	/* a full frame of the same name between: ids are one sequence */
	full = frame(p, "main", 0x1000, FRAME_USER);
	assert_int_equal(full, a + 1);
	b = named(p, "main", FRAME_USER, true);
	k = named(p, "main", FRAME_KERNEL, false);
	assert_int_equal(b, full + 1);
	assert_int_equal(k, b + 1);
	assert_int_equal(named(p, "main", FRAME_USER, true), b);
	assert_int_equal(profile__n_frames(p), 4);
	assert_true(profile__frame(p, b)->inlined);
	assert_false(profile__frame(p, a)->inlined);
	assert_true(profile__frame(p, a)->named);
	assert_int_equal(profile__frame(p, k)->kind, FRAME_KERNEL);
	assert_null(profile__frame(p, a)->module);
	assert_int_equal(profile__frame(p, a)->addr, 0);
	assert_string_equal(profile__frame(p, full)->module, "mod");
	/* the pointers of as many calls as the ring has all hold at once */
	for (uint32_t i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		ids[i] = named(p, name, FRAME_PSEUDO, false);
	}
	for (uint32_t i = 0; i < PROFILE_FRAME_RING; i++)
		held[i] = profile__frame(p, ids[i]);
	for (uint32_t i = 0; i < PROFILE_FRAME_RING; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_string_equal(held[i]->name, name);
		assert_int_equal(held[i]->kind, FRAME_PSEUDO);
	}
	/* a name outlives the ring and later frames */
	nm = profile__frame(p, ids[5])->name;
	for (uint32_t i = 0; i < 300; i++)
		(void)profile__frame(p, ids[i]);
	assert_string_equal(nm, "f5");
	/* a name too long for the compact frames: a full frame, found again as well */
	memset(big, 'x', 4999);
	big[4999] = '\0';
	big_id = named(p, big, FRAME_USER, false);
	assert_int_equal(named(p, big, FRAME_USER, false), big_id);
	assert_int_equal(strlen(profile__frame(p, big_id)->name), 4999);
	/* foreign text by the one rule, and found again by its raw bytes */
	k = named(p, "g\xff", FRAME_USER, false);
	assert_int_equal(k, profile__n_frames(p) - 1);
	assert_string_equal(profile__frame(p, k)->name, "g\xef\xbf\xbd");
	assert_int_equal(named(p, "g\xff", FRAME_USER, false), k);
	/* after trim (the index dropped) every frame is found again and new ones still come */
	profile__trim(p);
	assert_int_equal(named(p, "main", FRAME_USER, true), b);
	assert_int_equal(named(p, "f299", FRAME_PSEUDO, false), ids[299]);
	assert_int_equal(frame(p, "main", 0x1000, FRAME_USER), full);
	k = named(p, "new", FRAME_USER, false);
	assert_int_equal(k, profile__n_frames(p) - 1);
	for (uint32_t i = 0; i < 300; i++)
		assert_int_equal(named(p, profile__frame(p, ids[i])->name, FRAME_PSEUDO, false),
				 ids[i]);
	assert_int_equal(profile__add(p, 1, 0, "x", "", ids, 300, 1), 0);
	free(big);
	profile__free(p);
}

/* Every string enters the profile by the rule for foreign text: every writer gets it valid. */
static void test_hostile_strings(void **state)
{
	struct profile *p = profile__new();
	struct prof_mapping m = {.pid = 1, .path = "/tmp/\x1b[2Jlib.so", .build_id = ""};
	struct prof_frame f = {.name = "f\xef\xbf\xbe", .file = "a\nb.c", .mangled = "_Z\xff"};
	const struct prof_sample *smp;
	const struct prof_frame *pf;
	uint32_t id, mid;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__intern_mapping(p, &m, &mid), 0);
	f.mapping = mid + 1;
	f.module = m.path;
	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	assert_int_equal(profile__add(p, 1, 2, "x\xff", "t\xed\xa0\x80", &id, 1, 1), 0);
	pf = profile__frame(p, id);
	assert_string_equal(pf->name, "f\xef\xbf\xbd");
	assert_string_equal(pf->file, "a\xef\xbf\xbd"
				      "b.c");
	assert_string_equal(pf->mangled, "_Z\xef\xbf\xbd");
	assert_string_equal(pf->module, "/tmp/\xef\xbf\xbd[2Jlib.so");
	assert_string_equal(profile__mapping(p, mid)->path, "/tmp/\xef\xbf\xbd[2Jlib.so");
	smp = profile__sample(p, 0);
	assert_string_equal(smp->comm, "x\xef\xbf\xbd");
	assert_string_equal(smp->thread, "t\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* the same hostile name again is the same sample */
	assert_int_equal(profile__add(p, 1, 2, "x\xff", "t\xed\xa0\x80", &id, 1, 1), 0);
	assert_int_equal(profile__n_samples(p), 1);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern_frames),	cmocka_unit_test(test_merge_samples),
		cmocka_unit_test(test_merge_ended),	cmocka_unit_test(test_many),
		cmocka_unit_test(test_hostile_strings), cmocka_unit_test(test_compact_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
