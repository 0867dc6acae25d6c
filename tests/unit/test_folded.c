// SPDX-License-Identifier: GPL-2.0
/* The folded writer: exact text, order, merging, kernel suffix, sanitizing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/folded.h"

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind)
{
	struct prof_frame f = {.name = name, .kind = kind};
	uint32_t id;

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

static char *render(const struct profile *p, bool per_thread)
{
	struct folded_opts o = {.per_thread = per_thread};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(folded_write(p, &o, f), 0);
	fclose(f);
	return buf;
}

static void test_write(void **state)
{
	struct profile *p = profile__new();
	uint32_t u[4], k[2];
	char *text;

	(void)state;
	u[0] = frame(p, "main", FRAME_USER);
	u[1] = frame(p, "run", FRAME_USER);
	u[2] = frame(p, "leaf", FRAME_USER);
	u[3] = frame(p, "[user stack lost: hash collision]", FRAME_PSEUDO);
	k[0] = frame(p, "entry_SYSCALL_64", FRAME_KERNEL);
	k[1] = frame(p, "vfs_read", FRAME_KERNEL);

	uint32_t s1[] = {u[0], u[1], u[2]};
	uint32_t s2[] = {u[0], u[1], k[0], k[1]};
	uint32_t s3[] = {u[3], k[0]};

	assert_int_equal(profile__add(p, 1, 0, "app", "", s1, 3, 40), 0);
	/* another pid of the same name folds into the same line */
	assert_int_equal(profile__add(p, 2, 0, "app", "", s1, 3, 2), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s2, 4, 7), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s3, 2, 1), 0);
	assert_int_equal(profile__add(p, 3, 0, "my app", "", s1, 1, 3), 0);
	text = render(p, false);
	assert_string_equal(text, "app;[user stack lost: hash collision];entry_SYSCALL_64_[k] 1\n"
				  "app;main;run;entry_SYSCALL_64_[k];vfs_read_[k] 7\n"
				  "app;main;run;leaf 42\n"
				  "my_app;main 3\n");
	free(text);
	profile__free(p);
}

static void test_per_thread(void **state)
{
	struct profile *p = profile__new();
	uint32_t s[1];
	char *text;

	(void)state;
	s[0] = frame(p, "work", FRAME_USER);
	assert_int_equal(profile__add(p, 5, 5, "srv", "srv", s, 1, 2), 0);
	assert_int_equal(profile__add(p, 5, 6, "srv", "io worker", s, 1, 4), 0);
	text = render(p, true);
	assert_string_equal(text, "srv;io_worker-6;work 4\nsrv;srv-5;work 2\n");
	free(text);
	profile__free(p);
}

/* An inlined function is its own frame under its caller, suffixed _[i]. */
static void test_inlined(void **state)
{
	struct profile *p = profile__new();
	struct prof_frame run = {.name = "run", .addr = 0x10, .kind = FRAME_USER};
	struct prof_frame helper = {
		.name = "helper", .addr = 0x10, .kind = FRAME_USER, .inlined = true};
	uint32_t s[2];
	char *text;

	(void)state;
	assert_int_equal(profile__intern_frame(p, &run, &s[0]), 0);
	assert_int_equal(profile__intern_frame(p, &helper, &s[1]), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s, 2, 3), 0);
	text = render(p, false);
	assert_string_equal(text, "app;run;helper_[i] 3\n");
	free(text);
	profile__free(p);
}

/* The lines are in sort(1) order of the whole line, count included. */
static void test_sorted_as_printed(void **state)
{
	struct profile *p = profile__new();
	uint32_t s1[] = {frame(p, "f", FRAME_USER)};
	uint32_t s2[] = {frame(p, "f (a.c:3)", FRAME_USER)};
	char *text;

	(void)state;
	assert_int_equal(profile__add(p, 1, 0, "app", "", s1, 1, 9), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s2, 1, 1), 0);
	text = render(p, false);
	assert_string_equal(text, "app;f (a.c:3) 1\napp;f 9\n");
	free(text);
	profile__free(p);
}

static void test_empty(void **state)
{
	struct profile *p = profile__new();
	char *text;

	(void)state;
	text = render(p, false);
	assert_string_equal(text, "");
	free(text);
	profile__free(p);
}

static void check_name(const char *in, bool comm, const char *want)
{
	char buf[64];

	folded_frame_name(in, comm, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_frame_names(void **state)
{
	char small[6];

	(void)state;
	check_name("a;b", false, "a:b");
	check_name("tab\there\nnl\x7f", false, "tab?here?nl?");
	check_name("  padded  ", false, "padded");
	check_name("", false, "[empty]");
	check_name("   ", false, "[empty]");
	check_name("operator 2", false, "operator_2");
	check_name("f(int, long) const", false, "f(int, long) const");
	check_name("std::vector<int, std::allocator<int> >::push_back", false,
		   "std::vector<int, std::allocator<int> >::push_back");
	check_name("Web Content", true, "Web_Content");
	check_name("v8 42", true, "v8_42");
	folded_frame_name("abcdefgh", false, small, sizeof(small));
	assert_string_equal(small, "abcde");
}

/* ---- against the plain way: every line built whole, sorted with strcmp, merged, sorted --- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *reference(const struct profile *p, bool per_thread)
{
	size_t n = profile__n_samples(p), m = 0, len = 0;
	char **v = calloc(n + 1, sizeof(*v)), **w = calloc(n + 1, sizeof(*w)), *out = NULL;
	FILE *f = open_memstream(&out, &len);
	char name[1024];

	for (size_t i = 0; i < n; i++) {
		const struct prof_sample *s = profile__sample(p, i);
		char *b = NULL;
		size_t bl = 0;
		FILE *g = open_memstream(&b, &bl);

		folded_frame_name(s->comm, true, name, sizeof(name));
		fputs(name, g);
		if (per_thread) {
			folded_frame_name(s->thread, true, name, sizeof(name));
			fprintf(g, ";%s-%u", name, s->tid);
		}
		for (uint32_t k = 0; k < s->nframes; k++) {
			const struct prof_frame *fr = profile__frame(p, s->frames[k]);

			folded_frame_name(fr->name, false, name, sizeof(name) - 4);
			fprintf(g, ";%s%s", name, fr->kind == FRAME_KERNEL ? "_[k]" : "");
		}
		fclose(g);
		/* the count rides after a NUL, so that strcmp sees the text alone */
		v[i] = realloc(b, bl + 1 + sizeof(uint64_t));
		memcpy(v[i] + bl + 1, &s->count, sizeof(uint64_t));
	}
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t c = 0, x;

		for (j = i; j < n && !strcmp(v[j], v[i]); j++) {
			memcpy(&x, v[j] + strlen(v[j]) + 1, sizeof(x));
			c += x;
		}
		/* a stack of no samples is not printed */
		if (c)
			assert_true(asprintf(&w[m++], "%s %llu", v[i], (unsigned long long)c) > 0);
	}
	qsort(w, m, sizeof(*w), cmp_str);
	for (size_t i = 0; i < m; i++)
		fprintf(f, "%s\n", w[i]);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	for (size_t i = 0; i < m; i++)
		free(w[i]);
	free(v);
	free(w);
	return out;
}

/*
 * Names that are prefixes of each other, carry spaces, ';', trailing digits or sort around
 * ';' and ' ' (",", ":", "<"), in random stacks of random processes and threads, some of them
 * folding to the same text: the writer prints exactly what the plain way prints.
 */
static void test_like_reference(void **state)
{
	static const char *const names[] = {"f",     "f (a.c:3)", "fa",	  "f;g", "f 12",
					    "f,",    "f:",	  "f<",	  "g",	 " h ",
					    "a b c", "x9",	  "[k]x", "",	 "f_(a.c:3)"};
	static const char *const comms[] = {"app", "app 2", "ap", "app;x"};
	unsigned int seed = 12345;

	(void)state;
	for (int pt = 0; pt < 2; pt++) {
		struct profile *p = profile__new();
		uint32_t ids[30], st[8];
		char *got, *want;

		for (int i = 0; i < 30; i++) {
			struct prof_frame fr = {.name = names[i % 15],
						.addr = (uint64_t)i,
						.kind = i >= 15 && i % 2 ? FRAME_KERNEL
									 : FRAME_USER};

			assert_int_equal(profile__intern_frame(p, &fr, &ids[i]), 0);
		}
		for (int k = 0; k < 3000; k++) {
			uint32_t depth = (seed >> 7) % 6;

			for (uint32_t d = 0; d < depth; d++) {
				seed = seed * 1103515245u + 12345u;
				st[d] = ids[(seed >> 9) % 30];
			}
			seed = seed * 1103515245u + 12345u;
			assert_int_equal(profile__add(p, (seed >> 5) % 7, pt ? (seed >> 8) % 3 : 0,
						      comms[(seed >> 11) % 4], pt ? "worker" : "",
						      st, depth, (seed >> 13) % 5),
					 0);
		}
		got = render(p, pt);
		want = reference(p, pt);
		assert_string_equal(got, want);
		free(got);
		free(want);
		profile__free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),	       cmocka_unit_test(test_per_thread),
		cmocka_unit_test(test_inlined),	       cmocka_unit_test(test_empty),
		cmocka_unit_test(test_frame_names),    cmocka_unit_test(test_sorted_as_printed),
		cmocka_unit_test(test_like_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
