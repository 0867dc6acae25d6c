/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a profile keeps out of memory, in unnamed temporary files, during a long system-wide
 * recording (profile__spill_to), so that its memory holds the live processes, not every
 * distinct stack and frame of the recording:
 *
 * - samples: sorted runs of (comm, thread, labels, stack, count) records, merged as they pile up:
 * the samples of ended processes (profile__merge_ended);
 * - frames: a log of every frame in id order, read back whole for the output.
 *
 * A record's key is (comm, thread, labels, frames); the records of one run are in key order (see
 * sample_runs__cmp) with no key twice; the same key in several runs is summed when they are
 * merged or read.
 */
#ifndef CPUPROF_SPILL_H
#define CPUPROF_SPILL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_rec {
	const char *comm, *thread; /* never NULL */
	const char *labels;	   /* never NULL: util/labelset.h, "" none */
	const uint32_t *frames;	   /* frame ids, root first */
	uint32_t n;
	uint64_t count;
};

struct sample_runs;

/*
 * Runs kept in unnamed files of dir (O_TMPFILE; else a file unlinked as soon as made).
 * NULL and errno on failure.
 */
struct sample_runs *sample_runs__new(const char *dir);
void sample_runs__free(struct sample_runs *sr); /* NULL-safe; the files go with it */

/* Key order: comm, then thread, labels (strcmp), then frames (ids, a prefix first). */
int sample_runs__cmp(const struct run_rec *x, const struct run_rec *y);

/*
 * Add n records, in key order with no key twice, as a new run; runs of similar size are then
 * merged (at most about log2 of the records runs). 0, or a negative errno with sr as before
 * (-ENOSPC, -EIO...).
 */
int sample_runs__add(struct sample_runs *sr, const struct run_rec *recs, size_t n);

/*
 * Every record of every run in key order, a key once (its counts summed), to fn; stops at the
 * first nonzero return of fn and returns it. The record's strings and frames are valid during
 * the call only. 0, fn's value, or a negative errno (-EIO when a run does not read back).
 */
int sample_runs__each(struct sample_runs *sr, int (*fn)(void *ctx, const struct run_rec *r),
		      void *ctx);

/* Records (keys counted once per run), runs, and bytes on disk. */
uint64_t sample_runs__records(const struct sample_runs *sr);
size_t sample_runs__n_runs(const struct sample_runs *sr);
uint64_t sample_runs__bytes(const struct sample_runs *sr);

/* ---- frames ---------------------------------------------------------------------------- */

/* A frame as logged: the fields of struct prof_frame, strings by value. */
struct log_frame {
	const char *name, *module, *mangled, *file; /* name never NULL; the others may be */
	uint64_t addr, rel;
	uint32_t kind, mapping, line, column, start_line;
	bool named, inlined;
};

struct frame_log;

/* A log in an unnamed file of dir (as sample_runs__new). NULL and errno on failure. */
struct frame_log *frame_log__new(const char *dir);
void frame_log__free(struct frame_log *fl); /* NULL-safe */

/*
 * Append a frame; a string over 1 MiB is cut there (at a UTF-8 character). 0, or a negative
 * errno with the log as before.
 */
int frame_log__add(struct frame_log *fl, const struct log_frame *f);

/*
 * Every frame logged, in order, to fn; stops at fn's first nonzero return and returns it.
 * The strings are valid during the call only. 0, fn's value, or a negative errno. After a
 * failed write (while adding, or of the last buffer now) the frames the file holds, then that
 * write's error.
 */
int frame_log__each(struct frame_log *fl, int (*fn)(void *ctx, const struct log_frame *f),
		    void *ctx);

/* Frames logged, and their bytes. */
uint64_t frame_log__n(const struct frame_log *fl);
uint64_t frame_log__bytes(const struct frame_log *fl);

#endif
