// SPDX-License-Identifier: GPL-2.0
/*
 * Field numbers are those of github.com/google/pprof/proto/profile.proto (Profile 1..14,
 * ValueType, Sample, Label, Mapping, Location, Line, Function).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "util/idtable.h"
#include "util/grow.h"
#include "output/pprof.h"

enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	LINE_COLUMN = 3,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

/* ---- hashing ----------------------------------------------------------------------------- */

static uint32_t hash_str(uint32_t h, const char *s)
{
	return idtable_hash(h, s, strlen(s) + 1);
}

static uint32_t hash_u32(uint32_t h, uint32_t v)
{
	return idtable_hash(h, &v, sizeof(v));
}

/* ---- the encoder's state ---------------------------------------------------------------- */

/* One Location: a run of frames at one address, innermost first. */
struct loc {
	const uint32_t *frames; /* points into a sample's frame array (root first) */
	uint32_t n;		/* frames[-(n-1)] .. frames[0]: see loc_frame() */
	bool leaf;
	uint64_t address;
	uint32_t mapping; /* profile mapping id + 1 */
};

struct func {
	const char *name, *system_name, *file;
	uint32_t start_line; /* Python functions' first line; 0 unknown */
};

struct enc {
	const struct profile *p;
	const struct profile_meta *m;
	struct idtable strs, funcs, locs;
	const char **str_v;
	size_t n_str, cap_str;
	struct func *func_v;
	size_t n_func, cap_func;
	struct loc *loc_v;
	size_t n_loc, cap_loc;
	uint32_t *map_ids; /* profile mapping id -> pprof mapping id (0 = unused) */
	bool *map_all_named, *map_all_lines, *map_all_files;
	uint32_t n_maps_used;
	struct pb msg, sub;
	uint64_t *ids;
	uint32_t *rank; /* frame id -> its place in (name, address) order; equal frames share it */
};

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	return strcmp(((const struct enc *)ctx)->str_v[id], key) == 0;
}

/* Index of s in the string table, added at its first use. Negative errno on failure. */
static int64_t str_index(struct enc *e, const char *s)
{
	uint32_t h = hash_str(IDTABLE_SEED, s);
	struct idslot *sl;
	bool found;

	if (idtable_reserve(&e->strs))
		return -ENOMEM;
	sl = idtable_probe(&e->strs, h, str_eq, e, s, &found);
	if (found)
		return sl->id1 - 1;
	if (array_grow((void **)&e->str_v, &e->cap_str, e->n_str + 1, sizeof(*e->str_v)))
		return -ENOMEM;
	e->str_v[e->n_str] = s;
	idtable_fill(&e->strs, sl, h, (uint32_t)e->n_str);
	return (int64_t)e->n_str++;
}

static bool func_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct func *a = &((const struct enc *)ctx)->func_v[id], *b = key;

	return !strcmp(a->name, b->name) && !strcmp(a->system_name, b->system_name) &&
	       !strcmp(a->file, b->file) && a->start_line == b->start_line;
}

/* Function id (1-based) for a frame, added at its first use. 0 on failure. */
static uint64_t func_id(struct enc *e, const struct prof_frame *f)
{
	struct func fn = {
		.name = f->name,
		/* system_name: the mangled name, or the name itself when there is only one */
		.system_name = f->mangled ? f->mangled : f->name,
		.file = f->file ? f->file : "",
		.start_line = f->start_line,
	};
	uint32_t h = hash_str(hash_str(hash_str(IDTABLE_SEED, fn.name), fn.system_name), fn.file);
	struct idslot *sl;
	bool found;

	if (idtable_reserve(&e->funcs))
		return 0;
	sl = idtable_probe(&e->funcs, h, func_eq, e, &fn, &found);
	if (found)
		return sl->id1;
	if (array_grow((void **)&e->func_v, &e->cap_func, e->n_func + 1, sizeof(*e->func_v)))
		return 0;
	e->func_v[e->n_func] = fn;
	idtable_fill(&e->funcs, sl, h, (uint32_t)e->n_func);
	return ++e->n_func;
}

/* The j-th frame (0 = innermost) of a location. */
static const struct prof_frame *loc_frame(const struct enc *e, const struct loc *l, uint32_t j)
{
	return profile__frame(e->p, *(l->frames - j));
}

static bool loc_eq(const struct loc *a, const struct loc *b)
{
	if (a->n != b->n || a->leaf != b->leaf)
		return false;
	for (uint32_t j = 0; j < a->n; j++)
		if (*(a->frames - j) != *(b->frames - j))
			return false;
	return true;
}

static bool loc_id_eq(const void *ctx, uint32_t id, const void *key)
{
	return loc_eq(&((const struct enc *)ctx)->loc_v[id], key);
}

/* Location id (1-based) for a run of frames, added at its first use. 0 on failure. */
static uint64_t loc_id(struct enc *e, const struct loc *l)
{
	uint32_t h = hash_u32(IDTABLE_SEED, l->leaf);
	struct idslot *sl;
	bool found;

	for (uint32_t j = 0; j < l->n; j++)
		h = hash_u32(h, *(l->frames - j));
	if (idtable_reserve(&e->locs))
		return 0;
	sl = idtable_probe(&e->locs, h, loc_id_eq, e, l, &found);
	if (found)
		return sl->id1;
	if (array_grow((void **)&e->loc_v, &e->cap_loc, e->n_loc + 1, sizeof(*e->loc_v)))
		return 0;
	e->loc_v[e->n_loc] = *l;
	idtable_fill(&e->locs, sl, h, (uint32_t)e->n_loc);
	return ++e->n_loc;
}

/* ---- deterministic sample order ---------------------------------------------------------- */

/*
 * Samples are written in an order that depends on their content only: (comm, thread, pid, tid,
 * frames root first by (name, address)). The frames are ranked once in (name, address) order,
 * so sorting the samples compares integers, not names.
 */
static int cmp_frame_ids(const void *pa, const void *pb, void *ctx)
{
	const struct profile *p = ctx;
	const struct prof_frame *x = profile__frame(p, *(const uint32_t *)pa);
	const struct prof_frame *y = profile__frame(p, *(const uint32_t *)pb);
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int rank_frames(struct enc *e)
{
	size_t nf = profile__n_frames(e->p);
	uint32_t *ids = malloc((nf ? nf : 1) * sizeof(*ids));

	e->rank = malloc((nf ? nf : 1) * sizeof(*e->rank));
	if (!ids || !e->rank) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nf; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, nf, sizeof(*ids), cmp_frame_ids, (void *)e->p);
	for (size_t i = 0, r = 0; i < nf; i++) {
		if (i && cmp_frame_ids(&ids[i - 1], &ids[i], (void *)e->p))
			r = i;
		e->rank[ids[i]] = (uint32_t)r;
	}
	free(ids);
	return 0;
}

static int cmp_samples(const void *pa, const void *pb, void *ctx)
{
	const struct prof_sample *a = *(const struct prof_sample *const *)pa;
	const struct prof_sample *b = *(const struct prof_sample *const *)pb;
	const uint32_t *rank = ctx;
	uint32_t n = a->nframes < b->nframes ? a->nframes : b->nframes;
	int r;

	/* comm and thread: interned, equal pointers are equal names */
	if (a->comm != b->comm && (r = strcmp(a->comm, b->comm)))
		return r;
	if (a->thread != b->thread && (r = strcmp(a->thread, b->thread)))
		return r;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	for (uint32_t i = 0; i < n; i++)
		if (rank[a->frames[i]] != rank[b->frames[i]])
			return rank[a->frames[i]] < rank[b->frames[i]] ? -1 : 1;
	return a->nframes < b->nframes ? -1 : a->nframes > b->nframes;
}

/* ---- messages ---------------------------------------------------------------------------- */

static void value_type(struct enc *e, uint32_t field, const char *type, const char *unit)
{
	pb_reset(&e->sub);
	pb_int(&e->sub, VALUE_TYPE_TYPE, str_index(e, type));
	pb_int(&e->sub, VALUE_TYPE_UNIT, str_index(e, unit));
	pb_message(&e->msg, field, &e->sub);
}

static void label_str(struct enc *e, struct pb *sample, const char *k, const char *v)
{
	pb_reset(&e->sub);
	pb_int(&e->sub, LABEL_KEY, str_index(e, k));
	pb_int(&e->sub, LABEL_STR, str_index(e, v));
	pb_message(sample, SAMPLE_LABEL, &e->sub);
}

static void label_num(struct enc *e, struct pb *sample, const char *k, uint64_t v)
{
	pb_reset(&e->sub);
	pb_int(&e->sub, LABEL_KEY, str_index(e, k));
	pb_uint_always(&e->sub, LABEL_NUM, v);
	pb_message(sample, SAMPLE_LABEL, &e->sub);
}

/* Group a sample's frames into locations, leaf first, and write the Sample. */
static int encode_sample(struct enc *e, const struct prof_sample *s, struct pb *sm)
{
	uint64_t vals[2] = {s->count, s->count * e->m->period_ns};
	size_t nids = 0;

	for (uint32_t i = s->nframes; i-- > 0;) {
		const struct prof_frame *f = profile__frame(e->p, s->frames[i]);
		struct loc l = {.frames = &s->frames[i], .n = 1, .leaf = nids == 0};

		/* an inlined frame and the frames it is inlined into share one address */
		while (f->inlined && i > 0) {
			i--;
			l.n++;
			f = profile__frame(e->p, s->frames[i]);
		}
		/* l.frames points at the innermost frame; loc_frame walks root-ward */
		l.frames = &s->frames[i + l.n - 1];
		l.mapping = f->mapping;
		l.address = f->addr && !l.leaf ? f->addr - 1 : f->addr;
		e->ids[nids] = loc_id(e, &l);
		if (!e->ids[nids])
			return -ENOMEM;
		nids++;
	}
	pb_reset(sm);
	pb_packed(sm, SAMPLE_LOCATION_ID, e->ids, nids);
	pb_packed(sm, SAMPLE_VALUE, vals, 2);
	label_num(e, sm, "pid", s->pid);
	if (e->m->per_thread)
		label_num(e, sm, "tid", s->tid);
	label_str(e, sm, "comm", s->comm);
	if (e->m->per_thread)
		label_str(e, sm, "thread_name", s->thread);
	return pb_error(sm);
}

/* pprof mapping id of profile mapping `mapping` (id + 1), or 0. */
static uint64_t pprof_mapping(const struct enc *e, uint32_t mapping)
{
	return mapping ? e->map_ids[mapping - 1] : 0;
}

static void encode_location(struct enc *e, uint64_t id, const struct loc *l)
{
	struct pb line = PB_INIT;
	const struct prof_frame *outer = loc_frame(e, l, l->n - 1);
	uint32_t mi = l->mapping;

	pb_reset(&e->sub);
	pb_uint(&e->sub, LOCATION_ID, id);
	pb_uint(&e->sub, LOCATION_MAPPING_ID, pprof_mapping(e, mi));
	pb_uint(&e->sub, LOCATION_ADDRESS, l->address);
	/* unnamed code keeps no Line: pprof shows the address and may symbolize it itself */
	if (outer->named || outer->kind == FRAME_PSEUDO) {
		for (uint32_t j = 0; j < l->n; j++) {
			const struct prof_frame *f = loc_frame(e, l, j);

			pb_reset(&line);
			pb_uint(&line, LINE_FUNCTION_ID, func_id(e, f));
			pb_uint(&line, LINE_LINE, f->line);
			pb_uint(&line, LINE_COLUMN, f->column);
			pb_message(&e->sub, LOCATION_LINE, &line);
			if (mi) {
				e->map_all_files[mi - 1] &= f->file != NULL;
				e->map_all_lines[mi - 1] &= f->line != 0;
			}
		}
	} else if (mi) {
		e->map_all_named[mi - 1] = false;
	}
	if (mi && !outer->named)
		e->map_all_named[mi - 1] = false;
	pb_message(&e->msg, PROFILE_LOCATION, &e->sub);
	pb_free(&line);
}

static void encode_mapping(struct enc *e, uint32_t pm)
{
	const struct prof_mapping *m = profile__mapping(e->p, pm);
	bool named = e->map_all_named[pm], lines = named && e->map_all_lines[pm];

	pb_reset(&e->sub);
	pb_uint(&e->sub, MAPPING_ID, e->map_ids[pm]);
	pb_uint(&e->sub, MAPPING_MEMORY_START, m->start);
	pb_uint(&e->sub, MAPPING_MEMORY_LIMIT, m->limit);
	pb_uint(&e->sub, MAPPING_FILE_OFFSET, m->offset);
	pb_int(&e->sub, MAPPING_FILENAME, str_index(e, m->path));
	pb_int(&e->sub, MAPPING_BUILD_ID, str_index(e, m->build_id));
	pb_bool(&e->sub, MAPPING_HAS_FUNCTIONS, named);
	pb_bool(&e->sub, MAPPING_HAS_FILENAMES, named && e->map_all_files[pm]);
	pb_bool(&e->sub, MAPPING_HAS_LINE_NUMBERS, lines);
	/* line numbers come from DWARF, which also gives the inline chains we expand */
	pb_bool(&e->sub, MAPPING_HAS_INLINE_FRAMES, lines);
	pb_message(&e->msg, PROFILE_MAPPING, &e->sub);
}

static int cmp_mappings(const void *pa, const void *pb, void *ctx)
{
	const struct profile *p = ctx;
	const struct prof_mapping *a = profile__mapping(p, *(const uint32_t *)pa);
	const struct prof_mapping *b = profile__mapping(p, *(const uint32_t *)pb);

	/* the main executable first by pprof's convention: lowest pid, lowest address; kernel last
	 */
	if ((a->kind == PMAP_KERNEL) != (b->kind == PMAP_KERNEL))
		return a->kind == PMAP_KERNEL ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* Number the mappings that locations use, in a content order. */
static int number_mappings(struct enc *e)
{
	size_t nm = profile__n_mappings(e->p), used = 0;
	uint32_t *order = malloc((nm ? nm : 1) * sizeof(*order));

	e->map_ids = calloc(nm ? nm : 1, sizeof(*e->map_ids));
	e->map_all_named = malloc(nm ? nm : 1);
	e->map_all_lines = malloc(nm ? nm : 1);
	e->map_all_files = malloc(nm ? nm : 1);
	if (!order || !e->map_ids || !e->map_all_named || !e->map_all_lines || !e->map_all_files) {
		free(order);
		return -ENOMEM;
	}
	memset(e->map_all_named, 1, nm);
	memset(e->map_all_lines, 1, nm);
	memset(e->map_all_files, 1, nm);
	for (size_t i = 0; i < e->n_loc; i++) {
		uint32_t mi = e->loc_v[i].mapping;

		if (mi && !e->map_ids[mi - 1]) {
			e->map_ids[mi - 1] = UINT32_MAX; /* mark used */
			order[used++] = mi - 1;
		}
	}
	qsort_r(order, used, sizeof(*order), cmp_mappings, (void *)e->p);
	for (size_t i = 0; i < used; i++)
		e->map_ids[order[i]] = (uint32_t)i + 1;
	e->n_maps_used = (uint32_t)used;
	free(order);
	return 0;
}

/*
 * The profile message in three parts whose concatenation is the message (field order on the
 * wire does not matter to readers): e->msg (all but samples and strings), *samples, *strings.
 */
static int encode(struct enc *e, struct pb *samples, struct pb *strings)
{
	size_t ns = profile__n_samples(e->p), nm = profile__n_mappings(e->p), maxf = 1;
	const struct prof_sample **order = malloc((ns ? ns : 1) * sizeof(*order));
	struct pb sm = PB_INIT;
	int err = -ENOMEM;
	char comment[512];

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < ns; i++) {
		order[i] = profile__sample(e->p, i);
		if (order[i]->nframes > maxf)
			maxf = order[i]->nframes;
	}
	if (rank_frames(e))
		goto out;
	qsort_r(order, ns, sizeof(*order), cmp_samples, e->rank);
	e->ids = malloc(maxf * sizeof(*e->ids));
	if (!e->ids)
		goto out;
	/* string 0 must be "" */
	if (str_index(e, "") != 0)
		goto out;
	value_type(e, PROFILE_SAMPLE_TYPE, "samples", "count");
	/* the default last too, for readers that ignore default_sample_type */
	value_type(e, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	for (size_t i = 0; i < ns; i++) {
		err = encode_sample(e, order[i], &sm);
		if (err)
			goto out;
		pb_message(samples, PROFILE_SAMPLE, &sm);
		if (pb_error(samples)) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = number_mappings(e);
	if (err)
		goto out;
	for (size_t i = 0; i < e->n_loc; i++)
		encode_location(e, i + 1, &e->loc_v[i]);
	/* mappings after locations: their has_* flags summarize the locations */
	for (uint32_t id = 1; id <= e->n_maps_used; id++)
		for (uint32_t pm = 0; pm < nm; pm++)
			if (e->map_ids[pm] == id)
				encode_mapping(e, pm);
	for (size_t i = 0; i < e->n_func; i++) {
		pb_reset(&e->sub);
		pb_uint(&e->sub, FUNCTION_ID, i + 1);
		pb_int(&e->sub, FUNCTION_NAME, str_index(e, e->func_v[i].name));
		pb_int(&e->sub, FUNCTION_SYSTEM_NAME, str_index(e, e->func_v[i].system_name));
		pb_int(&e->sub, FUNCTION_FILENAME, str_index(e, e->func_v[i].file));
		if (e->func_v[i].start_line)
			pb_int(&e->sub, FUNCTION_START_LINE, e->func_v[i].start_line);
		pb_message(&e->msg, PROFILE_FUNCTION, &e->sub);
	}
	pb_int(&e->msg, PROFILE_TIME_NANOS, (int64_t)e->m->start_unix_ns);
	pb_int(&e->msg, PROFILE_DURATION_NANOS, (int64_t)e->m->duration_ns);
	value_type(e, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	pb_int(&e->msg, PROFILE_PERIOD, (int64_t)e->m->period_ns);
	snprintf(comment, sizeof(comment), "cpuprof %s; %s at %u Hz", e->m->version, e->m->event,
		 e->m->frequency);
	pb_int(&e->msg, PROFILE_COMMENT, str_index(e, comment));
	pb_int(&e->msg, PROFILE_COMMENT, str_index(e, e->m->command_line));
	pb_int(&e->msg, PROFILE_DEFAULT_SAMPLE_TYPE, str_index(e, "cpu"));
	/* strings last: every index is known by now */
	for (size_t i = 0; i < e->n_str; i++)
		pb_string(strings, PROFILE_STRING_TABLE, e->str_v[i]);
	err = pb_error(&e->msg) ? pb_error(&e->msg) : pb_error(strings);
out:
	pb_free(&sm);
	free(order);
	return err;
}

static void enc_free(struct enc *e)
{
	idtable_free(&e->strs);
	idtable_free(&e->funcs);
	idtable_free(&e->locs);
	free(e->str_v);
	free(e->func_v);
	free(e->loc_v);
	free(e->map_ids);
	free(e->map_all_named);
	free(e->map_all_lines);
	free(e->map_all_files);
	free(e->ids);
	free(e->rank);
	pb_free(&e->msg);
	pb_free(&e->sub);
}

int pprof_encode(const struct profile *p, const struct profile_meta *m, struct pb *out)
{
	struct enc e = {.p = p, .m = m};
	struct pb samples = PB_INIT, strings = PB_INIT;
	int err = encode(&e, &samples, &strings);

	if (!err) {
		pb_reset(out);
		pb_append(out, &e.msg);
		pb_append(out, &samples);
		pb_append(out, &strings);
		err = pb_error(out);
	}
	pb_free(&samples);
	pb_free(&strings);
	enc_free(&e);
	return err;
}

/*
 * gzip of the concatenation of n buffers into f. Level 1, as Go's runtime/pprof writes its
 * profiles (gzip.BestSpeed): the file is written while the user waits for it after Ctrl-C.
 */
static int gzip_write_parts(const void *const *data, const size_t *len, size_t n, FILE *f)
{
	unsigned char buf[65536];
	z_stream zs = {0};
	int err = 0;

	/* 15 + 16: a gzip wrapper; zlib's default gzip header has mtime 0 and no name */
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* as zlib's example zpipe.c: deflate until it leaves room in the output */
	for (size_t i = 0; i < n && !err; i++) {
		const unsigned char *p = data[i];
		size_t left = len[i];

		do {
			/* avail_in is an unsigned int: big buffers go in pieces */
			uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
			int flush;

			zs.next_in = (unsigned char *)p;
			zs.avail_in = chunk;
			p += chunk;
			left -= chunk;
			flush = i + 1 == n && !left ? Z_FINISH : Z_NO_FLUSH;
			do {
				size_t have;

				zs.next_out = buf;
				zs.avail_out = sizeof(buf);
				if (deflate(&zs, flush) == Z_STREAM_ERROR) {
					err = -ENOMEM;
					break;
				}
				have = sizeof(buf) - zs.avail_out;
				if (fwrite(buf, 1, have, f) != have) {
					err = -EIO;
					break;
				}
			} while (zs.avail_out == 0);
		} while (!err && left);
	}
	deflateEnd(&zs);
	if (!err && fflush(f))
		err = -EIO;
	return err;
}

int gzip_write(const void *data, size_t len, FILE *f)
{
	return gzip_write_parts(&data, &len, 1, f);
}

int pprof_write(const struct profile *p, const struct profile_meta *m, FILE *f)
{
	struct enc e = {.p = p, .m = m};
	struct pb samples = PB_INIT, strings = PB_INIT;
	int err = encode(&e, &samples, &strings);

	if (!err) {
		const void *parts[3] = {e.msg.buf, samples.buf, strings.buf};
		size_t lens[3] = {e.msg.len, samples.len, strings.len};

		err = gzip_write_parts(parts, lens, 3, f);
	}
	pb_free(&samples);
	pb_free(&strings);
	enc_free(&e);
	return err;
}
