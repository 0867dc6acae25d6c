// SPDX-License-Identifier: GPL-2.0
/* The HTML writer: the embedded template around one JSON document that cannot end its
 * script early, and the nodes depth first in one string of numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cmocka_inc.h"
#include "output/html.h"

/* The numbers of the "nodes" string (see digits[] in src/output/html.c), at most max. */
static size_t decode(const char *s, uint64_t *v, size_t max)
{
	static const char digits[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
	uint64_t cur = 0;
	unsigned shift = 0;
	size_t n = 0;

	for (; *s && n < max; s++) {
		const char *p = strchr(digits, *s);
		uint64_t d;

		assert_non_null(p);
		d = (uint64_t)(p - digits);
		cur |= (d & 31) << shift;
		shift += 5;
		if (d < 32) {
			v[n++] = cur;
			cur = 0;
			shift = 0;
		}
	}
	assert_int_equal(*s, 0);
	return n;
}

/* A number of 40 bits and a diff's base counts come through. */
static void test_big_diff(void **state)
{
	struct profile *p = profile__new(), *b = profile__new();
	struct prof_frame f1 = {.name = "f"};
	uint32_t s;
	char *buf = NULL, *start;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_t *d;
	uint64_t v[32];

	(void)state;
	assert_int_equal(profile__intern_frame(p, &f1, &s), 0);
	assert_int_equal(profile__add(p, 1, 0, "app", "", &s, 1, 1ULL << 40), 0);
	assert_int_equal(profile__intern_frame(b, &f1, &s), 0);
	assert_int_equal(profile__add(b, 1, 0, "app", "", &s, 1, 7), 0);
	assert_int_equal(html_write_profile(p, b, false, "d", out), 0);
	fclose(out);
	start = strstr(buf, "<script id=\"data\" type=\"application/json\">");
	assert_non_null(start);
	start += strlen("<script id=\"data\" type=\"application/json\">");
	d = json_loadb(start, (size_t)(strstr(start, "</script>") - start), 0, NULL);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "diff")));
	assert_string_equal(json_string_value(json_object_get(d, "fields")), "b");
	/* all (key, self, base self), app (up, key, self, base self), f (the same) */
	assert_int_equal(decode(json_string_value(json_object_get(d, "nodes")), v, 32), 11);
	assert_int_equal(v[9], 1ULL << 40);
	assert_int_equal(v[10], 7);
	json_decref(d);
	free(buf);
	profile__free(p);
	profile__free(b);
}

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
	json_t *d, *strs;
	const char *nodes;
	uint64_t v[32];
	size_t nv;

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
	/* all, app, main, evil: a chain, depth first; per node: levels up (not for the root),
	   string index * 8 + kind, self, file index + 1, line */
	assert_string_equal(json_string_value(json_object_get(d, "fields")), "f");
	nodes = json_string_value(json_object_get(d, "nodes"));
	assert_non_null(nodes);
	nv = decode(nodes, v, 32);
	assert_int_equal(nv, 4 + 5 * 3);
	strs = json_object_get(d, "strings");
	assert_string_equal(json_string_value(json_array_get(strs, v[0] / 8)), "all");
	assert_int_equal(v[1], 0); /* self */
	assert_int_equal(v[2], 0); /* no file */
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(v[4 + 5 * i], 0); /* each the previous one's child */
	assert_string_equal(json_string_value(json_array_get(strs, v[5] / 8)), "app");
	assert_int_equal(v[5] % 8, FLAME_PROCESS);
	assert_string_equal(json_string_value(json_array_get(strs, v[10] / 8)), "main");
	assert_int_equal(v[10] % 8, FLAME_USER);
	assert_int_equal(v[11], 1);
	assert_string_equal(json_string_value(json_array_get(strs, v[12] - 1)), "/src/a.c");
	assert_int_equal(v[13], 4);
	assert_string_equal(json_string_value(json_array_get(strs, v[15] / 8)),
			    "evil</script><script>alert(1)</script>");
	assert_int_equal(v[16], 3);
	assert_int_equal(v[17], 0);
	json_decref(d);
	free(buf);
	profile__free(p);
}

/*
 * Names that would change how the page parses its data ("<!--<script>" made the page's own
 * closing tag part of the data: a blank page) are embedded with no '<', '>', '&', U+2028 or
 * U+2029 left, and read back as they were.
 */
static void test_hostile_names(void **state)
{
	static const char *const names[] = {
		"<!--<script>", "</script><!--", "a&amp;b", "line\xe2\x80\xa8sep\xe2\x80\xa9",
		"x\xff\x1b[2J",
	};
	struct profile *p = profile__new();
	char *buf = NULL, *start, *end;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	json_t *d, *strs;
	uint32_t s;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct prof_frame f = {.name = names[i]};

		assert_int_equal(profile__intern_frame(p, &f, &s), 0);
		assert_int_equal(profile__add(p, 1, 0, names[i], "", &s, 1, 1), 0);
	}
	assert_int_equal(html_write_profile(p, NULL, false, "<!--<script>", out), 0);
	fclose(out);
	start = strstr(buf, "<script id=\"data\" type=\"application/json\">");
	assert_non_null(start);
	start += strlen("<script id=\"data\" type=\"application/json\">");
	end = strstr(start, "</script>");
	assert_non_null(end);
	for (const char *c = start; c < end; c++) {
		assert_null(strchr("<>&", *c));
		assert_false(c + 2 < end && !memcmp(c, "\xe2\x80", 2) &&
			     (c[2] == '\xa8' || c[2] == '\xa9'));
	}
	/* the rest of the page is the template's: its script follows the data */
	assert_non_null(strstr(end, "</script>\n<script>"));
	d = json_loadb(start, (size_t)(end - start), 0, NULL);
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "title")), "<!--<script>");
	strs = json_object_get(d, "strings");
	for (size_t i = 0; i < 4; i++) {
		bool found = false;

		for (size_t k = 0; k < json_array_size(strs); k++)
			found |= !strcmp(json_string_value(json_array_get(strs, k)), names[i]);
		assert_true(found);
	}
	json_decref(d);
	free(buf);
	profile__free(p);
}

static void test_script_json(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char in[] = "{\"a\":\"</script>&\xe2\x80\xa8\xe2\x80\xa9\xe2\x82\xac\"}";

	(void)state;
	assert_int_equal(html_script_json(in, strlen(in), out), 0);
	fclose(out);
	assert_string_equal(buf,
			    "{\"a\":\"\\u003c/script\\u003e\\u0026\\u2028\\u2029\xe2\x82\xac\"}");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_big_diff),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_script_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
