// SPDX-License-Identifier: GPL-2.0
/* Top tables: self and total per key, recursion counted once, filters, order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/top.h"

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind, const char *file)
{
	struct prof_frame f = {.name = name, .kind = kind, .file = file, .line = 7};
	uint32_t id;

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

static struct profile *build(void)
{
	struct profile *p = profile__new();
	uint32_t m = frame(p, "main", FRAME_USER, "/s/a.c"),
		 r = frame(p, "rec", FRAME_USER, "/s/b.c");
	uint32_t k = frame(p, "read", FRAME_KERNEL, NULL);
	uint32_t s1[] = {m, r, r, r}, s2[] = {m, r, k}, s3[] = {m};

	assert_int_equal(profile__add(p, 1, 0, "app", "", s1, 4, 6), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s2, 3, 3), 0);
	assert_int_equal(profile__add(p, 2, 0, "tool", "", s3, 1, 1), 0);
	return p;
}

static void check_row(const struct top *t, const char *key, uint64_t self, uint64_t total)
{
	const struct top_row *r = top_find(t, key);

	if (!r)
		fail_msg("no row %s", key);
	assert_int_equal(r->self, self);
	assert_int_equal(r->total, total);
}

/*
 * Labels: --tag keeps the samples with each label given (key and value), --by label:KEY makes a
 * row per value, the samples without the label in one row of their own.
 */
static void test_labels(void **state)
{
	struct profile *p = profile__new();
	uint32_t m = frame(p, "main", FRAME_USER, "/s/a.c"),
		 a = frame(p, "workA", FRAME_USER, NULL), b = frame(p, "workB", FRAME_USER, NULL);
	uint32_t sa[] = {m, a}, sb[] = {m, b};
	struct label tags[2] = {{"trace_id", "aa"}, {"span_id", "01"}};
	struct top_opts o = {.by = TOP_FUNCTION, .tags = tags, .n_tags = 1};
	enum top_by by;
	const char *key = NULL;
	struct top t;

	(void)state;
	assert_int_equal(
		profile__add_labeled(p, 1, 0, "go", "", "span_id=01,trace_id=aa", sa, 2, 5), 0);
	assert_int_equal(profile__add_labeled(p, 1, 0, "go", "", "trace_id=aa", sa, 2, 2), 0);
	assert_int_equal(profile__add_labeled(p, 1, 0, "go", "", "trace_id=bb", sb, 2, 4), 0);
	assert_int_equal(profile__add(p, 1, 0, "go", "", sb, 2, 1), 0);
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 7);
	check_row(&t, "workA", 7, 7);
	assert_null(top_find(&t, "workB"));
	top_free(&t);
	o.n_tags = 2; /* both */
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 5);
	top_free(&t);
	tags[0].val = "a"; /* values match whole */
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 0);
	top_free(&t);
	assert_int_equal(top_by_parse("label:trace_id", &by, &key), 0);
	assert_int_equal(by, TOP_LABEL);
	assert_string_equal(key, "trace_id");
	assert_int_equal(top_by_parse("label:", &by, &key), -EINVAL);
	assert_int_equal(top_by_parse("thread", &by, &key), 0);
	assert_int_equal(by, TOP_THREAD);
	o = (struct top_opts){.by = TOP_LABEL, .label = "trace_id"};
	assert_int_equal(top_compute(p, &o, &t), 0);
	check_row(&t, "aa", 7, 7);
	check_row(&t, "bb", 4, 4);
	check_row(&t, "[no trace_id label]", 1, 1);
	assert_int_equal(t.n, 3);
	top_free(&t);
	profile__free(p);
}

/*
 * A label value is the target's (a Go program sets any bytes): --by label:KEY rows show it by
 * the rule of names (util/utf8safe.h), never a control byte that reaches the terminal: ESC,
 * a newline that would make a row of its own, a C1 CSI, a byte of no UTF-8.
 */
static void test_label_hostile(void **state)
{
	struct profile *p = profile__new();
	uint32_t m = frame(p, "main", FRAME_USER, NULL);
	uint32_t s[] = {m};
	struct top_opts o = {.by = TOP_LABEL, .label = "k"};
	struct top t;

	(void)state;
	/* the set's own escapes (labelset.h) of ESC, '\n' and ';'; then C1 CSI and 0xff raw */
	assert_int_equal(profile__add_labeled(p, 1, 0, "go", "", "k=a%1B[2J<b>%3Bx%0Ay", s, 1, 3),
			 0);
	assert_int_equal(profile__add_labeled(p, 1, 0, "go", "",
					      "k=\xc2\x9b"
					      "2J\xff",
					      s, 1, 2),
			 0);
	assert_int_equal(top_compute(p, &o, &t), 0);
	check_row(&t, "a\xef\xbf\xbd[2J<b>;x\xef\xbf\xbdy", 3, 3);
	check_row(&t,
		  "\xef\xbf\xbd"
		  "2J\xef\xbf\xbd",
		  2, 2);
	for (size_t i = 0; i < t.n; i++)
		for (const char *c = t.rows[i].key; *c; c++)
			assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	top_free(&t);
	profile__free(p);
}

static void test_functions(void **state)
{
	struct profile *p = build();
	struct top_opts o = {.by = TOP_FUNCTION};
	struct top t;

	(void)state;
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 10);
	assert_int_equal(t.n, 3);
	/* sorted by self, total, name; rec's recursion counts once in total */
	assert_string_equal(t.rows[0].key, "rec");
	check_row(&t, "rec", 6, 9);
	check_row(&t, "read_[k]", 3, 3);
	check_row(&t, "main", 1, 10);
	assert_string_equal(t.rows[1].key, "read_[k]");
	top_free(&t);
	profile__free(p);
}

static void test_keys_and_filters(void **state)
{
	struct profile *p = build();
	struct top_opts o = {.by = TOP_FILE};
	regex_t re;
	struct top t;

	(void)state;
	assert_int_equal(top_compute(p, &o, &t), 0);
	check_row(&t, "/s/b.c", 6, 9);
	check_row(&t, "[unknown]", 3, 3);
	top_free(&t);
	o.by = TOP_LINE;
	assert_int_equal(top_compute(p, &o, &t), 0);
	check_row(&t, "rec b.c:7", 6, 9);
	top_free(&t);
	o.by = TOP_PROCESS;
	assert_int_equal(top_compute(p, &o, &t), 0);
	check_row(&t, "app (pid 1)", 9, 9);
	check_row(&t, "tool (pid 2)", 1, 1);
	top_free(&t);
	/* --pid and --comm narrow the base; --focus keeps the base */
	o = (struct top_opts){.by = TOP_FUNCTION, .has_pid = true, .pid = 2};
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 1);
	assert_int_equal(t.n, 1);
	top_free(&t);
	assert_int_equal(regcomp(&re, "^read$", REG_EXTENDED | REG_NOSUB), 0);
	o = (struct top_opts){.by = TOP_FUNCTION, .focus = &re};
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 10);
	assert_int_equal(t.focused, 3);
	check_row(&t, "main", 0, 3);
	top_free(&t);
	o = (struct top_opts){.by = TOP_FUNCTION, .comm = &re};
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.samples, 0);
	assert_int_equal(t.n, 0);
	top_free(&t);
	regfree(&re);
	profile__free(p);
}

static void test_text(void **state)
{
	struct profile *p = build();
	struct top_opts o = {.by = TOP_FUNCTION};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct top t;

	(void)state;
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(top_write_text(&t, o.by, 2, f), 0);
	fclose(f);
	assert_string_equal(buf, "      self   self%      total  total%  function\n"
				 "         6  60.00%          9  90.00%  rec\n"
				 "         3  30.00%          3  30.00%  read_[k]\n");
	free(buf);
	top_free(&t);
	profile__free(p);
}

/*
 * Many distinct functions (the rows' hash table grows many times): each its own row with its
 * own counts, the order by self then name.
 */
static void test_many_rows(void **state)
{
	struct profile *p = profile__new();
	struct top_opts o = {.by = TOP_FUNCTION};
	uint32_t root = frame(p, "root", FRAME_USER, NULL), st[3];
	char name[32];
	struct top t;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		st[0] = root;
		st[1] = frame(p, name, FRAME_USER, NULL);
		st[2] = st[1];
		assert_int_equal(profile__add(p, 1, 0, "app", "", st, 3, (uint64_t)i + 1), 0);
	}
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.n, 5001);
	assert_string_equal(t.rows[0].key, "f4999");
	check_row(&t, "f4999", 5000, 5000);
	check_row(&t, "f17", 18, 18);
	check_row(&t, "root", 0, 5000ull * 5001 / 2);
	assert_string_equal(t.rows[5000].key, "root");
	top_free(&t);
	profile__free(p);
}

/*
 * keep: the first rows of the whole order (ties broken by key), the others counted only; frames
 * of one key (a name alone, with a file, inlined) make one row.
 */
static void test_keep(void **state)
{
	struct profile *p = profile__new();
	struct top_opts o = {.by = TOP_FUNCTION};
	struct prof_frame inl = {.name = "f7", .inlined = true};
	uint32_t st[3], id;
	char name[32];
	struct top all, t;

	(void)state;
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		st[0] = frame(p, "root", FRAME_USER, NULL);
		st[1] = frame(p, name, FRAME_USER, i % 2 ? "/s/x.c" : NULL);
		st[2] = frame(p, i % 4 ? name : "f7", FRAME_USER, NULL);
		/* counts of few values: many ties */
		assert_int_equal(profile__add(p, 1, 0, "app", "", st, 3, (uint64_t)(i % 3) + 1), 0);
	}
	assert_int_equal(profile__intern_frame(p, &inl, &id), 0);
	st[1] = id;
	assert_int_equal(profile__add(p, 1, 0, "app", "", st, 2, 1), 0);
	assert_int_equal(top_compute(p, &o, &all), 0);
	assert_int_equal(all.n, 301);
	/* f7: its own sample (2; twice in it), the 75 that end in it (150), the inlined one */
	check_row(&all, "f7", 153, 153);
	for (size_t k = 1; k <= 302; k += 50) {
		o.keep = k;
		assert_int_equal(top_compute(p, &o, &t), 0);
		assert_int_equal(t.n, k < all.n ? k : all.n);
		assert_int_equal(t.samples, all.samples);
		for (size_t i = 0; i < t.n; i++) {
			assert_string_equal(t.rows[i].key, all.rows[i].key);
			assert_int_equal(t.rows[i].self, all.rows[i].self);
			assert_int_equal(t.rows[i].total, all.rows[i].total);
		}
		top_free(&t);
	}
	o = (struct top_opts){.by = TOP_PROCESS, .keep = 1};
	assert_int_equal(top_compute(p, &o, &t), 0);
	assert_int_equal(t.n, 1);
	check_row(&t, "app (pid 1)", all.samples, all.samples);
	top_free(&t);
	top_free(&all);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functions),	 cmocka_unit_test(test_keep),
		cmocka_unit_test(test_keys_and_filters), cmocka_unit_test(test_text),
		cmocka_unit_test(test_many_rows),	 cmocka_unit_test(test_labels),
		cmocka_unit_test(test_label_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
