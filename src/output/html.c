// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "output/html.h"

/*
 * The template, embedded as it is in the repository (not as C literals): the assembler copies
 * the file's bytes into .rodata, followed by a NUL. The Makefile makes this object depend on
 * the file; the path is relative to the top of the tree, where make runs the compiler.
 */
__asm__(".pushsection .rodata\n"
	".global cp_html_template\n"
	".type cp_html_template, @object\n"
	"cp_html_template:\n"
	".incbin \"src/output/html/flame.html\"\n"
	".byte 0\n"
	".popsection\n");
extern const char cp_html_template[];

#define DATA_MARK "/*CPUPROF_DATA*/"

struct str_ref {
	const char *s; /* interned: compared by address */
	uint32_t index;
};

static int cmp_ref(const void *a, const void *b)
{
	const char *x = ((const struct str_ref *)a)->s, *y = ((const struct str_ref *)b)->s;

	return x < y ? -1 : x > y;
}

static void free_ref(void *p)
{
	free(p);
}

/* A JSON string of s; bytes that are not UTF-8 become '?' (names from foreign files). */
static json_t *str_json(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j || !(c = strdup(s)))
		return j;
	for (unsigned char *u = (unsigned char *)c; *u; u++)
		if (*u >= 0x80)
			*u = '?';
	j = json_string(c);
	free(c);
	return j;
}

/* The index of s in strings (appended when new), or -1 on ENOMEM. */
static json_int_t str_index(void **tree, json_t *strings, const char *s)
{
	struct str_ref probe = {s, 0}, *r, **slot;

	slot = tfind(&probe, tree, cmp_ref);
	if (slot)
		return (*slot)->index;
	r = malloc(sizeof(*r));
	if (!r)
		return -1;
	r->s = s;
	r->index = (uint32_t)json_array_size(strings);
	if (json_array_append_new(strings, str_json(s)) || !tsearch(r, tree, cmp_ref)) {
		free(r);
		return -1;
	}
	return r->index;
}

/*
 * The data: {"title", "diff", "base_total", "strings"} built with jansson (every string of
 * the profile goes through its escaping), then the node arrays, plain numbers, printed here:
 * a profile of a million nodes as jansson values would take hundreds of MB.
 * Nodes: the root, then order[] (parents before their children, siblings in name order).
 */
static const char *const keys[] = {"name", "kind", "parent",   "total",	   "self",
				   "file", "line", "base_tot", "base_self"};

static int write_data(const struct flame *f, const char *title, FILE *out)
{
	json_t *doc = json_object(), *strings = json_array();
	json_int_t *v = calloc((f->n ? f->n : 1) * 9, sizeof(*v));
	uint32_t *newid = malloc((f->n ? f->n : 1) * sizeof(*newid));
	size_t na = f->diff ? 9 : 7, hl;
	void *tree = NULL;
	char *head = NULL;
	int err = 0;

	if (!doc || !strings || !v || !newid) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < f->n; k++) {
		uint32_t id = k ? f->order[k - 1] : 0;
		const struct flame_node *n = &f->nodes[id];
		json_int_t *row = &v[k * 9];

		newid[id] = (uint32_t)k;
		row[0] = str_index(&tree, strings, n->name);
		row[1] = n->kind;
		row[2] = n->parent == FLAME_NONE ? -1 : (json_int_t)newid[n->parent];
		row[3] = (json_int_t)n->total;
		row[4] = (json_int_t)n->self;
		row[5] = n->file ? str_index(&tree, strings, n->file) : -1;
		row[6] = n->line;
		row[7] = (json_int_t)n->base_total;
		row[8] = (json_int_t)n->base_self;
		if (row[0] < 0 || (n->file && row[5] < 0)) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (json_object_set_new(doc, "title", str_json(title)) ||
	    json_object_set_new(doc, "diff", json_boolean(f->diff)) ||
	    json_object_set_new(doc, "base_total",
				json_integer((json_int_t)f->nodes[0].base_total)) ||
	    json_object_set(doc, "strings", strings)) {
		err = -ENOMEM;
		goto out;
	}
	/* JSON_ESCAPE_SLASH: no "</script>" can end the data early */
	head = json_dumps(doc, JSON_COMPACT | JSON_ESCAPE_SLASH | JSON_PRESERVE_ORDER);
	if (!head || (hl = strlen(head)) < 2) {
		err = -ENOMEM;
		goto out;
	}
	/* the object without its closing brace, then the arrays */
	if (fwrite(head, 1, hl - 1, out) != hl - 1)
		err = -EIO;
	for (size_t j = 0; !err && j < na; j++) {
		if (fprintf(out, ",\"%s\":[", keys[j]) < 0)
			err = -EIO;
		for (size_t k = 0; !err && k < f->n; k++)
			if (fprintf(out, k ? ",%lld" : "%lld", (long long)v[k * 9 + j]) < 0)
				err = -EIO;
		if (!err && fputc(']', out) < 0)
			err = -EIO;
	}
	if (!err && fputc('}', out) < 0)
		err = -EIO;
out:
	free(head);
	json_decref(strings);
	json_decref(doc);
	tdestroy(tree, free_ref);
	free(newid);
	free(v);
	return err;
}

int html_write(const struct flame *f, const char *title, FILE *out)
{
	const char *mark = strstr(cp_html_template, DATA_MARK);
	size_t before;
	int err;

	if (!mark)
		return -EINVAL; /* a broken template: caught by the tests */
	before = (size_t)(mark - cp_html_template);
	if (fwrite(cp_html_template, 1, before, out) != before)
		return -EIO;
	err = write_data(f, title, out);
	if (!err && (fputs(mark + strlen(DATA_MARK), out) < 0 || fflush(out)))
		err = -EIO;
	return err;
}

int html_write_profile(const struct profile *p, const struct profile *base, bool per_thread,
		       const char *title, FILE *out)
{
	struct flame f;
	int err = flame_build(p, base, per_thread, &f);

	if (err)
		return err;
	err = html_write(&f, title, out);
	flame_free(&f);
	return err;
}
