/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory profile every writer reads: interned frames and aggregated samples.
 * Identical samples (same pid, tid, names and frames) are merged as they are added, so the
 * same stack reached through several BPF keys (stack generations, hash buckets) counts once.
 */
#ifndef CPUPROF_PROFILE_H
#define CPUPROF_PROFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum frame_kind {
	FRAME_USER = 0,
	FRAME_KERNEL = 1,
	FRAME_PSEUDO = 2, /* "[user stack lost: ...]" and similar markers */
};

struct prof_frame {
	const char *name;   /* never NULL */
	const char *module; /* may be NULL for pseudo frames */
	uint64_t addr;	    /* runtime address (0 for pseudo frames) */
	uint64_t rel;	    /* address relative to the module */
	enum frame_kind kind;
};

struct prof_sample {
	uint32_t pid;
	uint32_t tid;		/* 0 unless recorded per thread */
	const char *comm;	/* process name */
	const char *thread;	/* thread name, "" unless per thread */
	const uint32_t *frames; /* frame ids, root first */
	uint32_t nframes;
	uint64_t count;
};

struct profile;

/* NULL and errno on failure. */
struct profile *profile__new(void);
void profile__free(struct profile *p); /* NULL-safe */

/* Intern a frame (strings are copied); its id in *id. 0 or -ENOMEM. */
int profile__intern_frame(struct profile *p, const struct prof_frame *f, uint32_t *id);

/*
 * Add count samples of this stack (frame ids, root first); merges with an identical sample.
 * Strings are copied. 0 or -ENOMEM.
 */
int profile__add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		 const char *thread, const uint32_t *frames, uint32_t nframes, uint64_t count);

size_t profile__n_samples(const struct profile *p);
const struct prof_sample *profile__sample(const struct profile *p, size_t i);
size_t profile__n_frames(const struct profile *p);
const struct prof_frame *profile__frame(const struct profile *p, uint32_t id);

/* Sum of all sample counts. */
uint64_t profile__total(const struct profile *p);

/* Number of distinct processes (pids) among the samples. */
size_t profile__n_processes(const struct profile *p);

#endif
