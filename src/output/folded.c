// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/folded.h"

struct line {
	char *text; /* the stack, without the count */
	uint64_t count;
};

void folded_frame_name(const char *name, bool is_comm, char *buf, size_t size)
{
	size_t n = 0, i;

	if (!size)
		return;
	while (*name == ' ')
		name++;
	for (; *name && n + 1 < size; name++) {
		unsigned char c = (unsigned char)*name;

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		else if (c == ' ' && is_comm)
			c = '_';
		buf[n++] = (char)c;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	if (!n) {
		snprintf(buf, size, "[empty]");
		return;
	}
	for (i = n; i && buf[i - 1] >= '0' && buf[i - 1] <= '9'; i--)
		;
	if (i < n && i && buf[i - 1] == ' ')
		buf[i - 1] = '_';
}

/* Append s to the growing buffer *b (length *len, capacity *cap). */
static int append(char **b, size_t *len, size_t *cap, const char *s)
{
	size_t sl = strlen(s);

	if (*len + sl + 1 > *cap) {
		size_t ncap = (*len + sl + 1) * 2;
		char *nb = realloc(*b, ncap);

		if (!nb)
			return -ENOMEM;
		*b = nb;
		*cap = ncap;
	}
	memcpy(*b + *len, s, sl + 1);
	*len += sl;
	return 0;
}

static char *sample_line(const struct profile *p, const struct prof_sample *s,
			 const struct folded_opts *opts)
{
	char name[1024], tid[32];
	size_t len = 0, cap = 0;
	char *b = NULL;
	int err;

	folded_frame_name(s->comm, true, name, sizeof(name));
	err = append(&b, &len, &cap, name);
	if (!err && opts->per_thread) {
		folded_frame_name(s->thread, true, name, sizeof(name));
		snprintf(tid, sizeof(tid), "-%u", s->tid);
		err = append(&b, &len, &cap, ";");
		err = err ?: append(&b, &len, &cap, name);
		err = err ?: append(&b, &len, &cap, tid);
	}
	for (uint32_t i = 0; !err && i < s->nframes; i++) {
		const struct prof_frame *f = profile__frame(p, s->frames[i]);

		if (opts->lines && f->file && f->line) {
			const char *base = strrchr(f->file, '/');
			char full[1024];

			snprintf(full, sizeof(full), "%s (%s:%u)", f->name,
				 base ? base + 1 : f->file, f->line);
			folded_frame_name(full, false, name, sizeof(name) - 4);
		} else {
			folded_frame_name(f->name, false, name, sizeof(name) - 4);
		}
		if (f->kind == FRAME_KERNEL)
			strcat(name, "_[k]");
		else if (f->inlined)
			strcat(name, "_[i]");
		err = append(&b, &len, &cap, ";");
		err = err ?: append(&b, &len, &cap, name);
	}
	if (err) {
		free(b);
		return NULL;
	}
	return b;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

int folded_write(const struct profile *p, const struct folded_opts *opts, FILE *out)
{
	size_t n = profile__n_samples(p), i, j, m;
	struct line *lines = calloc(n ? n : 1, sizeof(*lines));
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct prof_sample *s = profile__sample(p, i);

		lines[i].text = sample_line(p, s, opts);
		lines[i].count = s->count;
		if (!lines[i].text) {
			err = -ENOMEM;
			goto out;
		}
	}
	qsort(lines, n, sizeof(*lines), cmp_line);
	/*
	 * Different pids or stack ids can fold to the same text: merge them.
	 * Then sort again on the whole printed line, "stack count": a frame
	 * with a space in its name ("f (a.c:3)") would otherwise put "s;f 9"
	 * after "s;f (a.c:3) 1", which sort(1) calls disorder.
	 */
	for (i = 0, m = 0; i < n; i = j) {
		uint64_t count = lines[i].count;
		char *full;

		for (j = i + 1; j < n && strcmp(lines[j].text, lines[i].text) == 0; j++)
			count += lines[j].count;
		if (!count)
			continue;
		if (asprintf(&full, "%s %llu", lines[i].text, (unsigned long long)count) < 0) {
			err = -ENOMEM;
			goto out;
		}
		free(lines[m].text);
		lines[m].text = full;
		lines[m++].count = count;
	}
	qsort(lines, m, sizeof(*lines), cmp_line);
	for (i = 0; i < m; i++) {
		if (fprintf(out, "%s\n", lines[i].text) < 0) {
			err = -EIO;
			goto out;
		}
	}
	if (fflush(out))
		err = -EIO;
out:
	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return err;
}
