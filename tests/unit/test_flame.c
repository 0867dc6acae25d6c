// SPDX-License-Identifier: GPL-2.0
/* The flame graph tree (levels, counts, order, diff) and the XML escaping of names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/flame.h"

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind, bool inl)
{
	struct prof_frame f = {.name = name, .kind = kind, .inlined = inl};
	uint32_t id;

	assert_int_equal(profile__intern_frame(p, &f, &id), 0);
	return id;
}

static const struct flame_node *find(const struct flame *f, uint32_t parent, const char *label)
{
	char buf[256];

	for (size_t i = 0; i < f->n; i++) {
		flame_label(&f->nodes[i], buf, sizeof(buf));
		if (f->nodes[i].parent == parent && !strcmp(buf, label))
			return &f->nodes[i];
	}
	fail_msg("no node %s under %u", label, parent);
	return NULL;
}

static uint32_t id_of(const struct flame *f, const struct flame_node *n)
{
	return (uint32_t)(n - f->nodes);
}

static void test_tree(void **state)
{
	struct profile *p = profile__new(), *b = profile__new();
	uint32_t m = frame(p, "main", FRAME_USER, false), r = frame(p, "read", FRAME_USER, false);
	uint32_t k = frame(p, "read", FRAME_KERNEL, false), i = frame(p, "inl", FRAME_USER, true);
	uint32_t s1[] = {m, r, k}, s2[] = {m, i}, s3[] = {m};
	uint32_t bm = frame(b, "main", FRAME_USER, false);
	const struct flame_node *proc, *mn, *rn;
	struct flame f;

	(void)state;
	assert_int_equal(profile__add(p, 1, 7, "app", "worker", s1, 3, 5), 0);
	assert_int_equal(profile__add(p, 1, 8, "app", "", s2, 2, 3), 0);
	assert_int_equal(profile__add(p, 1, 8, "app", "", s3, 1, 2), 0);
	assert_int_equal(profile__add(b, 1, 0, "app", "", &bm, 1, 4), 0);
	assert_int_equal(flame_build(p, NULL, true, &f), 0);
	assert_int_equal(f.nodes[0].total, 10);
	proc = find(&f, 0, "app");
	assert_int_equal(proc->kind, FLAME_PROCESS);
	assert_int_equal(proc->total, 10);
	/* threads under the process, named by thread (or process) name and tid */
	assert_int_equal(find(&f, id_of(&f, proc), "worker (tid 7)")->total, 5);
	mn = find(&f, id_of(&f, find(&f, id_of(&f, proc), "app (tid 8)")), "main");
	assert_int_equal(mn->total, 5);
	assert_int_equal(mn->self, 2);
	assert_int_equal(find(&f, id_of(&f, mn), "inl_[i]")->self, 3);
	rn = find(
		&f,
		id_of(&f, find(&f, id_of(&f, find(&f, id_of(&f, proc), "worker (tid 7)")), "main")),
		"read");
	assert_int_equal(find(&f, id_of(&f, rn), "read_[k]")->kind, FLAME_KERNEL);
	assert_int_equal(f.max_depth, 5);
	/* children in name order */
	for (size_t n = 0; n + 2 < f.n; n++)
		if (f.nodes[f.order[n]].parent == f.nodes[f.order[n + 1]].parent)
			assert_true(strcmp(f.nodes[f.order[n]].name,
					   f.nodes[f.order[n + 1]].name) <= 0);
	flame_free(&f);
	/* a diff keeps the base's counts beside the new ones */
	assert_int_equal(flame_build(p, b, false, &f), 0);
	mn = find(&f, id_of(&f, find(&f, 0, "app")), "main");
	assert_int_equal(mn->total, 10);
	assert_int_equal(mn->base_total, 4);
	assert_int_equal(mn->base_self, 4);
	assert_int_equal(f.nodes[0].base_total, 4);
	flame_free(&f);
	profile__free(p);
	profile__free(b);
}

static void test_escape(void **state)
{
	char buf[64];

	(void)state;
	flame_xml_escape("a<b>&\"c'", buf, sizeof(buf));
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;c&apos;");
	/* control characters, bytes that are not UTF-8 and what XML forbids become U+FFFD */
	flame_xml_escape("x\001y\xff\xc3z\xe2\x82\xac", buf, sizeof(buf));
	assert_string_equal(buf, "x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbdz\xe2\x82\xac");
	flame_xml_escape("\xef\xbf\xbe\xed\xa0\x80\xf4\x90\x80\x80", buf, sizeof(buf));
	for (const char *c = buf; *c; c += 3)
		assert_memory_equal(c, "\xef\xbf\xbd", 3);
	assert_int_equal(strlen(buf), 3 * (1 + 3 + 4));
	/* cut at the buffer, never inside an entity */
	flame_xml_escape("&&&&", buf, 12);
	assert_string_equal(buf, "&amp;&amp;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
