/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading profiles back (cpuprof report, diff): pprof (gzipped or raw; cpuprof's own and other
 * tools', e.g. Go's runtime/pprof), folded stacks and cpuprof JSON (or a plain speedscope
 * file), into the same struct profile the recorder fills, so that every writer works on them.
 *
 * The format is told by content, never by the file name: a gzip stream is inflated first;
 * then '{' starts JSON, text without control bytes is folded, anything else is pprof.
 * Every input is hostile: sizes are capped, every index is checked, and a bad file gives
 * -EINVAL with one line saying what is wrong (in the caller's buffer), never a crash.
 */
#ifndef CPUPROF_INPUT_H
#define CPUPROF_INPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "profile/profile.h"

/* Caps: the file as stored, and once inflated. */
#define INPUT_MAX_FILE	   (256ull << 20)
#define INPUT_MAX_INFLATED (512ull << 20)
/* Most frames in one stack (deeper stacks are refused, not cut). */
#define INPUT_MAX_DEPTH 65536

enum input_format {
	INPUT_PPROF = 1,
	INPUT_FOLDED,
	INPUT_JSON,
};

struct input_info {
	enum input_format format;
	bool per_thread;      /* samples carry thread names and ids */
	uint64_t period_ns;   /* time one sample stands for; 0 when unknown */
	uint64_t duration_ns; /* wall-clock length of the recording; 0 when unknown */
	char value[64];	      /* what counts are: "samples", or pprof's "TYPE/UNIT" */
};

/* One line describing why a file was refused (or what failed). */
struct input_error {
	char msg[256];
};

/*
 * Read a profile from memory (any supported format). *out gets a new profile (free with
 * profile__free). 0, -ENOMEM, or -EINVAL with err->msg set.
 */
int input_read_mem(const void *data, size_t len, struct profile **out, struct input_info *info,
		   struct input_error *err);

/* The same from a file (opened with safe_open: a regular file of at most INPUT_MAX_FILE). */
int input_read_file(const char *path, struct profile **out, struct input_info *info,
		    struct input_error *err);

/* Set err->msg (printf-style) and return -EINVAL. */
int input_fail(struct input_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The largest count, and sum of counts, a profile read may hold: what pprof's int64 values and
 * JSON's integers can carry. A file past it is refused, not wrapped round to a small number.
 */
#define INPUT_MAX_COUNT ((uint64_t)INT64_MAX)

/*
 * profile__add for readers: a count over INPUT_MAX_COUNT, or one that takes the profile's
 * total past it, is -EINVAL with "WHERE: ..." in err.
 */
int input_add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm, const char *thread,
	      const uint32_t *frames, uint32_t nframes, uint64_t count, const char *where,
	      struct input_error *err);
/* The same for a sample with labels (util/labelset.h's string). */
int input_add_labeled(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		      const char *thread, const char *labels, const uint32_t *frames,
		      uint32_t nframes, uint64_t count, const char *where, struct input_error *err);

/*
 * A frame name as written by cpuprof's folded and JSON outputs: a trailing "_[k]" marks a
 * kernel frame, "_[i]" an inlined one, "_[j]" JIT code (removed from *len, flags set).
 */
void input_frame_mark(const char *name, size_t *len, bool *kernel, bool *inlined);

#endif
