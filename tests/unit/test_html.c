// SPDX-License-Identifier: GPL-2.0
/* The HTML writer: the embedded template around one JSON document that cannot end its
 * script early, and the node arrays parallel and in parent-first order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cmocka_inc.h"
#include "output/html.h"

static void test_page(void **state)
{
	struct profile *p = profile__new();
	struct prof_frame f1 = {.name = "main", .file = "/src/a.c", .line = 4};
	struct prof_frame f2 = {.name = "evil</script><script>alert(1)</script>"};
	uint32_t s[2];
	char *buf = NULL, *start, *end;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_error_t jerr;
	json_t *d, *parent;

	(void)state;
	assert_int_equal(profile__intern_frame(p, &f1, &s[0]), 0);
	assert_int_equal(profile__intern_frame(p, &f2, &s[1]), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s, 2, 3), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", s, 1, 1), 0);
	assert_int_equal(html_write_profile(p, NULL, false, "t & <b>", out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "<!DOCTYPE html>"));
	assert_null(strstr(buf, "/*CPUPROF_DATA*/"));
	/* the only "</script" are the template's own two */
	start = strstr(buf, "<script id=\"data\" type=\"application/json\">");
	assert_non_null(start);
	start += strlen("<script id=\"data\" type=\"application/json\">");
	end = strstr(start, "</script>");
	assert_non_null(end);
	d = json_loadb(start, (size_t)(end - start), 0, &jerr);
	if (!d)
		fail_msg("data is not JSON: %s", jerr.text);
	assert_string_equal(json_string_value(json_object_get(d, "title")), "t & <b>");
	parent = json_object_get(d, "parent");
	/* all, app, main, evil: a chain, parents first */
	assert_int_equal(json_array_size(parent), 4);
	assert_int_equal(json_integer_value(json_array_get(parent, 0)), -1);
	for (size_t i = 1; i < 4; i++)
		assert_int_equal(json_integer_value(json_array_get(parent, i)), i - 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "total"), 2)), 4);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "self"), 2)), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "line"), 2)), 4);
	assert_int_equal(json_array_size(json_object_get(d, "name")), 4);
	assert_int_equal(json_array_size(json_object_get(d, "kind")), 4);
	assert_null(json_object_get(d, "base_tot"));
	assert_string_equal(
		json_string_value(json_array_get(
			json_object_get(d, "strings"),
			(size_t)json_integer_value(json_array_get(json_object_get(d, "name"), 3)))),
		"evil</script><script>alert(1)</script>");
	json_decref(d);
	free(buf);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
