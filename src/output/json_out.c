// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "output/json_out.h"
#include "util/grow.h"
#include "util/idtable.h"
#include "util/labelset.h"
#include "util/utf8safe.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"
#define NONE		  UINT32_MAX

/* Kinds of shared.frames entries: the two synthetic frames, then the profile's frame kinds. */
enum jkind {
	JK_PROCESS,
	JK_THREAD,
	JK_USER,
	JK_KERNEL,
	JK_PSEUDO,
	JK_PYTHON,
	JK_RUBY,
	JK_PHP,
	JK_PERL,
	JK_JS,
	JK_JAVA,
};

static const char *const jkind_names[] = {
	[JK_PROCESS] = "process", [JK_THREAD] = "thread", [JK_USER] = "user",
	[JK_KERNEL] = "kernel",	  [JK_PSEUDO] = "pseudo", [JK_PYTHON] = "python",
	[JK_RUBY] = "ruby",	  [JK_PHP] = "php",	  [JK_PERL] = "perl",
	[JK_JS] = "js",		  [JK_JAVA] = "java",
};

static const char *const map_kind_names[] = {
	[PMAP_FILE] = "file",	    [PMAP_ANON] = "anon",     [PMAP_VDSO] = "vdso",
	[PMAP_SPECIAL] = "special", [PMAP_KERNEL] = "kernel", [PMAP_UNKNOWN] = "unknown",
};

/* Where a profile frame went: its location and its function. */
struct loc_ref {
	uint32_t loc;  /* index in cpuprof.locations, NONE until used */
	uint32_t func; /* index in shared.frames */
};

/* An entry of shared.frames (and of cpuprof.frames): strings of the profile, or owned. */
struct jfunc {
	enum jkind kind;
	bool inlined;
	const char *display; /* the name speedscope shows: display + suffix */
	const char *suffix;  /* "_[k]", "_[i]" or "" */
	const char *name, *module, *file, *mangled;
	char *own; /* a thread's display, made here */
};

/* One speedscope profile: a process, or a thread of one; ss[from..to) its samples. */
struct jprof {
	size_t from, to;
	const char *comm;   /* the process's name (main_name) */
	const char *thread; /* the thread's, per thread; else NULL */
	uint64_t sum;
};

/* One process: its profiles, profs[first..last). */
struct jproc {
	size_t first, last;
};

/*
 * The document is written as a stream, never built: a first pass numbers the functions,
 * locations and mappings in the order of their first use and sums the profiles (all that
 * can fail for memory fails there), the second writes the text in one go.
 */
struct jw {
	const struct profile *p;
	const struct profile_meta *m;
	FILE *out;
	const struct prof_sample **ss; /* samples with a count, in output order */
	size_t n;
	uint32_t *head_funcs;	/* by sample: its process's function, its thread's */
	struct loc_ref *loc_of; /* by profile frame id */
	uint32_t *map_of; /* profile mapping id -> index in cpuprof.mappings, NONE until used */
	struct jfunc *funcs;
	size_t n_funcs, cap_funcs;
	struct idtable fidx;
	uint32_t *locs; /* cpuprof.locations: profile frame ids */
	size_t n_locs, cap_locs;
	uint32_t *maps; /* cpuprof.mappings: profile mapping ids */
	size_t n_maps, cap_maps;
	struct jprof *profs;
	size_t n_profs, cap_profs;
	struct jproc *procs;
	size_t n_procs, cap_procs;
	size_t active; /* the profile with the most samples */
	uint64_t total;
	char **cnames; /* the counters' names as written */
};

/* ---- values ------------------------------------------------------------------------------ */

json_t *json_out_string(const char *s)
{
	json_t *j;
	char *b;

	if (!s)
		return json_null();
	if (utf8safe_ok(s))
		return json_string(s);
	b = utf8safe_dup(s);
	if (!b)
		return NULL;
	j = json_string(b);
	free(b);
	return j;
}

/*
 * The text is written as jansson's json_dumpb(JSON_COMPACT) wrote the tree it replaces, byte
 * for byte: no spaces, '"' and '\' escaped, control characters as \b \f \n \r \t or \u00XX
 * (none are left after the rule for foreign text), other characters as they are; integers in
 * decimal. A write error is seen once at the end (ferror).
 */
static void jraw(struct jw *w, const char *s)
{
	fputs(s, w->out);
}

/* The bytes of s, escaped, by the rule for foreign text (util/utf8safe.h), unquoted. */
static void jchars(struct jw *w, const char *s)
{
	bool ok;

	for (size_t n; (n = utf8safe_next(s, &ok)); s += n) {
		unsigned char c = (unsigned char)*s;

		if (!ok) {
			fputs("\xef\xbf\xbd", w->out); /* U+FFFD */
		} else if (c == '"' || c == '\\') {
			putc('\\', w->out);
			putc(c, w->out);
		} else if (c < 0x20) {
			static const char esc[] = "\b\\b\f\\f\n\\n\r\\r\t\\t";
			const char *e = memchr(esc, c, sizeof(esc) - 1);

			if (e)
				fwrite(e + 1, 1, 2, w->out);
			else
				fprintf(w->out, "\\u%04X", c);
		} else {
			fwrite(s, 1, n, w->out);
		}
	}
}

/* A string (s then suffix, both may be ""), or null for NULL s. */
static void jstr2(struct jw *w, const char *s, const char *suffix)
{
	if (!s) {
		jraw(w, "null");
		return;
	}
	putc('"', w->out);
	jchars(w, s);
	jchars(w, suffix);
	putc('"', w->out);
}

static void jstr(struct jw *w, const char *s)
{
	jstr2(w, s, "");
}

/* "KEY": (keys are this file's, plain ASCII), after a ',' unless first. */
static void jkey(struct jw *w, const char *key, bool first)
{
	fprintf(w->out, "%s\"%s\":", first ? "" : ",", key);
}

static void jint(struct jw *w, int64_t v)
{
	fprintf(w->out, "%" PRId64, v);
}

/* An unsigned count, capped at INT64_MAX as a JSON integer is. */
static void jnum(struct jw *w, uint64_t v)
{
	jint(w, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void jbool(struct jw *w, bool v)
{
	jraw(w, v ? "true" : "false");
}

/* 64-bit addresses as strings: JSON readers in JavaScript keep only 53 bits of a number. */
static void jhex(struct jw *w, uint64_t v)
{
	fprintf(w->out, "\"0x%" PRIx64 "\"", v);
}

/* RFC 3339 UTC with nanoseconds; null for 0 (unknown). */
static void jtime(struct jw *w, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	char b[80];
	struct tm tm;
	size_t n;

	if (!ns || !gmtime_r(&sec, &tm)) {
		jraw(w, "null");
		return;
	}
	n = strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(b + n, sizeof(b) - n, ".%09" PRIu64 "Z", ns % 1000000000u);
	jstr(w, b);
}

/* ---- order ------------------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* NULL first */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

/* Profile mappings (id + 1, 0 = none) by content. */
static int cmp_mapping(const struct profile *p, uint32_t x, uint32_t y)
{
	const struct prof_mapping *a, *b;
	int c;

	if (!x || !y)
		return cmp_u64(x != 0, y != 0);
	a = profile__mapping(p, x - 1);
	b = profile__mapping(p, y - 1);
	c = cmp_u64(a->pid, b->pid);
	c = c ?: cmp_u64(a->kind, b->kind);
	c = c ?: cmp_u64(a->start, b->start);
	c = c ?: cmp_u64(a->limit, b->limit);
	c = c ?: cmp_u64(a->offset, b->offset);
	c = c ?: cmp_str(a->path, b->path);
	return c ?: cmp_str(a->build_id, b->build_id);
}

/* Frames by everything but the name, so that no order depends on frame ids. */
static int cmp_frame_rest(const struct profile *p, const struct prof_frame *a,
			  const struct prof_frame *b)
{
	int c;

	c = cmp_u64(a->kind, b->kind);
	c = c ?: cmp_str(a->module, b->module);
	c = c ?: cmp_str(a->file, b->file);
	c = c ?: cmp_u64(a->line, b->line);
	c = c ?: cmp_u64(a->column, b->column);
	c = c ?: cmp_u64(a->addr, b->addr);
	c = c ?: cmp_u64(a->rel, b->rel);
	c = c ?: cmp_u64(a->inlined, b->inlined);
	c = c ?: cmp_u64(a->named, b->named);
	c = c ?: cmp_str(a->mangled, b->mangled);
	return c ?: cmp_mapping(p, a->mapping, b->mapping);
}

/*
 * Output order: by profile (pid, and tid per thread), then by the names of the stack (process,
 * thread, frames root first), then by the rest of the content. A total order on contents.
 */
static int cmp_sample(const void *x, const void *y, void *ctx)
{
	const struct prof_sample *a = *(const struct prof_sample *const *)x;
	const struct prof_sample *b = *(const struct prof_sample *const *)y;
	const struct jw *w = ctx;
	uint32_t n = a->nframes < b->nframes ? a->nframes : b->nframes;
	int c;

	c = cmp_u64(a->pid, b->pid);
	if (w->m->per_thread)
		c = c ?: cmp_u64(a->tid, b->tid);
	c = c ?: strcmp(a->comm, b->comm);
	if (w->m->per_thread)
		c = c ?: strcmp(a->thread, b->thread);
	for (uint32_t i = 0; !c && i < n; i++)
		c = strcmp(profile__frame(w->p, a->frames[i])->name,
			   profile__frame(w->p, b->frames[i])->name);
	c = c ?: cmp_u64(a->nframes, b->nframes);
	for (uint32_t i = 0; !c && i < n; i++)
		c = cmp_frame_rest(w->p, profile__frame(w->p, a->frames[i]),
				   profile__frame(w->p, b->frames[i]));
	c = c ?: cmp_u64(a->tid, b->tid);
	c = c ?: strcmp(a->thread, b->thread);
	c = c ?: strcmp(a->labels, b->labels);
	return c ?: cmp_u64(a->count, b->count);
}

struct name_count {
	const char *name;
	uint64_t count;
};

static int cmp_name_count(const void *x, const void *y)
{
	return strcmp(((const struct name_count *)x)->name, ((const struct name_count *)y)->name);
}

/*
 * The process (or thread) name with the most samples among ss[0..n), n > 0; ties go to the
 * bytewise smallest. A process renamed while it ran has several. NULL on ENOMEM.
 */
static const char *main_name(const struct prof_sample *const *ss, size_t n, bool thread)
{
	struct name_count *v = malloc(n * sizeof(*v));
	const char *best = NULL;
	uint64_t best_count = 0;
	size_t i, j;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = (struct name_count){thread ? ss[i]->thread : ss[i]->comm, ss[i]->count};
	qsort(v, n, sizeof(*v), cmp_name_count);
	for (i = 0; i < n; i = j) {
		uint64_t sum = 0;

		for (j = i; j < n && strcmp(v[j].name, v[i].name) == 0; j++)
			sum += v[j].count;
		if (!best || sum > best_count) {
			best = v[i].name;
			best_count = sum;
		}
	}
	free(v);
	return best;
}

/* ---- tables ------------------------------------------------------------------------------ */

static int cmp_null_str(const char *a, const char *b)
{
	return a == b ? 0 : cmp_str(a, b);
}

/* Functions are one by kind, inlined, name (a thread: its display), module and file. */
static const char *func_keyname(const struct jfunc *f)
{
	return f->kind == JK_THREAD ? f->display : f->name;
}

static uint32_t func_hash(const struct jfunc *f)
{
	uint32_t kind = (uint32_t)f->kind << 1 | f->inlined;
	uint32_t h = idtable_hash(IDTABLE_SEED, &kind, sizeof(kind));
	const char *v[3] = {func_keyname(f), f->module, f->file};

	for (int i = 0; i < 3; i++)
		h = v[i] ? idtable_hash(h, v[i], strlen(v[i]) + 1) : idtable_hash(h, "", 0) * 31;
	return h;
}

static bool func_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct jfunc *a = &((const struct jw *)ctx)->funcs[id], *b = key;

	return a->kind == b->kind && a->inlined == b->inlined &&
	       !cmp_null_str(func_keyname(a), func_keyname(b)) &&
	       !cmp_null_str(a->module, b->module) && !cmp_null_str(a->file, b->file);
}

/* Index in shared.frames of a function, added on first use (then f->own is the table's). */
static int function_index(struct jw *w, struct jfunc *f, uint32_t *idx)
{
	uint32_t h = func_hash(f);
	struct idslot *sl;
	bool found;

	if (idtable_reserve(&w->fidx))
		goto nomem;
	sl = idtable_probe(&w->fidx, h, func_eq, w, f, &found);
	if (found) {
		*idx = sl->id1 - 1;
		free(f->own);
		return 0;
	}
	if (array_grow((void **)&w->funcs, &w->cap_funcs, w->n_funcs + 1, sizeof(*w->funcs)))
		goto nomem;
	w->funcs[w->n_funcs] = *f;
	idtable_fill(&w->fidx, sl, h, (uint32_t)w->n_funcs);
	*idx = (uint32_t)w->n_funcs++;
	return 0;
nomem:
	free(f->own);
	return -ENOMEM;
}

/* Index in cpuprof.mappings of profile mapping id, added on first use. */
static int mapping_index(struct jw *w, uint32_t id, uint32_t *idx)
{
	if (w->map_of[id] == NONE) {
		if (array_grow((void **)&w->maps, &w->cap_maps, w->n_maps + 1, sizeof(*w->maps)))
			return -ENOMEM;
		w->maps[w->n_maps] = id;
		w->map_of[id] = (uint32_t)w->n_maps++;
	}
	*idx = w->map_of[id];
	return 0;
}

static enum jkind kind_of(const struct prof_frame *f)
{
	return f->kind == FRAME_KERNEL	 ? JK_KERNEL
	       : f->kind == FRAME_PSEUDO ? JK_PSEUDO
	       : f->kind == FRAME_PYTHON ? JK_PYTHON
	       : f->kind == FRAME_RUBY	 ? JK_RUBY
	       : f->kind == FRAME_PHP	 ? JK_PHP
	       : f->kind == FRAME_PERL	 ? JK_PERL
	       : f->kind == FRAME_JS	 ? JK_JS
	       : f->kind == FRAME_JAVA	 ? JK_JAVA
					 : JK_USER;
}

/* Index in cpuprof.locations of profile frame id, added on first use; its function in *func. */
static int location_index(struct jw *w, uint32_t id, uint32_t *func)
{
	const struct prof_frame *f = profile__frame(w->p, id);
	enum jkind kind = kind_of(f);
	/* marked as in the folded output: kernel "_[k]", else inlined "_[i]" */
	struct jfunc fn = {
		.kind = kind,
		.inlined = f->inlined,
		.display = f->name,
		.suffix = kind == JK_KERNEL ? "_[k]"
			  : f->inlined	    ? "_[i]"
					    : "",
		.name = f->name,
		.module = f->module,
		.file = f->file,
		.mangled = f->mangled,
	};
	uint32_t map;
	int err;

	if (w->loc_of[id].loc != NONE) {
		*func = w->loc_of[id].func;
		return 0;
	}
	err = function_index(w, &fn, func);
	if (!err && f->mapping)
		err = mapping_index(w, f->mapping - 1, &map);
	if (!err && array_grow((void **)&w->locs, &w->cap_locs, w->n_locs + 1, sizeof(*w->locs)))
		err = -ENOMEM;
	if (err)
		return err;
	w->locs[w->n_locs] = id;
	w->loc_of[id].func = *func;
	w->loc_of[id].loc = (uint32_t)w->n_locs++;
	return 0;
}

/* ---- the first pass: numbering ------------------------------------------------------------ */

/* "NAME (tid N)", "NAME (pid N)": malloc'ed, NULL on ENOMEM. */
static char *id_name(const char *name, const char *what, uint32_t id)
{
	char *s;

	return asprintf(&s, "%s (%s %" PRIu32 ")", name, what, id) < 0 ? NULL : s;
}

/*
 * The functions and locations of stack i, numbered: the process, the thread (their functions
 * kept in head_funcs), the frames.
 */
static int number_stack(struct jw *w, size_t at, uint32_t tid)
{
	const struct prof_sample *s = w->ss[at];
	struct jfunc proc = {.kind = JK_PROCESS, .display = s->comm, .suffix = "", .name = s->comm};
	uint32_t func;
	int err = function_index(w, &proc, &w->head_funcs[2 * at]);

	if (!err && w->m->per_thread) {
		const char *shown = *s->thread ? s->thread : s->comm;
		struct jfunc th = {.kind = JK_THREAD, .suffix = "", .name = s->thread};

		th.own = id_name(shown, "tid", tid);
		th.display = th.own;
		err = th.own ? function_index(w, &th, &w->head_funcs[2 * at + 1]) : -ENOMEM;
	}
	for (uint32_t i = 0; !err && i < s->nframes; i++)
		err = location_index(w, s->frames[i], &func);
	return err;
}

/* The profile of ss[from..to) (one process, or one thread), numbered and summed. */
static int number_profile(struct jw *w, size_t from, size_t to, const char *comm)
{
	struct jprof *jp;
	uint64_t sum = 0;
	const char *thread = NULL;
	int err = 0;

	if (w->m->per_thread && !(thread = main_name(w->ss + from, to - from, true)))
		return -ENOMEM;
	for (size_t i = from; i < to && !err; i++) {
		err = number_stack(w, i, w->ss[from]->tid);
		sum += w->ss[i]->count;
	}
	if (!err &&
	    array_grow((void **)&w->profs, &w->cap_profs, w->n_profs + 1, sizeof(*w->profs)))
		err = -ENOMEM;
	if (err)
		return err;
	jp = &w->profs[w->n_profs];
	*jp = (struct jprof){from, to, comm, thread, sum};
	if (w->n_profs == 0 || sum > w->profs[w->active].sum)
		w->active = w->n_profs;
	w->n_profs++;
	w->total += sum;
	return 0;
}

/* One process, ss[from..to): its profile, or one per thread. */
static int number_process(struct jw *w, size_t from, size_t to)
{
	const char *comm = main_name(w->ss + from, to - from, false);
	size_t first = w->n_profs;
	int err = comm ? 0 : -ENOMEM;

	for (size_t i = from, j; i < to && !err; i = j) {
		for (j = i + 1; j < to && (!w->m->per_thread || w->ss[j]->tid == w->ss[i]->tid);
		     j++)
			;
		err = number_profile(w, i, j, comm);
	}
	if (!err &&
	    array_grow((void **)&w->procs, &w->cap_procs, w->n_procs + 1, sizeof(*w->procs)))
		err = -ENOMEM;
	if (err)
		return err;
	w->procs[w->n_procs++] = (struct jproc){first, w->n_profs};
	return 0;
}

static int collect_samples(struct jw *w)
{
	size_t n = profile__n_samples(w->p), nf = profile__n_frames(w->p);
	size_t nm = profile__n_mappings(w->p);

	w->ss = malloc((n ? n : 1) * sizeof(*w->ss));
	w->head_funcs = malloc((n ? n : 1) * 2 * sizeof(*w->head_funcs));
	w->loc_of = malloc((nf ? nf : 1) * sizeof(*w->loc_of));
	w->map_of = malloc((nm ? nm : 1) * sizeof(*w->map_of));
	if (!w->ss || !w->head_funcs || !w->loc_of || !w->map_of)
		return -ENOMEM;
	memset(w->loc_of, 0xff, nf * sizeof(*w->loc_of));
	memset(w->map_of, 0xff, nm * sizeof(*w->map_of));
	/* speedscope drops weight-0 samples anyway; the folded output has no line for them */
	for (size_t i = 0; i < n; i++) {
		const struct prof_sample *s = profile__sample(w->p, i);

		if (s->count)
			w->ss[w->n++] = s;
	}
	qsort_r(w->ss, w->n, sizeof(*w->ss), cmp_sample, w);
	return 0;
}

static int number(struct jw *w)
{
	int err = collect_samples(w);

	for (size_t i = 0, j; i < w->n && !err; i = j) {
		/* pid 0 (the idle task, ended processes merged): one process per name */
		for (j = i + 1; j < w->n && w->ss[j]->pid == w->ss[i]->pid &&
				(w->ss[i]->pid || !strcmp(w->ss[j]->comm, w->ss[i]->comm));
		     j++)
			;
		err = number_process(w, i, j);
	}
	return err;
}

/* ---- the second pass: the text ------------------------------------------------------------ */

static void write_shared_frames(struct jw *w)
{
	jraw(w, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct jfunc *f = &w->funcs[i];

		jraw(w, i ? ",{" : "{");
		jkey(w, "name", true);
		jstr2(w, f->display, f->suffix);
		if (f->file) {
			jkey(w, "file", false);
			jstr(w, f->file);
		}
		jraw(w, "}");
	}
	jraw(w, "]}");
}

static uint64_t weight(const struct jw *w, const struct prof_sample *s)
{
	return w->m->period_ns ? s->count * w->m->period_ns : s->count;
}

/* "NAME (WHAT N)" as a JSON string */
static void jid_name(struct jw *w, const char *name, const char *what, uint32_t id)
{
	putc('"', w->out);
	jchars(w, name);
	fprintf(w->out, " (%s %" PRIu32 ")\"", what, id);
}

/* speedscope's sampled profile, keys in its schema's order of importance */
static void write_profile(struct jw *w, const struct jprof *jp)
{
	const struct prof_sample *first = w->ss[jp->from];
	uint64_t end = 0;

	jraw(w, "{\"type\":\"sampled\",\"name\":");
	if (w->m->per_thread)
		jid_name(w, *jp->thread ? jp->thread : jp->comm, "tid", first->tid);
	else
		jid_name(w, jp->comm, "pid", first->pid);
	jkey(w, "unit", false);
	jstr(w, w->m->period_ns ? "nanoseconds" : "none");
	jraw(w, ",\"startValue\":0,\"endValue\":");
	for (size_t i = jp->from; i < jp->to; i++)
		end += weight(w, w->ss[i]);
	jnum(w, end);
	jraw(w, ",\"samples\":[");
	for (size_t i = jp->from; i < jp->to; i++) {
		const struct prof_sample *s = w->ss[i];

		fprintf(w->out, "%s[%" PRIu32, i > jp->from ? "," : "", w->head_funcs[2 * i]);
		if (w->m->per_thread)
			fprintf(w->out, ",%" PRIu32, w->head_funcs[2 * i + 1]);
		for (uint32_t k = 0; k < s->nframes; k++)
			fprintf(w->out, ",%" PRIu32, w->loc_of[s->frames[k]].func);
		jraw(w, "]");
	}
	jraw(w, "],\"weights\":[");
	for (size_t i = jp->from; i < jp->to; i++) {
		jraw(w, i > jp->from ? "," : "");
		jnum(w, weight(w, w->ss[i]));
	}
	jraw(w, "]}");
}

/* A sample's labels as an object, null when it has none. */
static void write_labels(struct jw *w, const char *set)
{
	char k[LABELSET_MAX_LEN], v[LABELSET_MAX_LEN];
	bool first = true;

	if (!*set) {
		jraw(w, "null");
		return;
	}
	jraw(w, "{");
	while (labelset_next(&set, k, sizeof(k), v, sizeof(v))) {
		jraw(w, first ? "" : ",");
		jstr(w, k);
		jraw(w, ":");
		jstr(w, v);
		first = false;
	}
	jraw(w, "}");
}

/* The ID of label key of the set, n bytes, into id: true, or false when it has none. */
static bool label_id(const char *set, const char *key, uint8_t *id, size_t n)
{
	char v[LABELSET_MAX_LEN];

	return labelset_get(set, key, v, sizeof(v)) && !labelset_id(v, id, n);
}

static void write_id(struct jw *w, const char *key, const uint8_t *id, size_t n, bool comma)
{
	fprintf(w->out, "%s\"%s\":[", comma ? "," : "", key);
	for (size_t i = 0; i < n; i++)
		fprintf(w->out, "%s%u", i ? "," : "", id[i]);
	jraw(w, "]");
}

/*
 * cpuprof.profiles[i].labels and .trace, parallel to its stacks, when a sample of it has
 * labels: each an object of its labels, and of the bytes of its trace_id and span_id labels
 * (null when it has neither as an ID).
 */
static void write_cprofile_labels(struct jw *w, const struct jprof *jp)
{
	bool any = false;

	for (size_t i = jp->from; i < jp->to; i++)
		any = any || *w->ss[i]->labels;
	if (!any)
		return;
	jraw(w, ",\"labels\":[");
	for (size_t i = jp->from; i < jp->to; i++) {
		jraw(w, i > jp->from ? "," : "");
		write_labels(w, w->ss[i]->labels);
	}
	jraw(w, "],\"trace\":[");
	for (size_t i = jp->from; i < jp->to; i++) {
		const char *set = w->ss[i]->labels;
		uint8_t trace[16], span[8];
		bool t = label_id(set, "trace_id", trace, 16),
		     sp = label_id(set, "span_id", span, 8);

		jraw(w, i > jp->from ? "," : "");
		if (!t && !sp) {
			jraw(w, "null");
			continue;
		}
		jraw(w, "{");
		if (t)
			write_id(w, "trace_id", trace, 16, false);
		if (sp)
			write_id(w, "span_id", span, 8, t);
		jraw(w, "}");
	}
	jraw(w, "]");
}

/* cpuprof.profiles[i]: the stacks as locations (-1: the process and thread frames) */
static void write_cprofile(struct jw *w, const struct jprof *jp)
{
	const struct prof_sample *first = w->ss[jp->from];

	fprintf(w->out, "{\"pid\":%" PRIu32 ",\"tid\":", first->pid);
	if (w->m->per_thread)
		fprintf(w->out, "%" PRIu32, first->tid);
	else
		jraw(w, "null");
	jkey(w, "comm", false);
	jstr(w, jp->comm);
	jkey(w, "thread", false);
	jstr(w, jp->thread);
	jkey(w, "samples", false);
	jnum(w, jp->sum);
	jraw(w, ",\"stacks\":[");
	for (size_t i = jp->from; i < jp->to; i++) {
		const struct prof_sample *s = w->ss[i];

		jraw(w, i > jp->from ? ",[-1" : "[-1");
		if (w->m->per_thread)
			jraw(w, ",-1");
		for (uint32_t k = 0; k < s->nframes; k++)
			fprintf(w->out, ",%" PRIu32, w->loc_of[s->frames[k]].loc);
		jraw(w, "]");
	}
	jraw(w, "]");
	write_cprofile_labels(w, jp);
	jraw(w, "}");
}

static void write_process(struct jw *w, const struct jproc *pr)
{
	const struct jprof *first = &w->profs[pr->first];
	uint64_t total = 0;

	for (size_t i = pr->first; i < pr->last; i++)
		total += w->profs[i].sum;
	fprintf(w->out, "{\"pid\":%" PRIu32 ",\"comm\":", w->ss[first->from]->pid);
	jstr(w, first->comm);
	jkey(w, "samples", false);
	jnum(w, total);
	jkey(w, "profile", false);
	/* per thread: -1, the threads say theirs; else the process's one */
	jint(w, w->m->per_thread ? -1 : (int64_t)(pr->last - 1));
	jraw(w, ",\"threads\":[");
	for (size_t i = pr->first; w->m->per_thread && i < pr->last; i++) {
		fprintf(w->out, "%s{\"tid\":%" PRIu32 ",\"name\":", i > pr->first ? "," : "",
			w->ss[w->profs[i].from]->tid);
		jstr(w, w->profs[i].thread);
		jkey(w, "samples", false);
		jnum(w, w->profs[i].sum);
		fprintf(w->out, ",\"profile\":%zu}", i);
	}
	jraw(w, "]}");
}

static void write_cframes(struct jw *w)
{
	for (size_t i = 0; i < w->n_funcs; i++) {
		const struct jfunc *f = &w->funcs[i];

		jraw(w, i ? ",{\"name\":" : "{\"name\":");
		jstr(w, f->name);
		jkey(w, "kind", false);
		jstr(w, jkind_names[f->kind]);
		jkey(w, "inlined", false);
		jbool(w, f->inlined);
		jkey(w, "module", false);
		jstr(w, f->module);
		jkey(w, "file", false);
		jstr(w, f->file);
		jkey(w, "mangled", false);
		jstr(w, f->mangled);
		jraw(w, "}");
	}
}

static void write_locations(struct jw *w)
{
	for (size_t i = 0; i < w->n_locs; i++) {
		uint32_t id = w->locs[i];
		const struct prof_frame *f = profile__frame(w->p, id);

		fprintf(w->out, "%s{\"frame\":%" PRIu32 ",\"address\":", i ? "," : "",
			w->loc_of[id].func);
		jhex(w, f->addr);
		jkey(w, "object_address", false);
		jhex(w, f->rel);
		jkey(w, "mapping", false);
		jint(w, f->mapping ? (int64_t)w->map_of[f->mapping - 1] : -1);
		jkey(w, "line", false);
		if (f->line)
			jint(w, f->line);
		else
			jraw(w, "null");
		jkey(w, "column", false);
		if (f->column)
			jint(w, f->column);
		else
			jraw(w, "null");
		jkey(w, "inlined", false);
		jbool(w, f->inlined);
		jkey(w, "named", false);
		jbool(w, f->named);
		jraw(w, "}");
	}
}

static void write_mappings(struct jw *w)
{
	for (size_t i = 0; i < w->n_maps; i++) {
		const struct prof_mapping *m = profile__mapping(w->p, w->maps[i]);
		const char *kind =
			(size_t)m->kind < sizeof(map_kind_names) / sizeof(map_kind_names[0])
				? map_kind_names[m->kind]
				: "unknown";

		fprintf(w->out, "%s{\"pid\":%" PRIu32 ",\"kind\":", i ? "," : "", m->pid);
		jstr(w, kind);
		jkey(w, "start", false);
		jhex(w, m->start);
		jkey(w, "limit", false);
		jhex(w, m->limit);
		jkey(w, "offset", false);
		jhex(w, m->offset);
		jkey(w, "path", false);
		jstr(w, m->path);
		/* "" (unknown) as null */
		jkey(w, "build_id", false);
		jstr(w, m->build_id && *m->build_id ? m->build_id : NULL);
		if (m->go_version && *m->go_version) {
			jkey(w, "go_version", false);
			jstr(w, m->go_version);
		}
		jraw(w, "}");
	}
}

/* The counters' names by the rule for foreign text, for write_counters. 0 or -ENOMEM. */
static int number_counters(struct jw *w)
{
	size_t n = w->m->n_counters;

	w->cnames = calloc(n ? n : 1, sizeof(*w->cnames));
	if (!w->cnames)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(w->cnames[i] = utf8safe_dup(w->m->counters[i].name ?: "")))
			return -ENOMEM;
	return 0;
}

/*
 * The counters by name, a reason given twice once with the sum, at its first place. O(n^2) on
 * a few dozen counters.
 */
static void write_counters(struct jw *w)
{
	const struct profile_meta *m = w->m;
	char **names = w->cnames;
	bool first = true;

	jraw(w, "{");
	for (size_t i = 0; i < m->n_counters; i++) {
		uint64_t v = 0;
		bool dup = false;

		for (size_t k = 0; k < i && !dup; k++)
			dup = !strcmp(names[k], names[i]);
		if (dup)
			continue;
		/* as the tree summed them: each value capped, then added */
		for (size_t k = i; k < m->n_counters; k++)
			if (!strcmp(names[k], names[i]))
				v = k == i ? m->counters[k].value
					   : m->counters[k].value + (v > INT64_MAX ? INT64_MAX : v);
		jraw(w, first ? "\"" : ",\"");
		jchars(w, names[i]);
		jraw(w, "\":");
		jnum(w, v);
		first = false;
	}
	jraw(w, "}");
}

/* The whole document, keys in a fixed order. */
static void write_doc(struct jw *w)
{
	const struct profile_meta *m = w->m;
	const char *version = m->version ?: "unknown";

	jraw(w, "{\"$schema\":\"" SPEEDSCOPE_SCHEMA "\",\"exporter\":\"cpuprof@");
	jchars(w, version);
	jraw(w, "\",\"name\":");
	jstr(w, m->command_line && *m->command_line ? m->command_line : "cpuprof");
	fprintf(w->out, ",\"activeProfileIndex\":%zu,", w->active);
	write_shared_frames(w);
	jraw(w, ",\"profiles\":[");
	for (size_t i = 0; i < w->n_profs; i++) {
		jraw(w, i ? "," : "");
		write_profile(w, &w->profs[i]);
	}
	fprintf(w->out, "],\"cpuprof\":{\"format_version\":%d,\"cpuprof_version\":",
		CPUPROF_JSON_FORMAT_VERSION);
	jstr(w, version);
	jkey(w, "command_line", false);
	jstr(w, m->command_line);
	jkey(w, "event", false);
	jstr(w, m->event);
	fprintf(w->out, ",\"frequency_hz\":%u,\"period_ns\":", m->frequency);
	jnum(w, m->period_ns);
	jkey(w, "start_time", false);
	jtime(w, m->start_unix_ns);
	jkey(w, "start_time_unix_ns", false);
	if (m->start_unix_ns)
		fprintf(w->out, "\"%" PRIu64 "\"", m->start_unix_ns);
	else
		jraw(w, "null");
	jkey(w, "duration_ns", false);
	jnum(w, m->duration_ns);
	jkey(w, "per_thread", false);
	jbool(w, m->per_thread);
	jkey(w, "samples", false);
	jnum(w, w->total);
	jkey(w, "counters", false);
	write_counters(w);
	jraw(w, ",\"processes\":[");
	for (size_t i = 0; i < w->n_procs; i++) {
		jraw(w, i ? "," : "");
		write_process(w, &w->procs[i]);
	}
	jraw(w, "],\"profiles\":[");
	for (size_t i = 0; i < w->n_profs; i++) {
		jraw(w, i ? "," : "");
		write_cprofile(w, &w->profs[i]);
	}
	jraw(w, "],\"frames\":[");
	write_cframes(w);
	jraw(w, "],\"locations\":[");
	write_locations(w);
	jraw(w, "],\"mappings\":[");
	write_mappings(w);
	jraw(w, "]}}\n");
}

int json_write(const struct profile *p, const struct profile_meta *m, FILE *out)
{
	struct jw w = {.p = p, .m = m, .out = out};
	/* everything that can fail for memory before the first byte: all or nothing */
	int err = number(&w);

	err = err ?: number_counters(&w);
	if (!err) {
		write_doc(&w);
		if (fflush(out) || ferror(out))
			err = -EIO;
	}
	for (size_t i = 0; w.cnames && i < m->n_counters; i++)
		free(w.cnames[i]);
	free(w.cnames);
	for (size_t i = 0; i < w.n_funcs; i++)
		free(w.funcs[i].own);
	free(w.funcs);
	idtable_free(&w.fidx);
	free(w.locs);
	free(w.maps);
	free(w.profs);
	free(w.procs);
	free(w.head_funcs);
	free(w.ss);
	free(w.loc_of);
	free(w.map_of);
	return err;
}
