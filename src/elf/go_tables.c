// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "elf/go_tables.h"
#include "util/file_id.h"

struct go_file {
	struct file_id id;
	int err; /* 0: gt is the file's table */
	struct gopclntab *gt;
	unsigned int refs; /* tables handed out and not put back */
	unsigned int used; /* go_tables.epoch of its last get or put */
};

struct go_tables {
	pthread_mutex_t lock;
	void *files;  /* tsearch tree of struct go_file *, by file */
	void *tables; /* the same with a table, by table */
	size_t n, n_go;
	unsigned int epoch; /* go_tables__trim calls */
};

/* Trims a table nobody holds is kept for (a file run again soon is not read again). */
#define GO_TABLES_KEEP 8

static int cmp_file(const void *a, const void *b)
{
	const struct go_file *x = a, *y = b;

	return file_id_cmp(&x->id, &y->id);
}

struct go_tables *go_tables__new(void)
{
	struct go_tables *t = calloc(1, sizeof(*t));

	if (t && pthread_mutex_init(&t->lock, NULL)) {
		free(t);
		return NULL;
	}
	return t;
}

static int cmp_table(const void *a, const void *b)
{
	const struct go_file *x = a, *y = b;

	return x->gt < y->gt ? -1 : x->gt > y->gt;
}

static void free_file(void *p)
{
	struct go_file *f = p;

	gopclntab__free(f->gt);
	free(f);
}

static void nothing(void *p)
{
	(void)p;
}

void go_tables__free(struct go_tables *t)
{
	if (!t)
		return;
	tdestroy(t->tables, nothing);
	tdestroy(t->files, free_file);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Read the table: through ef when the caller has the file open, else opened here. */
static int read_table(int fd, const struct elf_file *ef, struct gopclntab **out)
{
	struct elf_file own = {.map.slot = -1};
	int err;

	if (!ef) {
		if (elf_file_open(fd, &own))
			return -ENOEXEC;
		ef = &own;
	}
	*out = gopclntab__from_elf(ef->elf);
	err = *out ? 0 : errno ? -errno : -ENOENT;
	if (!err && elf_file_changed(ef)) {
		gopclntab__free(*out);
		*out = NULL;
		err = -ESTALE;
	}
	elf_file_close(&own);
	return err;
}

int go_tables__get_elf(struct go_tables *t, int fd, const struct elf_file *ef,
		       const struct gopclntab **out)
{
	struct go_file key = {0}, *f, **slot;
	struct stat st;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return -EBADF;
	key = (struct go_file){.id = file_id_of(&st)};
	pthread_mutex_lock(&t->lock);
	slot = tfind(&key, &t->files, cmp_file);
	if (slot) {
		f = *slot;
		goto found;
	}
	f = malloc(sizeof(*f));
	if (!f) {
		err = -ENOMEM;
		goto out;
	}
	*f = key;
	f->err = read_table(fd, ef, &f->gt);
	/*
	 * What the file is (no table, not ELF, a table that does not parse) is kept; a failed
	 * read (the file shrank under it, memory) is not: the next caller reads it again.
	 */
	if (f->err == -ENOMEM || f->err == -ESTALE || f->err == -EIO || f->err == -EFAULT) {
		err = f->err;
		free_file(f);
		goto out;
	}
	if (!tsearch(f, &t->files, cmp_file)) {
		err = -ENOMEM;
		free_file(f);
		goto out;
	}
	if (f->gt && !tsearch(f, &t->tables, cmp_table)) {
		tdelete(f, &t->files, cmp_file);
		free_file(f);
		err = -ENOMEM;
		goto out;
	}
	t->n++;
	t->n_go += !f->err;
found:
	err = f->err;
	*out = f->gt;
	f->used = t->epoch;
	f->refs += f->gt != NULL;
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

int go_tables__get(struct go_tables *t, int fd, const struct gopclntab **out)
{
	return go_tables__get_elf(t, fd, NULL, out);
}

void go_tables__put(struct go_tables *t, const struct gopclntab *gt)
{
	struct go_file key = {.gt = (struct gopclntab *)gt}, **slot;

	if (!t || !gt)
		return;
	pthread_mutex_lock(&t->lock);
	slot = tfind(&key, &t->tables, cmp_table);
	if (slot && (*slot)->refs) {
		(*slot)->refs--;
		(*slot)->used = t->epoch;
	}
	pthread_mutex_unlock(&t->lock);
}

struct collect {
	struct go_tables *t;
	struct go_file **v;
	size_t n, cap;
	bool failed;
};

static void collect_unused(const void *node, VISIT which, void *arg)
{
	struct go_file *f = *(struct go_file *const *)node;
	struct collect *c = arg;

	if ((which != postorder && which != leaf) || f->refs ||
	    c->t->epoch - f->used < GO_TABLES_KEEP)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct go_file **v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->failed = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = f;
}

size_t go_tables__trim(struct go_tables *t)
{
	struct collect c = {.t = t};

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	twalk_r(t->tables, collect_unused, &c);
	for (size_t i = 0; i < c.n; i++) {
		tdelete(c.v[i], &t->tables, cmp_table);
		tdelete(c.v[i], &t->files, cmp_file);
		free_file(c.v[i]);
	}
	t->n -= c.n;
	t->n_go -= c.n;
	t->epoch++;
	pthread_mutex_unlock(&t->lock);
	free(c.v);
	return c.n;
}

void go_tables__counts(struct go_tables *t, size_t *files, size_t *go)
{
	pthread_mutex_lock(&t->lock);
	*files = t->n;
	*go = t->n_go;
	pthread_mutex_unlock(&t->lock);
}
