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
	FRAME_PYTHON = 3, /* a Python function CPython ran ("py::NAME"; addr: its code object) */
	FRAME_RUBY = 4,	  /* a Ruby method or block MRI ran ("rb::LABEL"; addr: its iseq body) */
	FRAME_PHP = 5,	  /* a PHP function or method ("php::Class::method") */
	FRAME_PERL = 6,	  /* a Perl sub ("pl::Package::sub") */
	FRAME_JS = 7,	  /* a JavaScript function V8 ran ("js::NAME") */
	FRAME_JAVA = 8,	  /* a Java method or VM stub ("java::pkg.Class.method") */
};

enum prof_map_kind {
	PMAP_FILE = 0,
	PMAP_ANON = 1, /* anonymous executable memory (JIT) */
	PMAP_VDSO = 2,
	PMAP_SPECIAL = 3, /* [vsyscall] and the like */
	PMAP_KERNEL = 4,  /* the kernel and its modules */
	PMAP_UNKNOWN = 5, /* no mapping was known for the address */
};

/* One mapped object of one process (the kernel: pid 0). */
struct prof_mapping {
	uint32_t pid;
	enum prof_map_kind kind;
	uint64_t start, limit;	/* runtime addresses, limit exclusive */
	uint64_t offset;	/* file offset of start */
	const char *path;	/* never NULL: a path, or "[vdso]", "[kernel.kallsyms]"... */
	const char *build_id;	/* lower-case hex, "" when unknown */
	const char *go_version; /* a Go program's version ("go1.19.8"), "" (or NULL) otherwise */
};

struct prof_frame {
	const char *name;   /* never NULL */
	const char *module; /* may be NULL for pseudo frames */
	uint64_t addr;	    /* runtime address (0 for pseudo frames) */
	uint64_t rel;	    /* address relative to the module */
	enum frame_kind kind;
	uint32_t mapping;    /* mapping id + 1; 0 when there is none */
	bool named;	     /* name from a symbol table or debug information */
	bool inlined;	     /* inlined into the frame before it (root-ward), same address */
	const char *mangled; /* linkage name when it differs from name, else NULL */
	const char *file;    /* source file, NULL when unknown */
	uint32_t line, column;
	uint32_t start_line; /* Python frames: the function's first line; else 0 */
};

/* Facts about the recording that the writers put in their headers. */
struct prof_counter {
	const char *name; /* "idle", "user stack collision"... */
	uint64_t value;
};

struct profile_meta {
	const char *version;		     /* cpuprof's */
	const char *command_line;	     /* how cpuprof was run, one string */
	const char *event;		     /* "cpu-clock" */
	unsigned int frequency;		     /* Hz */
	uint64_t period_ns;		     /* time one sample stands for */
	uint64_t start_unix_ns;		     /* start of sampling, wall clock */
	uint64_t duration_ns;		     /* length of the recording */
	bool per_thread;		     /* samples carry tid and thread name */
	const struct prof_counter *counters; /* drops and damage by reason, zeros included */
	size_t n_counters;
};

struct prof_sample {
	uint32_t pid;
	uint32_t tid;		/* 0 unless recorded per thread */
	const char *comm;	/* process name */
	const char *thread;	/* thread name, "" unless per thread */
	const char *labels;	/* the sample's labels (util/labelset.h), "" none */
	const uint32_t *frames; /* frame ids, root first */
	uint32_t nframes;
	uint64_t count;
};

struct profile;

/* NULL and errno on failure. */
struct profile *profile__new(void);
void profile__free(struct profile *p); /* NULL-safe */

/* Intern a mapping (strings are copied); its id in *id. 0 or -ENOMEM. */
int profile__intern_mapping(struct profile *p, const struct prof_mapping *m, uint32_t *id);
size_t profile__n_mappings(const struct profile *p);
/*
 * Mapping id; never NULL: an id out of range gives a mapping of kind PMAP_UNKNOWN, path
 * PROFILE_MAPPING_UNKNOWN, shared by all such ids.
 */
#define PROFILE_MAPPING_UNKNOWN "[unknown]"
const struct prof_mapping *profile__mapping(const struct profile *p, uint32_t id);

/*
 * Intern a frame (strings are copied); its id in *id. f->mapping must be 0 or an interned
 * mapping's id + 1. 0, -EINVAL or -ENOMEM.
 */
int profile__intern_frame(struct profile *p, const struct prof_frame *f, uint32_t *id);

/*
 * Add count samples of this stack (frame ids, root first); merges with an identical sample.
 * Strings are copied. 0 or -ENOMEM.
 */
int profile__add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		 const char *thread, const uint32_t *frames, uint32_t nframes, uint64_t count);

/* The same for samples with labels (util/labelset.h's string; NULL or "": none). */
int profile__add_labeled(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
			 const char *thread, const char *labels, const uint32_t *frames,
			 uint32_t nframes, uint64_t count);

size_t profile__n_samples(const struct profile *p);
/* Sample i; never NULL: past the last, a sample of no stack and count 0 (comm and thread ""). */
const struct prof_sample *profile__sample(const struct profile *p, size_t i);
size_t profile__n_frames(const struct profile *p);
/*
 * Frame id; never NULL: a frame on disk (before profile__unspill) or an id out of range gives
 * a pseudo frame named PROFILE_FRAME_NOT_IN_MEMORY, shared by all such ids.
 * A frame that is a name only (no module, address, file, line or mapping: what the folded and
 * speedscope readers make) is kept compact and built on demand in one of PROFILE_FRAME_RING
 * structs of the calling thread, taken in turn: the pointer holds until that many more calls
 * of profile__frame in the thread (or until the next frame is interned, as for any frame);
 * its strings hold as long as the profile. Copy the struct to keep it longer.
 */
#define PROFILE_FRAME_NOT_IN_MEMORY "[frame not in memory]"
#define PROFILE_FRAME_RING	    16
const struct prof_frame *profile__frame(const struct profile *p, uint32_t id);

/*
 * Once a profile is read: give back the slack of its growing arrays and the index of its
 * compact frames (rebuilt if frames are interned again). Nothing else changes.
 */
void profile__trim(struct profile *p);

/* Sum of all sample counts. */
uint64_t profile__total(const struct profile *p);

/*
 * The samples of the processes that ended(ctx, pid) says have ended become samples of no
 * process: pid 0 and tid 0, comm and thread name kept, merged per (comm, thread, stack) with
 * each other and with those merged before. A long system-wide recording keeps its memory to
 * the live processes and the distinct stacks this way (README "Memory"). *n_merged: how many
 * samples had an ended pid. 0, or -ENOMEM with p unchanged.
 */
int profile__merge_ended(struct profile *p, bool (*ended)(void *ctx, uint32_t pid), void *ctx,
			 size_t *n_merged);

/*
 * Keep what a long recording piles up on disk, in unnamed temporary files of dir (spill.h),
 * so that the profile's memory follows the live processes:
 * - profile__merge_ended moves the samples of no process to sorted runs (10-25 bytes a stack
 *   there) once there are at least `after` of them; a move that fails (a full disk) leaves
 *   them in memory;
 * - once there are `after` frames, they go to a log and every later one too, only a 16-byte
 *   hash of each stays in memory; if the log cannot be written, the frames come back to
 *   memory.
 * Short recordings so keep everything in memory (nothing to read back when the user waits);
 * after = 0 sends everything to disk.
 * Until profile__unspill, profile__frame gives the PROFILE_FRAME_NOT_IN_MEMORY pseudo frame
 * for a frame on disk and the sample accessors see the samples in memory only; profile__total and
 * profile__n_frames count all. 0 or -ENOMEM.
 */
int profile__spill_to(struct profile *p, const char *dir, size_t after);

/*
 * Everything on disk back in memory (the samples merged with the samples of no process
 * there), for the writers; nothing goes to disk any more. Frames the log could not give back
 * are named "[frame lost: REASON]". 0, or a negative errno (-ENOMEM, -EIO) when samples
 * could not be read back (then profile__total counts only those in memory), or when frames
 * could not (-ENOMEM: then profile__spill_sizes still counts frames on disk, and no writer
 * may run).
 */
int profile__unspill(struct profile *p);

/*
 * The profile is complete: its indexes, which find an equal frame, mapping, stack or sample
 * when one is added (tens of MB in a long system-wide recording), go before the writers run.
 * Adding, interning, merging and spilling are -EINVAL from then on; the accessors are as
 * before. 0, or -EBUSY while something is on disk (call profile__unspill first).
 */
int profile__seal(struct profile *p);

struct profile_spill {
	uint64_t records, bytes; /* samples on disk: records (a key once per run), bytes */
	size_t runs;
	int err;		      /* why the last move of samples failed, 0 if it did not */
	uint64_t frames, frame_bytes; /* frames on disk */
	int frame_err; /* why the frames are (or came back) in memory, 0 if they are not */
};
void profile__spill_sizes(const struct profile *p, struct profile_spill *ps);

/* Bytes of memory the profile holds, by part (for -vv; tables counted at their capacity). */
struct profile_mem {
	size_t frames;	/* frames and their index */
	size_t samples; /* samples, stacks, their indexes and frame ids */
	size_t strings; /* interned strings (bytes; and n of them) */
	size_t n_strings;
};
void profile__mem(const struct profile *p, struct profile_mem *m);

/* Number of distinct processes (pids) among the samples. */
size_t profile__n_processes(const struct profile *p);

#endif
