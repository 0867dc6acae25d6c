/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flame graph tree shared by the SVG and HTML writers: the samples merged from the root,
 * with the process (and the thread, per thread) as the lowest levels, then the frames root
 * first. A frame is a node per (parent, name, kind), so a kernel or inlined function is apart
 * from a user function of the same name. Children are ordered by name (bytewise), as
 * flamegraph.pl orders them, so the same profile gives the same picture.
 *
 * For a differential graph the tree holds both profiles: widths by the new one, and the base's
 * counts beside them (a stack only in the base has width 0).
 */
#ifndef CPUPROF_FLAME_H
#define CPUPROF_FLAME_H
#include <stdbool.h>
#include <stdint.h>
#include "profile/profile.h"
#include "util/idtable.h"
#include "util/strset.h"

enum flame_kind {
	FLAME_ROOT = 0,
	FLAME_PROCESS,
	FLAME_THREAD,
	FLAME_USER,
	FLAME_KERNEL,
	FLAME_INLINED,
	FLAME_PSEUDO,
};

#define FLAME_NONE UINT32_MAX

struct flame_node {
	const char *name; /* the profile's string, or the tree's set's */
	const char *file; /* source file of the first frame merged here, or NULL */
	uint32_t line;	  /* and its line, 0 when unknown */
	uint32_t parent;  /* FLAME_NONE for the root */
	uint32_t depth;	  /* root 0 */
	enum flame_kind kind;
	uint64_t total, self;		/* samples (of the new profile in a diff) */
	uint64_t base_total, base_self; /* diff: the base profile's */
	uint32_t first_child;		/* index in order[] */
	uint32_t n_children;
};

struct flame {
	struct flame_node *nodes; /* [0] is the root */
	size_t n, cap;
	uint32_t *order; /* nodes 1..n-1 by parent, then name, then kind */
	uint32_t max_depth;
	bool diff;
	struct strset names; /* the names the tree made (threads) */
	struct idtable idx;  /* the nodes by (parent, name, kind), while the tree is built */
};

/*
 * Build the tree of p; with base, a differential tree (widths by p). per_thread: a thread
 * level under each process. The nodes' names and files are the profiles' strings: p and base
 * outlive f. 0 or -ENOMEM.
 */
int flame_build(const struct profile *p, const struct profile *base, bool per_thread,
		struct flame *f);

void flame_free(struct flame *f); /* NULL-safe */

/* The name with its kind's mark, as in folded output: "read_[k]", "rotl_[i]". */
void flame_label(const struct flame_node *n, char *buf, size_t size);

/*
 * Copy s into buf (of size) as XML character data: & < > " ' escaped, what the rule for
 * foreign text refuses (util/utf8safe.h: invalid UTF-8, control characters, noncharacters)
 * as U+FFFD. Truncates (never mid-sequence).
 */
void flame_xml_escape(const char *s, char *buf, size_t size);

#endif
