// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/flame.h"
#include "util/utf8safe.h"

struct node_key {
	uint32_t parent;
	const char *name;
	enum flame_kind kind;
};

static uint32_t key_hash(const struct node_key *k)
{
	uint32_t h = IDTABLE_SEED;

	h = idtable_hash(h, &k->parent, sizeof(k->parent));
	h = idtable_hash(h, k->name, strlen(k->name));
	return idtable_hash(h, &k->kind, sizeof(k->kind));
}

static bool node_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct flame_node *n = &((const struct flame *)ctx)->nodes[id];
	const struct node_key *k = key;

	return n->parent == k->parent && n->kind == k->kind &&
	       (n->name == k->name || !strcmp(n->name, k->name));
}

/*
 * The child of parent named name, created if new; its id in *id. name and file must outlive
 * the tree (the profile's strings: a copy each made a tree of distinct frames 30 bytes a node
 * bigger), or be copied (own: the tree's set).
 */
static int child(struct flame *f, uint32_t parent, const char *name, bool own, enum flame_kind kind,
		 const char *file, uint32_t line, uint32_t *id)
{
	struct node_key k = {parent, own ? strset_intern(&f->names, name) : name, kind};
	struct idslot *slot;
	uint32_t h;
	bool found;

	if (!k.name || idtable_reserve(&f->idx))
		return -ENOMEM;
	h = key_hash(&k);
	slot = idtable_probe(&f->idx, h, node_eq, f, &k, &found);
	if (found) {
		*id = slot->id1 - 1;
		return 0;
	}
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 1024;
		struct flame_node *nn = realloc(f->nodes, ncap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		f->nodes = nn;
		f->cap = ncap;
	}
	*id = (uint32_t)f->n;
	f->nodes[f->n] = (struct flame_node){
		.name = k.name,
		.file = file,
		.line = line,
		.parent = parent,
		.depth = parent == FLAME_NONE ? 0 : f->nodes[parent].depth + 1,
		.kind = kind,
	};
	if (f->nodes[f->n].depth > f->max_depth)
		f->max_depth = f->nodes[f->n].depth;
	f->n++;
	idtable_fill(&f->idx, slot, h, *id);
	return 0;
}

static enum flame_kind frame_kind(const struct prof_frame *fr)
{
	if (fr->kind == FRAME_KERNEL)
		return FLAME_KERNEL;
	if (fr->kind == FRAME_PSEUDO)
		return FLAME_PSEUDO;
	return fr->inlined ? FLAME_INLINED : FLAME_USER;
}

static int add_profile(struct flame *f, const struct profile *p, bool per_thread, bool base)
{
	char name[512];
	uint32_t cur, id;
	int err;

	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);
		uint64_t c = s->count;

		cur = 0;
		*(base ? &f->nodes[0].base_total : &f->nodes[0].total) += c;
		err = child(f, cur, s->comm, false, FLAME_PROCESS, NULL, 0, &id);
		if (err)
			return err;
		cur = id;
		*(base ? &f->nodes[cur].base_total : &f->nodes[cur].total) += c;
		if (per_thread) {
			snprintf(name, sizeof(name), "%s (tid %u)",
				 *s->thread ? s->thread : s->comm, s->tid);
			err = child(f, cur, name, true, FLAME_THREAD, NULL, 0, &id);
			if (err)
				return err;
			cur = id;
			*(base ? &f->nodes[cur].base_total : &f->nodes[cur].total) += c;
		}
		for (uint32_t k = 0; k < s->nframes; k++) {
			const struct prof_frame *fr = profile__frame(p, s->frames[k]);

			err = child(f, cur, fr->name, false, frame_kind(fr), fr->file, fr->line,
				    &id);
			if (err)
				return err;
			cur = id;
			*(base ? &f->nodes[cur].base_total : &f->nodes[cur].total) += c;
		}
		*(base ? &f->nodes[cur].base_self : &f->nodes[cur].self) += c;
	}
	return 0;
}

static const struct flame *sort_ctx;

static int cmp_order(const void *a, const void *b)
{
	const struct flame_node *x = &sort_ctx->nodes[*(const uint32_t *)a];
	const struct flame_node *y = &sort_ctx->nodes[*(const uint32_t *)b];
	int c;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

int flame_build(const struct profile *p, const struct profile *base, bool per_thread,
		struct flame *f)
{
	uint32_t root;
	int err;

	memset(f, 0, sizeof(*f));
	f->diff = base != NULL;
	err = child(f, FLAME_NONE, "all", false, FLAME_ROOT, NULL, 0, &root);
	err = err ?: add_profile(f, p, per_thread, false);
	if (!err && base)
		err = add_profile(f, base, per_thread, true);
	if (err)
		goto fail;
	/* the index only finds children while the tree grows */
	idtable_free(&f->idx);
	f->order = malloc((f->n ? f->n : 1) * sizeof(*f->order));
	if (!f->order) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 1; i < f->n; i++)
		f->order[i - 1] = (uint32_t)i;
	sort_ctx = f;
	qsort(f->order, f->n - 1, sizeof(*f->order), cmp_order);
	sort_ctx = NULL;
	for (size_t i = 0; i < f->n - 1; i++) {
		struct flame_node *par = &f->nodes[f->nodes[f->order[i]].parent];

		if (!par->n_children)
			par->first_child = (uint32_t)i;
		par->n_children++;
	}
	return 0;
fail:
	flame_free(f);
	return err;
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f->order);
	idtable_free(&f->idx);
	strset_clear(&f->names);
	memset(f, 0, sizeof(*f));
}

void flame_label(const struct flame_node *n, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", n->name,
		 n->kind == FLAME_KERNEL    ? "_[k]"
		 : n->kind == FLAME_INLINED ? "_[i]"
					    : "");
}

void flame_xml_escape(const char *s, char *buf, size_t size)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = 0;

	if (!size)
		return;
	while (*u) {
		const char *rep = NULL;
		char one[5];
		bool ok;
		size_t n = utf8safe_next((const char *)u, &ok), rl;

		switch (*u) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		default:
			/* the rule for foreign text: what XML forbids is refused too */
			if (!ok) {
				rep = "\xef\xbf\xbd";
			} else {
				memcpy(one, u, n);
				one[n] = '\0';
				rep = one;
			}
		}
		rl = strlen(rep);
		if (len + rl + 1 > size)
			break;
		memcpy(buf + len, rep, rl);
		len += rl;
		u += n;
	}
	buf[len] = '\0';
}
