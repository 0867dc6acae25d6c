// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "output/json_out.h"
#include "output/html.h"
#include "util/idtable.h"

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

/*
 * The page's table of strings: each distinct name and file once, by content (the tree's names
 * are the profile's strings, one content may have several addresses), in an array by first
 * use with a hash index (a tree of malloc'd entries cost about 90 bytes a string), then ranked.
 */
struct str_ref {
	const char *s;
	uint32_t index; /* the final index, once ranked */
	uint32_t uses;
};

struct strings {
	struct str_ref *refs; /* by first use */
	size_t n, cap;
	struct idtable idx;
};

static uint32_t str_hash(const char *s)
{
	return idtable_hash(IDTABLE_SEED, s, strlen(s));
}

static bool ref_eq(const void *ctx, uint32_t id, const void *key)
{
	const char *s = ((const struct strings *)ctx)->refs[id].s;

	return s == key || !strcmp(s, key);
}

/* Count one use of s (new strings get the next first-use number). 0 or -ENOMEM. */
static int str_use(struct strings *t, const char *s)
{
	uint32_t h = str_hash(s);
	struct idslot *sl;
	bool found;

	if (idtable_reserve(&t->idx))
		return -ENOMEM;
	sl = idtable_probe(&t->idx, h, ref_eq, t, s, &found);
	if (found) {
		t->refs[sl->id1 - 1].uses++;
		return 0;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct str_ref *nr = realloc(t->refs, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->refs = nr;
		t->cap = ncap;
	}
	t->refs[t->n] = (struct str_ref){s, 0, 1};
	idtable_fill(&t->idx, sl, h, (uint32_t)t->n++);
	return 0;
}

static uint32_t str_index(const struct strings *t, const char *s)
{
	bool found;

	return t->refs[idtable_probe(&t->idx, str_hash(s), ref_eq, t, s, &found)->id1 - 1].index;
}

/* most used first (small indexes take fewer digits), then by first use: deterministic */
static int cmp_uses(const void *a, const void *b, void *ctx)
{
	const struct str_ref *refs = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (refs[i].uses != refs[j].uses)
		return refs[i].uses > refs[j].uses ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* A JSON string (the rule for foreign text, '/' escaped) as page data. 0, -ENOMEM, -EIO. */
static int put_string(const char *s, FILE *out)
{
	json_t *j = json_out_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH) : NULL;
	int err = text ? html_script_json(text, strlen(text), out) : -ENOMEM;

	free(text);
	json_decref(j);
	return err;
}

/*
 * The digits of the node stream: a number is written in groups of 5 bits, lowest first, one
 * character a group; the last group's character is one of the first 32 of this alphabet,
 * the others one of the last 32. Every character is safe in a JSON string and in a script.
 */
static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

static void put_num(uint64_t v, char *buf, size_t *len)
{
	while (v >= 32) {
		buf[(*len)++] = digits[32 + (v & 31)];
		v >>= 5;
	}
	buf[(*len)++] = digits[v];
}

/*
 * JSON text written inside a <script> element so that no string can end it or change how the
 * page parses it ("</script>", "<!--<script>" put the parser in states where the page's own
 * closing tag no longer closes the data): '<', '>' and '&' as \u003c, \u003e, \u0026, and
 * U+2028 and U+2029 (line ends to older JavaScript) as \u2028 and \u2029. Outside strings JSON
 * has none of these bytes, and in valid UTF-8 E2 80 A8/A9 is always the whole character. 0 or
 * -EIO.
 */
int html_script_json(const char *s, size_t n, FILE *out)
{
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		const char *esc = NULL;
		size_t skip = 1;

		if (s[i] == '<')
			esc = "\\u003c";
		else if (s[i] == '>')
			esc = "\\u003e";
		else if (s[i] == '&')
			esc = "\\u0026";
		else if (s[i] == '\xe2' && i + 2 < n && s[i + 1] == '\x80' &&
			 (s[i + 2] == '\xa8' || s[i + 2] == '\xa9'))
			esc = s[i + 2] == '\xa8' ? "\\u2028" : "\\u2029", skip = 3;
		if (!esc)
			continue;
		if (fwrite(s + from, 1, i - from, out) != i - from || fputs(esc, out) < 0)
			return -EIO;
		i += skip - 1;
		from = i + 1;
	}
	if (fwrite(s + from, 1, n - from, out) != n - from)
		return -EIO;
	return 0;
}

/*
 * The data: {"title", "diff", "strings"}, each string dumped by jansson (through its
 * escaping), then "fields" and "nodes", printed here: the nodes in depth-first
 * order (root first, children in name order) as one string of numbers (see digits[]), per
 * node: how many levels up from the previous node its parent is (0: the previous node; not
 * for the root), its string index * 8 + kind, its self samples, then, when "fields" has "f",
 * its file's string index + 1 (0: none) and line, and when it has "b", the base's self
 * samples. Totals are sums of self samples, so the page computes them.
 */
static int write_data(const struct flame *f, const char *title, FILE *out)
{
	uint32_t *pre = malloc((f->n ? f->n : 1) * sizeof(*pre));
	uint32_t *stack = malloc((f->max_depth + 2) * 2 * sizeof(*stack));
	uint32_t *rank = NULL;
	struct strings tab = {0};
	bool files = false;
	size_t sp = 0, np = 0;
	char buf[128];
	int err = 0;

	if (!pre || !stack) {
		err = -ENOMEM;
		goto out;
	}
	/* depth first: the stack holds (node, children visited) pairs */
	if (f->n) {
		pre[np++] = 0;
		stack[0] = 0;
		stack[1] = 0;
		sp = 1;
	}
	while (sp) {
		const struct flame_node *n = &f->nodes[stack[2 * sp - 2]];
		uint32_t c;

		if (stack[2 * sp - 1] == n->n_children) {
			sp--;
			continue;
		}
		c = f->order[n->first_child + stack[2 * sp - 1]++];
		pre[np++] = c;
		stack[2 * sp] = c;
		stack[2 * sp + 1] = 0;
		sp++;
	}
	for (size_t k = 0; k < np; k++) {
		const struct flame_node *n = &f->nodes[pre[k]];

		err = str_use(&tab, n->name);
		if (!err && n->file) {
			files = true;
			err = str_use(&tab, n->file);
		}
		if (err)
			goto out;
	}
	rank = malloc((tab.n ? tab.n : 1) * sizeof(*rank));
	if (!rank) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < tab.n; k++)
		rank[k] = (uint32_t)k;
	qsort_r(rank, tab.n, sizeof(*rank), cmp_uses, tab.refs);
	/* {"title", "diff", "strings"} as jansson's compact dump of it was, string by string */
	if (fputs("{\"title\":", out) < 0) {
		err = -EIO;
		goto out;
	}
	err = put_string(title, out);
	if (!err && fprintf(out, ",\"diff\":%s,\"strings\":[", f->diff ? "true" : "false") < 0)
		err = -EIO;
	for (size_t k = 0; k < tab.n && !err; k++) {
		tab.refs[rank[k]].index = (uint32_t)k;
		if (k && fputc(',', out) < 0)
			err = -EIO;
		err = err ?: put_string(tab.refs[rank[k]].s, out);
	}
	if (err)
		goto out;
	/* then the nodes */
	if (fprintf(out, "],\"fields\":\"%s%s\",\"nodes\":\"", files ? "f" : "",
		    f->diff ? "b" : "") < 0) {
		err = -EIO;
		goto out;
	}
	for (size_t k = 0; k < np; k++) {
		const struct flame_node *n = &f->nodes[pre[k]];
		size_t len = 0;

		if (k)
			put_num(f->nodes[pre[k - 1]].depth + 1 - n->depth, buf, &len);
		put_num((uint64_t)str_index(&tab, n->name) * 8 + n->kind, buf, &len);
		put_num(n->self, buf, &len);
		if (files) {
			put_num(n->file ? str_index(&tab, n->file) + 1 : 0, buf, &len);
			put_num(n->line, buf, &len);
		}
		if (f->diff)
			put_num(n->base_self, buf, &len);
		if (fwrite(buf, 1, len, out) != len) {
			err = -EIO;
			goto out;
		}
	}
	if (fputs("\"}", out) < 0)
		err = -EIO;
out:
	idtable_free(&tab.idx);
	free(tab.refs);
	free(rank);
	free(stack);
	free(pre);
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
