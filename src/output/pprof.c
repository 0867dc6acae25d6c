// SPDX-License-Identifier: GPL-2.0
/*
 * Field numbers are those of github.com/google/pprof/proto/profile.proto (Profile 1..14,
 * ValueType, Sample, Label, Mapping, Location, Line, Function).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/idtable.h"
#include "util/grow.h"
#include "util/labelset.h"
#include "output/gzpipe.h"
#include "output/pprof.h"
#include "util/strset.h"
#include "util/utf8safe.h"

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
	uint64_t address;
	uint32_t n : 31; /* frames[-(n-1)] .. frames[0]: see loc_frame() */
	uint32_t leaf : 1;
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
	struct pb msg;
	uint64_t *ids;
	uint32_t *loc1; /* [2 * frame id + leaf]: id of the one-frame location there, 0 unknown */
	bool *inlined;	/* frame id -> its inlined flag, read without the whole frame */
	int64_t key_pid, key_tid, key_comm, key_thread; /* label keys' string indexes */
	const char *last_comm, *last_thread;		/* and the last values' (sorted: runs) */
	int64_t last_comm_i, last_thread_i;
	struct strset safe; /* strings of the header made valid (the profile's are already) */
};

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	return strcmp(((const struct enc *)ctx)->str_v[id], key) == 0;
}

/* Index of s in the string table, added at its first use. Negative errno on failure. */
static int64_t str_index(struct enc *e, const char *s)
{
	struct idslot *sl;
	bool found;
	uint32_t h;

	/* protobuf readers refuse a whole profile for one string that is not UTF-8 */
	if (!utf8safe_ok(s)) {
		char *t = utf8safe_dup(s);

		s = t ? strset_intern(&e->safe, t) : NULL;
		free(t);
		if (!s)
			return -ENOMEM;
	}
	h = hash_str(IDTABLE_SEED, s);
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

/* str_index of a string that does not outlive its caller (a buffer): the table keeps a copy. */
static int64_t str_index_copy(struct enc *e, const char *s)
{
	const char *c = strset_intern(&e->safe, s);

	return c ? str_index(e, c) : -ENOMEM;
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

/* A new location's id (1-based), not indexed. 0 on failure. */
static uint64_t loc_new(struct enc *e, const struct loc *l)
{
	if (array_grow((void **)&e->loc_v, &e->cap_loc, e->n_loc + 1, sizeof(*e->loc_v)))
		return 0;
	e->loc_v[e->n_loc] = *l;
	return ++e->n_loc;
}

/*
 * Location id (1-based) for a run of several frames (inlined ones and the frame they are
 * inlined into), added at its first use. 0 on failure.
 */
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
 * frames root first), a frame by a 64-bit hash of its name and address (then by those, should
 * two hashes be equal). Samples that share callers stay together, which gzip likes, and the
 * sort compares integers: names are hashed once per frame.
 */
struct sort_ctx {
	const struct profile *p;
	const uint64_t *fkey; /* frame id -> hash of its name and address */
};

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

/* FNV-1a, 64 bits (http://www.isthe.com/chongo/tech/comp/fnv/: offset basis and prime) */
static uint64_t hash64_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int cmp_frames(const struct sort_ctx *c, uint32_t a, uint32_t b)
{
	const struct prof_frame *x, *y;
	int r;

	if (c->fkey[a] != c->fkey[b])
		return c->fkey[a] < c->fkey[b] ? -1 : 1;
	x = profile__frame(c->p, a);
	y = profile__frame(c->p, b);
	if (x->name != y->name && (r = strcmp(x->name, y->name)))
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_samples(const void *pa, const void *pb, void *ctx)
{
	const struct prof_sample *a = *(const struct prof_sample *const *)pa;
	const struct prof_sample *b = *(const struct prof_sample *const *)pb;
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
	if (a->labels != b->labels && (r = strcmp(a->labels, b->labels)))
		return r;
	for (uint32_t i = 0; i < n; i++)
		if (a->frames[i] != b->frames[i] &&
		    (r = cmp_frames(ctx, a->frames[i], b->frames[i])))
			return r;
	return a->nframes < b->nframes ? -1 : a->nframes > b->nframes;
}

/* The samples of e->p in content order, into order[0..n). 0 or -ENOMEM. */
static int order_samples(struct enc *e, const struct prof_sample **order, size_t n)
{
	size_t nf = profile__n_frames(e->p);
	uint64_t *fkey = malloc((nf ? nf : 1) * sizeof(*fkey));

	if (!fkey)
		return -ENOMEM;
	for (size_t i = 0; i < nf; i++) {
		const struct prof_frame *f = profile__frame(e->p, (uint32_t)i);

		fkey[i] = mix64(hash64_str(f->name), f->addr);
	}
	for (size_t i = 0; i < n; i++)
		order[i] = profile__sample(e->p, i);
	qsort_r(order, n, sizeof(*order), cmp_samples, &(struct sort_ctx){.p = e->p, .fkey = fkey});
	free(fkey);
	return 0;
}

/* ---- messages ---------------------------------------------------------------------------- */

static void value_type(struct enc *e, uint32_t field, const char *type, const char *unit)
{
	size_t at = pb_open(&e->msg, field);

	pb_int(&e->msg, VALUE_TYPE_TYPE, str_index(e, type));
	pb_int(&e->msg, VALUE_TYPE_UNIT, str_index(e, unit));
	pb_close(&e->msg, at);
}

/* A string label; *last and *last_i remember the value's index for the next sample. */
static void label_str(struct enc *e, struct pb *b, int64_t k, const char *v, const char **last,
		      int64_t *last_i)
{
	size_t at = pb_open(b, SAMPLE_LABEL);

	/* interned strings: an equal pointer is an equal value */
	if (*last != v) {
		*last = v;
		*last_i = str_index(e, v);
	}
	pb_int(b, LABEL_KEY, k);
	pb_int(b, LABEL_STR, *last_i);
	pb_close(b, at);
}

static void label_num(struct pb *b, int64_t k, uint64_t v)
{
	size_t at = pb_open(b, SAMPLE_LABEL);

	pb_int(b, LABEL_KEY, k);
	pb_uint_always(b, LABEL_NUM, v);
	pb_close(b, at);
}

/* The sample's own labels (a goroutine's), each a string label. */
static void labels(struct enc *e, struct pb *b, const char *set)
{
	char k[LABELSET_MAX_LEN], v[LABELSET_MAX_LEN];

	while (labelset_next(&set, k, sizeof(k), v, sizeof(v))) {
		size_t at = pb_open(b, SAMPLE_LABEL);

		/* the table keeps the pointers: strings of its own */
		const char *ks = strset_intern(&e->safe, k), *vs = strset_intern(&e->safe, v);

		pb_int(b, LABEL_KEY, ks ? str_index(e, ks) : -ENOMEM);
		pb_int(b, LABEL_STR, vs ? str_index(e, vs) : -ENOMEM);
		pb_close(b, at);
	}
}

/* Group a sample's frames into locations, leaf first, and write the Sample into b. */
static int encode_sample(struct enc *e, const struct prof_sample *s, struct pb *b)
{
	uint64_t vals[2] = {s->count, s->count * e->m->period_ns};
	size_t nids = 0, at;
	bool user = false; /* a frame outside the kernel was met: the ones after are callers */

	for (uint32_t i = s->nframes; i-- > 0;) {
		const struct prof_frame *f = profile__frame(e->p, s->frames[i]);
		/* the sampled pc: the leaf, and the first user frame under kernel ones */
		bool first_user = !user && f->kind != FRAME_KERNEL;
		struct loc l = {.frames = &s->frames[i], .n = 1, .leaf = nids == 0 || first_user};
		uint32_t *known = &e->loc1[2 * (size_t)s->frames[i] + l.leaf];

		user = user || first_user;
		/* most locations are one frame: their ids are kept by frame */
		if (*known && !e->inlined[s->frames[i]]) {
			e->ids[nids++] = *known;
			continue;
		}
		f = profile__frame(e->p, s->frames[i]);
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
		/* a location of one frame is known by loc1 alone: the index holds the others */
		if (l.n == 1 && *known) {
			e->ids[nids++] = *known;
			continue;
		}
		e->ids[nids] = l.n == 1 ? loc_new(e, &l) : loc_id(e, &l);
		if (!e->ids[nids])
			return -ENOMEM;
		if (l.n == 1)
			*known = (uint32_t)e->ids[nids];
		nids++;
	}
	at = pb_open(b, PROFILE_SAMPLE);
	pb_packed(b, SAMPLE_LOCATION_ID, e->ids, nids);
	pb_packed(b, SAMPLE_VALUE, vals, 2);
	label_num(b, e->key_pid, s->pid);
	if (e->m->per_thread)
		label_num(b, e->key_tid, s->tid);
	label_str(e, b, e->key_comm, s->comm, &e->last_comm, &e->last_comm_i);
	if (e->m->per_thread)
		label_str(e, b, e->key_thread, s->thread, &e->last_thread, &e->last_thread_i);
	labels(e, b, s->labels);
	pb_close(b, at);
	return pb_error(b);
}

/* pprof mapping id of profile mapping `mapping` (id + 1), or 0. */
static uint64_t pprof_mapping(const struct enc *e, uint32_t mapping)
{
	return mapping ? e->map_ids[mapping - 1] : 0;
}

static void encode_location(struct enc *e, uint64_t id, const struct loc *l)
{
	/* copied: the loop below takes more frames than profile__frame's ring holds */
	const struct prof_frame outer = *loc_frame(e, l, l->n - 1);
	uint32_t mi = l->mapping;
	size_t at = pb_open(&e->msg, PROFILE_LOCATION);

	pb_uint(&e->msg, LOCATION_ID, id);
	pb_uint(&e->msg, LOCATION_MAPPING_ID, pprof_mapping(e, mi));
	pb_uint(&e->msg, LOCATION_ADDRESS, l->address);
	/*
	 * unnamed code keeps no Line: pprof shows the address and may symbolize it itself; an
	 * interpreter's frame always has one ("py::[unknown]" and its file when known)
	 */
	if (outer.named || outer.kind == FRAME_PSEUDO || outer.kind == FRAME_PYTHON ||
	    outer.kind == FRAME_RUBY || outer.kind == FRAME_PHP || outer.kind == FRAME_PERL ||
	    outer.kind == FRAME_JS || outer.kind == FRAME_JAVA) {
		for (uint32_t j = 0; j < l->n; j++) {
			const struct prof_frame *f = loc_frame(e, l, j);
			size_t lat = pb_open(&e->msg, LOCATION_LINE);

			pb_uint(&e->msg, LINE_FUNCTION_ID, func_id(e, f));
			pb_uint(&e->msg, LINE_LINE, f->line);
			pb_uint(&e->msg, LINE_COLUMN, f->column);
			pb_close(&e->msg, lat);
			if (mi) {
				e->map_all_files[mi - 1] &= f->file != NULL;
				e->map_all_lines[mi - 1] &= f->line != 0;
			}
		}
	} else if (mi) {
		e->map_all_named[mi - 1] = false;
	}
	if (mi && !outer.named)
		e->map_all_named[mi - 1] = false;
	pb_close(&e->msg, at);
}

static void encode_mapping(struct enc *e, uint32_t pm)
{
	const struct prof_mapping *m = profile__mapping(e->p, pm);
	bool named = e->map_all_named[pm], lines = named && e->map_all_lines[pm];
	struct pb *b = &e->msg;
	size_t at = pb_open(b, PROFILE_MAPPING);

	pb_uint(b, MAPPING_ID, e->map_ids[pm]);
	pb_uint(b, MAPPING_MEMORY_START, m->start);
	pb_uint(b, MAPPING_MEMORY_LIMIT, m->limit);
	pb_uint(b, MAPPING_FILE_OFFSET, m->offset);
	pb_int(b, MAPPING_FILENAME, str_index(e, m->path));
	pb_int(b, MAPPING_BUILD_ID, str_index(e, m->build_id));
	pb_bool(b, MAPPING_HAS_FUNCTIONS, named);
	pb_bool(b, MAPPING_HAS_FILENAMES, named && e->map_all_files[pm]);
	pb_bool(b, MAPPING_HAS_LINE_NUMBERS, lines);
	/* line numbers come from DWARF, which also gives the inline chains we expand */
	pb_bool(b, MAPPING_HAS_INLINE_FRAMES, lines);
	pb_close(b, at);
}

/*
 * The Go version of each Go program with samples, as a comment "go1.19.8: PATH" (once per path):
 * pprof's Mapping has no field for it (runtime/pprof writes none; go tool pprof -comments
 * prints these). Its Go build ID is the mapping's build_id when it has no GNU one.
 */
static void go_comments(struct enc *e, size_t nm)
{
	char comment[512];

	for (uint32_t pm = 0; pm < nm; pm++) {
		const struct prof_mapping *m = profile__mapping(e->p, pm);
		bool seen = false;

		if (!e->map_ids[pm] || !m->go_version || !*m->go_version)
			continue;
		/* strings are interned: one pointer per path and version */
		for (uint32_t o = 0; o < pm && !seen; o++) {
			const struct prof_mapping *x = profile__mapping(e->p, o);

			seen = e->map_ids[o] && x->path == m->path &&
			       x->go_version == m->go_version;
		}
		if (seen)
			continue;
		snprintf(comment, sizeof(comment), "%s: %s", m->go_version, m->path);
		pb_int(&e->msg, PROFILE_COMMENT, str_index_copy(e, comment));
	}
}

/* A shared library's name, as pprof tells one (its libRx: ".so" at the end or before ".N"/"_N"). */
static bool is_library(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	for (so = strstr(base ? base : path, ".so"); so; so = strstr(so + 1, ".so"))
		if (!so[3] || ((so[3] == '.' || so[3] == '_') && so[4] >= '0' && so[4] <= '9'))
			return true;
	return false;
}

/*
 * What pprof takes for the main executable is the first mapping: file mappings of programs
 * first, then libraries, then what is no file ([vdso], JIT code), the kernel last.
 */
static int mapping_rank(const struct prof_mapping *m)
{
	if (m->kind == PMAP_KERNEL)
		return 3;
	if (m->kind != PMAP_FILE)
		return 2;
	return is_library(m->path) ? 1 : 0;
}

static int cmp_mappings(const void *pa, const void *pb, void *ctx)
{
	const struct profile *p = ctx;
	const struct prof_mapping *a = profile__mapping(p, *(const uint32_t *)pa);
	const struct prof_mapping *b = profile__mapping(p, *(const uint32_t *)pb);
	int ra = mapping_rank(a), rb = mapping_rank(b);

	/* then the lowest pid, the lowest address */
	if (ra != rb)
		return ra < rb ? -1 : 1;
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

/* Takes the bytes of b (the next part of the message) and leaves b empty. 0 or -errno. */
typedef int (*emit_fn)(void *ctx, struct pb *b);

/*
 * The message goes to emit in pieces of about this size: a gzip thread starts on the first
 * while the rest is made, and no part of the message is ever whole in memory (a long
 * system-wide profile's locations, functions and strings are tens of MB).
 */
#define SAMPLES_PIECE (256u << 10)

/* b to emit once it holds a piece (or when last). 0 or -errno. */
static int piece(struct pb *b, bool last, emit_fn emit, void *ctx)
{
	if (pb_error(b))
		return pb_error(b);
	return b->len >= SAMPLES_PIECE || (last && b->len) ? emit(ctx, b) : 0;
}

/*
 * The profile message in parts whose concatenation is the message (field order on the wire
 * does not matter to readers): the samples in pieces, e->msg (all but samples and strings),
 * the strings.
 */
static int encode(struct enc *e, emit_fn emit, void *ctx)
{
	struct pb part = PB_INIT;
	size_t ns = profile__n_samples(e->p), nm = profile__n_mappings(e->p), maxf = 1;
	size_t nf = profile__n_frames(e->p);
	const struct prof_sample **order = malloc((ns ? ns : 1) * sizeof(*order));
	int err = -ENOMEM;
	char comment[512];

	if (!order)
		return -ENOMEM;
	if (order_samples(e, order, ns))
		goto out;
	for (size_t i = 0; i < ns; i++)
		if (order[i]->nframes > maxf)
			maxf = order[i]->nframes;
	e->ids = malloc(maxf * sizeof(*e->ids));
	e->loc1 = calloc(2 * (nf ? nf : 1), sizeof(*e->loc1));
	e->inlined = malloc(nf ? nf : 1);
	if (!e->ids || !e->loc1 || !e->inlined)
		goto out;
	for (size_t i = 0; i < nf; i++)
		e->inlined[i] = profile__frame(e->p, (uint32_t)i)->inlined;
	/* string 0 must be "" */
	if (str_index(e, "") != 0)
		goto out;
	value_type(e, PROFILE_SAMPLE_TYPE, "samples", "count");
	/* the default last too, for readers that ignore default_sample_type */
	value_type(e, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	e->key_pid = str_index(e, "pid");
	e->key_tid = e->m->per_thread ? str_index(e, "tid") : 0;
	e->key_comm = str_index(e, "comm");
	e->key_thread = e->m->per_thread ? str_index(e, "thread_name") : 0;
	if (e->key_pid < 0 || e->key_tid < 0 || e->key_comm < 0 || e->key_thread < 0) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		err = encode_sample(e, order[i], &part);
		err = err ?: piece(&part, i + 1 == ns, emit, ctx);
		if (err)
			goto out;
	}
	/* the order of the samples is not needed any more */
	free(order);
	order = NULL;
	err = number_mappings(e);
	for (size_t i = 0; !err && i < e->n_loc; i++) {
		encode_location(e, i + 1, &e->loc_v[i]);
		err = piece(&e->msg, false, emit, ctx);
	}
	/* mappings after locations: their has_* flags summarize the locations */
	for (uint32_t id = 1; !err && id <= e->n_maps_used; id++)
		for (uint32_t pm = 0; pm < nm; pm++)
			if (e->map_ids[pm] == id)
				encode_mapping(e, pm);
	for (size_t i = 0; !err && i < e->n_func; i++) {
		size_t at = pb_open(&e->msg, PROFILE_FUNCTION);

		pb_uint(&e->msg, FUNCTION_ID, i + 1);
		pb_int(&e->msg, FUNCTION_NAME, str_index(e, e->func_v[i].name));
		pb_int(&e->msg, FUNCTION_SYSTEM_NAME, str_index(e, e->func_v[i].system_name));
		pb_int(&e->msg, FUNCTION_FILENAME, str_index(e, e->func_v[i].file));
		if (e->func_v[i].start_line)
			pb_int(&e->msg, FUNCTION_START_LINE, e->func_v[i].start_line);
		pb_close(&e->msg, at);
		err = piece(&e->msg, false, emit, ctx);
	}
	if (err)
		goto out;
	pb_int(&e->msg, PROFILE_TIME_NANOS, (int64_t)e->m->start_unix_ns);
	pb_int(&e->msg, PROFILE_DURATION_NANOS, (int64_t)e->m->duration_ns);
	value_type(e, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	pb_int(&e->msg, PROFILE_PERIOD, (int64_t)e->m->period_ns);
	snprintf(comment, sizeof(comment), "cpuprof %s; %s at %u Hz", e->m->version, e->m->event,
		 e->m->frequency);
	pb_int(&e->msg, PROFILE_COMMENT, str_index_copy(e, comment));
	pb_int(&e->msg, PROFILE_COMMENT, str_index(e, e->m->command_line));
	go_comments(e, nm);
	pb_int(&e->msg, PROFILE_DEFAULT_SAMPLE_TYPE, str_index(e, "cpu"));
	err = pb_error(&e->msg) ? pb_error(&e->msg) : emit(ctx, &e->msg);
	if (err)
		goto out;
	/* strings last: every index is known by now */
	for (size_t i = 0; !err && i < e->n_str; i++) {
		pb_string(&part, PROFILE_STRING_TABLE, e->str_v[i]);
		err = piece(&part, i + 1 == e->n_str, emit, ctx);
	}
out:
	pb_free(&part);
	free(order);
	return err;
}

static void enc_free(struct enc *e)
{
	strset_clear(&e->safe);
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
	free(e->loc1);
	free(e->inlined);
	pb_free(&e->msg);
}

static int emit_append(void *ctx, struct pb *b)
{
	pb_append(ctx, b);
	pb_reset(b);
	return pb_error(ctx);
}

int pprof_encode(const struct profile *p, const struct profile_meta *m, struct pb *out)
{
	struct enc e = {.p = p, .m = m};
	int err;

	pb_reset(out);
	err = encode(&e, emit_append, out);
	enc_free(&e);
	return err;
}

/* The part goes to the gzip thread, its buffer with it. */
static int emit_gzip(void *ctx, struct pb *b)
{
	int err = 0;

	if (b->len)
		err = gzpipe_put(ctx, b->buf, b->len);
	else
		free(b->buf);
	*b = (struct pb)PB_INIT;
	return err;
}

/*
 * gzip at level 1, as Go's runtime/pprof writes its profiles (gzip.BestSpeed): the file is
 * written while the user waits for it after Ctrl-C, by a second thread, from the first piece
 * of samples on.
 */
int pprof_write(const struct profile *p, const struct profile_meta *m, FILE *f)
{
	struct enc e = {.p = p, .m = m};
	struct gzpipe *g;
	int err = gzpipe_open(&g, f, 1), cerr;

	if (err)
		return err;
	err = encode(&e, emit_gzip, g);
	cerr = gzpipe_close(g);
	enc_free(&e);
	return err ? err : cerr;
}
