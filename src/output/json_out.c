// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "output/json_out.h"
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
};

static const char *const jkind_names[] = {
	[JK_PROCESS] = "process", [JK_THREAD] = "thread", [JK_USER] = "user",
	[JK_KERNEL] = "kernel",	  [JK_PSEUDO] = "pseudo", [JK_PYTHON] = "python",
	[JK_RUBY] = "ruby",	  [JK_PHP] = "php",	  [JK_PERL] = "perl",
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

struct jw {
	const struct profile *p;
	const struct profile_meta *m;
	const struct prof_sample **ss; /* samples with a count, in output order */
	size_t n;
	struct loc_ref *loc_of; /* by profile frame id */
	uint32_t *map_of; /* profile mapping id -> index in cpuprof.mappings, NONE until used */
	json_t *fidx;	  /* function key -> index in shared.frames */
	char *key;	  /* scratch for function keys */
	size_t key_cap;
	/* the arrays being filled, owned by the document */
	json_t *frames, *profiles, *cframes, *cprofiles, *procs, *locs, *maps;
	size_t n_frames, n_locs, n_maps, n_profiles;
	size_t active; /* the profile with the most samples */
	uint64_t active_count;
	uint64_t total;
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

__attribute__((format(printf, 1, 2))) static json_t *jstrf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	json_t *j;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	j = json_out_string(s);
	free(s);
	return j;
}

static json_t *jnum(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* 64-bit addresses as strings: JSON readers in JavaScript keep only 53 bits of a number. */
static json_t *jhex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_string(b);
}

/* RFC 3339 UTC with nanoseconds; null for 0 (unknown). */
static json_t *jtime(uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	char b[80];
	struct tm tm;
	size_t n;

	if (!ns || !gmtime_r(&sec, &tm))
		return json_null();
	n = strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(b + n, sizeof(b) - n, ".%09" PRIu64 "Z", ns % 1000000000u);
	return json_string(b);
}

/* Add v (a new reference, may be NULL after a failed allocation) to object o / array a. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

static int push(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) ? -ENOMEM : 0;
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

/* An unambiguous key for a function: kind, inlined, then length-prefixed name, module, file. */
static int function_key(struct jw *w, enum jkind kind, bool inlined, const char *name,
			const char *module, const char *file)
{
	size_t need = strlen(name) + (module ? strlen(module) : 0) + (file ? strlen(file) : 0) + 96;

	if (need > w->key_cap) {
		char *nk = realloc(w->key, need);

		if (!nk)
			return -ENOMEM;
		w->key = nk;
		w->key_cap = need;
	}
	snprintf(w->key, w->key_cap, "%d%d|%zu:%s|%d%zu:%s|%d%zu:%s", kind, inlined, strlen(name),
		 name, !!module, module ? strlen(module) : 0, module ?: "", !!file,
		 file ? strlen(file) : 0, file ?: "");
	return 0;
}

/*
 * Index in shared.frames of a function, added on first use (with its cpuprof.frames entry).
 * display is the name speedscope shows, name the one cpuprof.frames keeps.
 */
static int function_index(struct jw *w, enum jkind kind, bool inlined, json_t *display,
			  const char *name, const char *module, const char *file,
			  const char *mangled, uint32_t *idx)
{
	json_t *v, *fr = NULL, *cf = NULL;
	int err;

	if (!display)
		return -ENOMEM;
	err = function_key(w, kind, inlined, kind == JK_THREAD ? json_string_value(display) : name,
			   module, file);
	if (err)
		goto cleanup;
	v = json_object_get(w->fidx, w->key);
	if (v) {
		*idx = (uint32_t)json_integer_value(v);
		goto cleanup;
	}
	fr = json_object();
	cf = json_object();
	err = -ENOMEM;
	if (!fr || !cf || put(fr, "name", json_incref(display)))
		goto cleanup;
	if (file && put(fr, "file", json_out_string(file)))
		goto cleanup;
	if (put(cf, "name", json_out_string(name)) ||
	    put(cf, "kind", json_string(jkind_names[kind])) ||
	    put(cf, "inlined", json_boolean(inlined)) ||
	    put(cf, "module", json_out_string(module)) || put(cf, "file", json_out_string(file)) ||
	    put(cf, "mangled", json_out_string(mangled)))
		goto cleanup;
	if (json_object_set_new_nocheck(w->fidx, w->key, json_integer((json_int_t)w->n_frames)))
		goto cleanup;
	err = push(w->frames, json_incref(fr));
	err = err ?: push(w->cframes, json_incref(cf));
	if (!err)
		*idx = (uint32_t)w->n_frames++;
cleanup:
	json_decref(fr);
	json_decref(cf);
	json_decref(display);
	return err;
}

/* Index in cpuprof.mappings of profile mapping id, added on first use. */
static int mapping_index(struct jw *w, uint32_t id, uint32_t *idx)
{
	const struct prof_mapping *m = profile__mapping(w->p, id);
	const char *kind = (size_t)m->kind < sizeof(map_kind_names) / sizeof(map_kind_names[0])
				   ? map_kind_names[m->kind]
				   : "unknown";
	json_t *o;
	int err;

	if (w->map_of[id] != NONE) {
		*idx = w->map_of[id];
		return 0;
	}
	o = json_object();
	if (!o)
		return -ENOMEM;
	err = put(o, "pid", json_integer(m->pid));
	err = err ?: put(o, "kind", json_string(kind));
	err = err ?: put(o, "start", jhex(m->start));
	err = err ?: put(o, "limit", jhex(m->limit));
	err = err ?: put(o, "offset", jhex(m->offset));
	err = err ?: put(o, "path", json_out_string(m->path));
	/* "" (unknown) as null */
	err = err
		      ?: put(o, "build_id",
			     json_out_string(m->build_id && *m->build_id ? m->build_id : NULL));
	if (err) {
		json_decref(o);
		return err;
	}
	if (push(w->maps, o))
		return -ENOMEM;
	*idx = w->map_of[id] = (uint32_t)w->n_maps++;
	return 0;
}

/* Index in cpuprof.locations of profile frame id, added on first use; its function in *func. */
static int location_index(struct jw *w, uint32_t id, uint32_t *idx, uint32_t *func)
{
	const struct prof_frame *f = profile__frame(w->p, id);
	enum jkind kind = f->kind == FRAME_KERNEL   ? JK_KERNEL
			  : f->kind == FRAME_PSEUDO ? JK_PSEUDO
			  : f->kind == FRAME_PYTHON ? JK_PYTHON
			  : f->kind == FRAME_RUBY   ? JK_RUBY
			  : f->kind == FRAME_PHP    ? JK_PHP
			  : f->kind == FRAME_PERL   ? JK_PERL
						    : JK_USER;
	uint32_t map = NONE;
	json_t *o, *display;
	int err;

	if (w->loc_of[id].loc != NONE) {
		*idx = w->loc_of[id].loc;
		*func = w->loc_of[id].func;
		return 0;
	}
	/* marked as in the folded output: kernel "_[k]", else inlined "_[i]" */
	display = kind == JK_KERNEL ? jstrf("%s_[k]", f->name)
		  : f->inlined	    ? jstrf("%s_[i]", f->name)
				    : json_out_string(f->name);
	err = function_index(w, kind, f->inlined, display, f->name, f->module, f->file, f->mangled,
			     func);
	if (err)
		return err;
	if (f->mapping) {
		err = mapping_index(w, f->mapping - 1, &map);
		if (err)
			return err;
	}
	o = json_object();
	if (!o)
		return -ENOMEM;
	err = put(o, "frame", json_integer(*func));
	err = err ?: put(o, "address", jhex(f->addr));
	err = err ?: put(o, "object_address", jhex(f->rel));
	err = err ?: put(o, "mapping", json_integer(map == NONE ? -1 : (json_int_t)map));
	err = err ?: put(o, "line", f->line ? json_integer(f->line) : json_null());
	err = err ?: put(o, "column", f->column ? json_integer(f->column) : json_null());
	err = err ?: put(o, "inlined", json_boolean(f->inlined));
	err = err ?: put(o, "named", json_boolean(f->named));
	if (err) {
		json_decref(o);
		return err;
	}
	if (push(w->locs, o))
		return -ENOMEM;
	w->loc_of[id].func = *func;
	*idx = w->loc_of[id].loc = (uint32_t)w->n_locs++;
	return 0;
}

/* ---- profiles ---------------------------------------------------------------------------- */

/* One stack: the speedscope frame indices and, in parallel, the locations (-1: synthetic). */
static int add_stack(struct jw *w, const struct prof_sample *s, uint32_t tid, json_t *stack,
		     json_t *locs)
{
	uint32_t func, loc;
	int err;

	err = function_index(w, JK_PROCESS, false, json_out_string(s->comm), s->comm, NULL, NULL,
			     NULL, &func);
	err = err ?: push(stack, json_integer(func));
	err = err ?: push(locs, json_integer(-1));
	if (!err && w->m->per_thread) {
		const char *shown = *s->thread ? s->thread : s->comm;

		err = function_index(w, JK_THREAD, false, jstrf("%s (tid %" PRIu32 ")", shown, tid),
				     s->thread, NULL, NULL, NULL, &func);
		err = err ?: push(stack, json_integer(func));
		err = err ?: push(locs, json_integer(-1));
	}
	for (uint32_t i = 0; !err && i < s->nframes; i++) {
		err = location_index(w, s->frames[i], &loc, &func);
		err = err ?: push(stack, json_integer(func));
		err = err ?: push(locs, json_integer(loc));
	}
	return err;
}

/*
 * The profile of ss[from..to) (one process, or one thread); its index in *index and its sample
 * count in *count.
 */
static int add_profile(struct jw *w, size_t from, size_t to, const char *comm, size_t *index,
		       uint64_t *count)
{
	const struct prof_sample *first = w->ss[from];
	uint64_t period = w->m->period_ns, sum = 0, end = 0;
	json_t *prof = json_object(), *cprof = json_object();
	json_t *samples = json_array(), *weights = json_array(), *stacks = json_array();
	const char *thread = NULL;
	json_t *name = NULL;
	int err = -ENOMEM;

	if (!prof || !cprof || !samples || !weights || !stacks)
		goto cleanup;
	if (w->m->per_thread) {
		thread = main_name(w->ss + from, to - from, true);
		if (!thread)
			goto cleanup;
		name = jstrf("%s (tid %" PRIu32 ")", *thread ? thread : comm, first->tid);
	} else {
		name = jstrf("%s (pid %" PRIu32 ")", comm, first->pid);
	}
	err = 0;
	for (size_t i = from; i < to && !err; i++) {
		const struct prof_sample *s = w->ss[i];
		json_t *stack = json_array(), *locs = json_array();

		err = stack && locs ? add_stack(w, s, first->tid, stack, locs) : -ENOMEM;
		err = err ?: push(samples, json_incref(stack));
		err = err ?: push(stacks, json_incref(locs));
		err = err ?: push(weights, jnum(period ? s->count * period : s->count));
		json_decref(stack);
		json_decref(locs);
		sum += s->count;
		end += period ? s->count * period : s->count;
	}
	/* speedscope's sampled profile, keys in its schema's order of importance */
	err = err ?: put(prof, "type", json_string("sampled"));
	err = err ?: put(prof, "name", json_incref(name));
	err = err ?: put(prof, "unit", json_string(period ? "nanoseconds" : "none"));
	err = err ?: put(prof, "startValue", json_integer(0));
	err = err ?: put(prof, "endValue", jnum(end));
	err = err ?: put(prof, "samples", json_incref(samples));
	err = err ?: put(prof, "weights", json_incref(weights));
	err = err ?: put(cprof, "pid", json_integer(first->pid));
	err = err ?: put(cprof, "tid", w->m->per_thread ? json_integer(first->tid) : json_null());
	err = err ?: put(cprof, "comm", json_out_string(comm));
	err = err ?: put(cprof, "thread", json_out_string(thread));
	err = err ?: put(cprof, "samples", jnum(sum));
	err = err ?: put(cprof, "stacks", json_incref(stacks));
	err = err ?: push(w->profiles, json_incref(prof));
	err = err ?: push(w->cprofiles, json_incref(cprof));
	if (err)
		goto cleanup;
	*index = w->n_profiles++;
	*count = sum;
	if (*index == 0 || sum > w->active_count) {
		w->active = *index;
		w->active_count = sum;
	}
cleanup:
	json_decref(name);
	json_decref(prof);
	json_decref(cprof);
	json_decref(samples);
	json_decref(weights);
	json_decref(stacks);
	return err;
}

/* One process, ss[from..to): its profile, or one per thread. */
static int add_process(struct jw *w, size_t from, size_t to)
{
	const char *comm = main_name(w->ss + from, to - from, false);
	json_t *proc = json_object(), *threads = json_array();
	uint64_t total = 0, count = 0;
	size_t i, j, index = 0;
	int err = -ENOMEM;

	if (!comm || !proc || !threads)
		goto cleanup;
	err = 0;
	for (i = from; i < to && !err; i = j) {
		bool per_thread = w->m->per_thread;
		json_t *t, *cprof;

		for (j = i + 1; j < to && (!per_thread || w->ss[j]->tid == w->ss[i]->tid); j++)
			;
		err = add_profile(w, i, j, comm, &index, &count);
		cprof = json_array_get(w->cprofiles, index);
		total += count;
		if (err || !per_thread)
			continue;
		t = json_object();
		err = t ? 0 : -ENOMEM;
		err = err ?: push(threads, t);
		err = err ?: put(t, "tid", json_integer(w->ss[i]->tid));
		err = err ?: put(t, "name", json_incref(json_object_get(cprof, "thread")));
		err = err ?: put(t, "samples", jnum(count));
		err = err ?: put(t, "profile", json_integer((json_int_t)index));
	}
	err = err ?: put(proc, "pid", json_integer(w->ss[from]->pid));
	err = err ?: put(proc, "comm", json_out_string(comm));
	err = err ?: put(proc, "samples", jnum(total));
	err = err ?: put(proc, "profile", json_integer(w->m->per_thread ? -1 : (json_int_t)index));
	err = err ?: put(proc, "threads", json_incref(threads));
	err = err ?: push(w->procs, json_incref(proc));
	w->total += total;
cleanup:
	json_decref(proc);
	json_decref(threads);
	return err;
}

static int add_counters(json_t *counters, const struct profile_meta *m)
{
	int err = 0;

	for (size_t i = 0; i < m->n_counters && !err; i++) {
		json_t *name = json_out_string(m->counters[i].name ?: "");
		json_t *old;
		uint64_t v = m->counters[i].value;

		if (!name)
			return -ENOMEM;
		/* a reason given twice is counted once, with the sum */
		old = json_object_get(counters, json_string_value(name));
		if (old)
			v += (uint64_t)json_integer_value(old);
		err = put(counters, json_string_value(name), jnum(v));
		json_decref(name);
	}
	return err;
}

static int collect_samples(struct jw *w)
{
	size_t n = profile__n_samples(w->p), nf = profile__n_frames(w->p);
	size_t nm = profile__n_mappings(w->p);

	w->ss = malloc((n ? n : 1) * sizeof(*w->ss));
	w->loc_of = malloc((nf ? nf : 1) * sizeof(*w->loc_of));
	w->map_of = malloc((nm ? nm : 1) * sizeof(*w->map_of));
	w->fidx = json_object();
	if (!w->ss || !w->loc_of || !w->map_of || !w->fidx)
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

/* The "cpuprof" object, with its arrays (filled later) in w. */
static json_t *extension(struct jw *w)
{
	const struct profile_meta *m = w->m;
	json_t *c = json_object(), *counters = json_object();
	char start[24];
	int err;

	if (!c || !counters) {
		json_decref(c);
		json_decref(counters);
		return NULL;
	}
	snprintf(start, sizeof(start), "%" PRIu64, m->start_unix_ns);
	err = put(c, "format_version", json_integer(CPUPROF_JSON_FORMAT_VERSION));
	err = err ?: put(c, "cpuprof_version", json_out_string(m->version ?: "unknown"));
	err = err ?: put(c, "command_line", json_out_string(m->command_line));
	err = err ?: put(c, "event", json_out_string(m->event));
	err = err ?: put(c, "frequency_hz", json_integer(m->frequency));
	err = err ?: put(c, "period_ns", jnum(m->period_ns));
	err = err ?: put(c, "start_time", jtime(m->start_unix_ns));
	err = err
		      ?: put(c, "start_time_unix_ns",
			     m->start_unix_ns ? json_string(start) : json_null());
	err = err ?: put(c, "duration_ns", jnum(m->duration_ns));
	err = err ?: put(c, "per_thread", json_boolean(m->per_thread));
	err = err ?: put(c, "samples", json_integer(0)); /* set at the end */
	err = err ?: add_counters(counters, m);
	err = err ?: put(c, "counters", json_incref(counters));
	err = err ?: put(c, "processes", json_incref(w->procs));
	err = err ?: put(c, "profiles", json_incref(w->cprofiles));
	err = err ?: put(c, "frames", json_incref(w->cframes));
	err = err ?: put(c, "locations", json_incref(w->locs));
	err = err ?: put(c, "mappings", json_incref(w->maps));
	json_decref(counters);
	if (err) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* The whole document, keys in a fixed order (jansson keeps insertion order). */
static int build(struct jw *w, json_t **out)
{
	const char *version = w->m->version ?: "unknown";
	json_t *root = json_object(), *shared = json_object();
	int err = -ENOMEM;

	w->frames = json_array();
	w->profiles = json_array();
	w->cframes = json_array();
	w->cprofiles = json_array();
	w->procs = json_array();
	w->locs = json_array();
	w->maps = json_array();
	if (!root || !shared || !w->frames || !w->profiles || !w->cframes || !w->cprofiles ||
	    !w->procs || !w->locs || !w->maps)
		goto cleanup;
	err = put(root, "$schema", json_string(SPEEDSCOPE_SCHEMA));
	err = err ?: put(root, "exporter", jstrf("cpuprof@%s", version));
	err = err
		      ?: put(root, "name",
			     json_out_string(w->m->command_line && *w->m->command_line
						     ? w->m->command_line
						     : "cpuprof"));
	err = err ?: put(root, "activeProfileIndex", json_integer(0)); /* set at the end */
	err = err ?: put(shared, "frames", json_incref(w->frames));
	err = err ?: put(root, "shared", json_incref(shared));
	err = err ?: put(root, "profiles", json_incref(w->profiles));
	err = err ?: put(root, "cpuprof", extension(w));
	err = err ?: collect_samples(w);
	for (size_t i = 0, j; i < w->n && !err; i = j) {
		/* pid 0 (the idle task, ended processes merged): one process per name */
		for (j = i + 1; j < w->n && w->ss[j]->pid == w->ss[i]->pid &&
				(w->ss[i]->pid || !strcmp(w->ss[j]->comm, w->ss[i]->comm));
		     j++)
			;
		err = add_process(w, i, j);
	}
	if (!err) {
		json_integer_set(json_object_get(root, "activeProfileIndex"),
				 (json_int_t)w->active);
		json_integer_set(json_object_get(json_object_get(root, "cpuprof"), "samples"),
				 w->total > INT64_MAX ? INT64_MAX : (json_int_t)w->total);
		*out = json_incref(root);
	}
cleanup:
	json_decref(root);
	json_decref(shared);
	return err;
}

int json_write(const struct profile *p, const struct profile_meta *m, FILE *out)
{
	struct jw w = {.p = p, .m = m};
	json_t *root = NULL;
	char *text = NULL;
	size_t len;
	int err;

	err = build(&w, &root);
	if (err)
		goto cleanup;
	/* into memory first (dumping allocates too), so that out gets all or nothing */
	err = -ENOMEM;
	len = json_dumpb(root, NULL, 0, JSON_COMPACT);
	text = len ? malloc(len + 1) : NULL;
	if (!text || json_dumpb(root, text, len, JSON_COMPACT) != len)
		goto cleanup;
	text[len] = '\n';
	err = 0;
	if (fwrite(text, 1, len + 1, out) != len + 1 || fflush(out) || ferror(out))
		err = -EIO;
cleanup:
	free(text);
	json_decref(root);
	json_decref(w.frames);
	json_decref(w.profiles);
	json_decref(w.cframes);
	json_decref(w.cprofiles);
	json_decref(w.procs);
	json_decref(w.locs);
	json_decref(w.maps);
	json_decref(w.fidx);
	free(w.ss);
	free(w.loc_of);
	free(w.map_of);
	free(w.key);
	return err;
}
