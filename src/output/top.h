/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Top functions (cpuprof report, and the tables of cpuprof diff): per key (function, file,
 * line, process, thread or the value of a label), the samples where it is the leaf (self) and those
 * whose stack holds it at least once (total). Deterministic: rows sorted by self, then total (both
 * descending), then key (bytewise).
 */
#ifndef CPUPROF_TOP_H
#define CPUPROF_TOP_H
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "profile/profile.h"
#include "util/labelset.h"

enum top_by {
	TOP_FUNCTION = 0,
	TOP_FILE,
	TOP_LINE,
	TOP_PROCESS,
	TOP_THREAD,
	TOP_LABEL, /* the value of one label (top_opts.label) */
};

struct top_opts {
	enum top_by by;
	bool has_pid;
	uint32_t pid;		  /* with has_pid: only this process's samples */
	const regex_t *comm;	  /* NULL, or only samples whose process name matches */
	const regex_t *focus;	  /* NULL, or only samples with a frame whose name matches */
	const char *label;	  /* TOP_LABEL: the label's key */
	const struct label *tags; /* only samples with each of these labels (key and value) */
	size_t n_tags;
	size_t keep; /* 0, or only the first keep rows are made (the others counted) */
};

struct top_row {
	char *key;
	uint64_t self, total;
};

struct top_keys; /* the rows' keys, in blocks */

struct top {
	struct top_row *rows;
	size_t n;
	struct top_keys *keys;
	uint64_t samples; /* samples that passed --pid and --comm: the base of the shares */
	uint64_t focused; /* of those, the samples --focus kept (= samples without it) */
};

/*
 * "function", "file"... and back; "label:KEY" is TOP_LABEL, KEY in *label (a pointer into s);
 * -EINVAL for an unknown name.
 */
const char *top_by_name(enum top_by by);
int top_by_parse(const char *s, enum top_by *by, const char **label);

/* The key of frame f (function: its name, "_[k]" for the kernel's); buf of size. */
void top_frame_key(const struct prof_frame *f, enum top_by by, char *buf, size_t size);

/*
 * Fill t from p. The rows' keys may be p's own strings: p must outlive t. 0 or -ENOMEM.
 */
int top_compute(const struct profile *p, const struct top_opts *o, struct top *t);

/* The row of key, or NULL. */
const struct top_row *top_find(const struct top *t, const char *key);

void top_free(struct top *t); /* NULL-safe */

/* Write the first n rows (0: all) as an aligned text table. 0 or -EIO. */
int top_write_text(const struct top *t, enum top_by by, size_t n, FILE *out);

/*
 * Write the first n rows (0: all) as one JSON document: {"source", "format", "value", "by",
 * "samples", "focused", "rows": [{"name", "self", "self_pct", "total", "total_pct"}]}, the
 * percentages rounded to 2 decimals. 0, -ENOMEM or -EIO.
 */
int top_write_json(const struct top *t, enum top_by by, size_t n, const char *source,
		   const char *format, const char *value, FILE *out);

#endif
