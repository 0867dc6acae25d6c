// SPDX-License-Identifier: GPL-2.0
/*
 * pprof reader: protobuf-c's decoder (generated from src/input/pprof_profile.proto at build
 * time) turns the bytes into messages; this file checks what protobuf cannot (string indices,
 * ids, value counts; the checks of pprof's own CheckValid, formats.md 1.4) and builds the
 * profile: stacks root first, a Location's extra Lines (inlined callees, innermost first) as
 * inlined frames, labels pid, tid, comm and thread_name (cpuprof's and perf_to_profile's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pprof_profile.pb-c.h"
#include "input/pprof_read.h"
#include "util/labelset.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Mapping PbMapping;

struct rd {
	const PbProfile *pb;
	struct profile *p;
	struct input_error *err;
	/* messages sorted by id, for bsearch */
	PbLocation **locs;
	PbFunction **funcs;
	PbMapping **maps;
	/* per location (index in locs): its frames, root first, interned lazily */
	uint32_t **loc_frames;
	uint32_t *loc_nframes;
	const char *default_comm;
	/*
	 * Written by cpuprof (its first comment says so): addresses in objects are the object's
	 * own virtual addresses, and a location is a leaf or a caller (return address - 1), never
	 * both; frames without a name are then labelled as record labels them.
	 */
	bool ours;
};

static int cmp_loc(const void *a, const void *b)
{
	uint64_t x = (*(PbLocation *const *)a)->id, y = (*(PbLocation *const *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_func(const void *a, const void *b)
{
	uint64_t x = (*(PbFunction *const *)a)->id, y = (*(PbFunction *const *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_map(const void *a, const void *b)
{
	uint64_t x = (*(PbMapping *const *)a)->id, y = (*(PbMapping *const *)b)->id;

	return x < y ? -1 : x > y;
}

/* Index i of the string table, or NULL (error set) when out of range. */
static const char *str(struct rd *r, int64_t i, const char *what)
{
	if (i < 0 || (uint64_t)i >= r->pb->n_string_table) {
		input_fail(r->err, "pprof: %s refers to string %lld, past the string table (%zu)",
			   what, (long long)i, r->pb->n_string_table);
		return NULL;
	}
	return r->pb->string_table[i];
}

static size_t find_loc(const struct rd *r, uint64_t id)
{
	size_t lo = 0, hi = r->pb->n_location;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->locs[mid]->id == id)
			return mid;
		if (r->locs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static PbFunction *find_func(const struct rd *r, uint64_t id)
{
	PbFunction key = {.id = id}, *k = &key, **f;

	f = bsearch(&k, r->funcs, r->pb->n_function, sizeof(*r->funcs), cmp_func);
	return f ? *f : NULL;
}

static PbMapping *find_map(const struct rd *r, uint64_t id)
{
	PbMapping key = {.id = id}, *k = &key, **m;

	if (!id)
		return NULL;
	m = bsearch(&k, r->maps, r->pb->n_mapping, sizeof(*r->maps), cmp_map);
	return m ? *m : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Sort the messages by id; ids must be non-zero and distinct. */
static int index_ids(struct rd *r)
{
	const PbProfile *pb = r->pb;
	size_t i;

	r->locs = malloc((pb->n_location + 1) * sizeof(*r->locs));
	r->funcs = malloc((pb->n_function + 1) * sizeof(*r->funcs));
	r->maps = malloc((pb->n_mapping + 1) * sizeof(*r->maps));
	r->loc_frames = calloc(pb->n_location + 1, sizeof(*r->loc_frames));
	r->loc_nframes = calloc(pb->n_location + 1, sizeof(*r->loc_nframes));
	if (!r->locs || !r->funcs || !r->maps || !r->loc_frames || !r->loc_nframes)
		return -ENOMEM;
	if (pb->n_location)
		memcpy(r->locs, pb->location, pb->n_location * sizeof(*r->locs));
	if (pb->n_function)
		memcpy(r->funcs, pb->function, pb->n_function * sizeof(*r->funcs));
	if (pb->n_mapping)
		memcpy(r->maps, pb->mapping, pb->n_mapping * sizeof(*r->maps));
	qsort(r->locs, pb->n_location, sizeof(*r->locs), cmp_loc);
	qsort(r->funcs, pb->n_function, sizeof(*r->funcs), cmp_func);
	qsort(r->maps, pb->n_mapping, sizeof(*r->maps), cmp_map);
	for (i = 0; i < pb->n_location; i++)
		if (!r->locs[i]->id || (i && r->locs[i]->id == r->locs[i - 1]->id))
			return input_fail(r->err, "pprof: location id %llu is %s",
					  (unsigned long long)r->locs[i]->id,
					  r->locs[i]->id ? "used twice" : "reserved");
	for (i = 0; i < pb->n_function; i++)
		if (!r->funcs[i]->id || (i && r->funcs[i]->id == r->funcs[i - 1]->id))
			return input_fail(r->err, "pprof: function id %llu is %s",
					  (unsigned long long)r->funcs[i]->id,
					  r->funcs[i]->id ? "used twice" : "reserved");
	for (i = 0; i < pb->n_mapping; i++)
		if (!r->maps[i]->id || (i && r->maps[i]->id == r->maps[i - 1]->id))
			return input_fail(r->err, "pprof: mapping id %llu is %s",
					  (unsigned long long)r->maps[i]->id,
					  r->maps[i]->id ? "used twice" : "reserved");
	return 0;
}

/* Whether location index li is in the kernel's mapping. */
static bool kernel_loc(struct rd *r, size_t li)
{
	const PbMapping *m = find_map(r, r->locs[li]->mapping_id);
	const char *path = m ? str(r, m->filename, "a mapping's file name") : NULL;

	return path && (!strncmp(path, "[kernel", 7) || !strcmp(path, "[vmlinux]"));
}

/*
 * The frames of location index li, root first (interned on first use); caller: it is not the
 * sample's leaf.
 */
static int loc_frames(struct rd *r, size_t li, bool caller)
{
	const PbLocation *l = r->locs[li];
	const PbMapping *m = find_map(r, l->mapping_id);
	const char *mpath = NULL;
	uint32_t *ids;
	size_t n = l->n_line ? l->n_line : 1;
	bool kernel = false;

	if (r->loc_frames[li])
		return 0;
	if (m) {
		mpath = str(r, m->filename, "a mapping's file name");
		if (!mpath)
			return -EINVAL;
		kernel = !strncmp(mpath, "[kernel", 7) || !strcmp(mpath, "[vmlinux]");
	}
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r->loc_frames[li] = ids;
	r->loc_nframes[li] = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		struct prof_frame f = {
			.addr = l->address,
			.kind = kernel ? FRAME_KERNEL : FRAME_USER,
			.module = mpath && *mpath ? base_name(mpath) : NULL,
		};
		char anon[64];
		int err;

		if (r->ours && !kernel && caller && l->address) {
			/* as record named it: the return address itself (pprof keeps it - 1) */
			f.addr = l->address + 1;
			f.rel = f.addr;
		} else if (r->ours && !kernel) {
			f.rel = l->address;
		} else if (m && l->address >= m->memory_start) {
			f.rel = l->address - m->memory_start + m->file_offset;
		}
		if (l->n_line) {
			/* root first: the last Line is the outer function, the others inlined */
			const Perftools__Profiles__Line *ln = l->line[l->n_line - 1 - k];
			const PbFunction *fn = find_func(r, ln->function_id);

			if (!fn)
				return input_fail(r->err,
						  "pprof: location %llu has a line with function "
						  "%llu, which does not exist",
						  (unsigned long long)l->id,
						  (unsigned long long)ln->function_id);
			f.name = str(r, fn->name, "a function name");
			f.mangled = str(r, fn->system_name, "a function's system name");
			f.file = str(r, fn->filename, "a function's file name");
			if (!f.name || !f.mangled || !f.file)
				return -EINVAL;
			if (!strcmp(f.mangled, f.name))
				f.mangled = NULL;
			if (!*f.file)
				f.file = NULL;
			f.line = ln->line > 0 && ln->line <= UINT32_MAX ? (uint32_t)ln->line : 0;
			f.column = ln->column > 0 && ln->column <= UINT32_MAX ? (uint32_t)ln->column
									      : 0;
			f.named = *f.name != '\0';
			f.inlined = k > 0;
		}
		if (!f.named) {
			if (f.module)
				snprintf(anon, sizeof(anon), "%.32s+0x%llx", f.module,
					 (unsigned long long)f.rel);
			else
				snprintf(anon, sizeof(anon), "[unknown]+0x%llx",
					 (unsigned long long)f.addr);
			f.name = anon;
			f.file = NULL;
		}
		err = profile__intern_frame(r->p, &f, &ids[k]);
		if (err)
			return err;
	}
	return 0;
}

/* Which value of the samples to read: "samples" if there is one, else the default type. */
static int pick_value(struct rd *r, size_t *vi, struct input_info *info)
{
	const PbProfile *pb = r->pb;
	const char *t, *u, *def = NULL;
	size_t i;

	*vi = pb->n_sample_type ? pb->n_sample_type - 1 : 0;
	if (pb->default_sample_type &&
	    !(def = str(r, pb->default_sample_type, "default_sample_type")))
		return -EINVAL;
	for (i = 0; i < pb->n_sample_type; i++) {
		t = str(r, pb->sample_type[i]->type, "a sample type");
		if (!t || !str(r, pb->sample_type[i]->unit, "a sample unit"))
			return -EINVAL;
		if (def && !strcmp(t, def))
			*vi = i;
	}
	for (i = 0; i < pb->n_sample_type; i++)
		if (!strcmp(pb->string_table[pb->sample_type[i]->type], "samples")) {
			*vi = i;
			break;
		}
	if (pb->n_sample_type) {
		t = pb->string_table[pb->sample_type[*vi]->type];
		u = pb->string_table[pb->sample_type[*vi]->unit];
		if (strcmp(t, "samples"))
			snprintf(info->value, sizeof(info->value), "%.30s/%.30s", t, u);
	}
	return 0;
}

static int add_sample(struct rd *r, const Perftools__Profiles__Sample *s, size_t vi,
		      uint32_t **stack, size_t *cap)
{
	const char *comm = r->default_comm, *thread = "";
	struct label labels[LABELSET_MAX];
	size_t n_labels = 0;
	char set[LABELSET_MAX_LEN];
	uint64_t pid = 0, tid = 0;
	size_t n = 0, li, user_leaf = SIZE_MAX;
	int64_t v;
	int err;

	if (s->n_value != r->pb->n_sample_type)
		return input_fail(r->err, "pprof: a sample has %zu values for %zu sample types",
				  s->n_value, r->pb->n_sample_type);
	v = s->value[vi];
	if (v < 0)
		return input_fail(r->err, "pprof: negative sample value %lld (a diff profile?)",
				  (long long)v);
	for (size_t i = 0; i < s->n_label; i++) {
		const char *k = str(r, s->label[i]->key, "a label key"), *sv;

		if (!k || !(sv = str(r, s->label[i]->str, "a label value")))
			return -EINVAL;
		if (!strcmp(k, "pid"))
			pid = (uint64_t)s->label[i]->num;
		else if (!strcmp(k, "tid"))
			tid = (uint64_t)s->label[i]->num;
		else if (!strcmp(k, "comm") && *sv)
			comm = sv;
		else if ((!strcmp(k, "thread_name") || !strcmp(k, "thread_comm")) && *sv)
			thread = sv;
		/* the sample's own string labels (a Go goroutine's); past LABELSET_MAX: left out */
		else if (*k && s->label[i]->str && n_labels < LABELSET_MAX)
			labels[n_labels++] = (struct label){k, sv};
	}
	/* a set too long for the profile keeps none of them */
	if (labelset_encode(labels, n_labels, set, sizeof(set)))
		set[0] = '\0';
	if (!v)
		return 0;
	if (pid > UINT32_MAX || tid > UINT32_MAX)
		return input_fail(r->err, "pprof: label pid or tid out of range");
	/* cpuprof's: the first user location (the sampled pc) is no caller, as the leaf */
	for (size_t i = 0; r->ours && i < s->n_location_id; i++) {
		li = find_loc(r, s->location_id[i]);
		if (li != SIZE_MAX && !kernel_loc(r, li)) {
			user_leaf = i;
			break;
		}
	}
	for (size_t i = s->n_location_id; i-- > 0;) {
		li = find_loc(r, s->location_id[i]);
		if (li == SIZE_MAX)
			return input_fail(r->err,
					  "pprof: a sample refers to location %llu, which does not "
					  "exist",
					  (unsigned long long)s->location_id[i]);
		err = loc_frames(r, li, i > 0 && i != user_leaf);
		if (err)
			return err;
		if (n + r->loc_nframes[li] > INPUT_MAX_DEPTH)
			return input_fail(r->err, "pprof: a stack deeper than %d frames",
					  INPUT_MAX_DEPTH);
		if (n + r->loc_nframes[li] > *cap) {
			size_t ncap = (n + r->loc_nframes[li]) * 2;
			uint32_t *ns = realloc(*stack, ncap * sizeof(**stack));

			if (!ns)
				return -ENOMEM;
			*stack = ns;
			*cap = ncap;
		}
		memcpy(*stack + n, r->loc_frames[li], r->loc_nframes[li] * sizeof(**stack));
		n += r->loc_nframes[li];
	}
	return input_add_labeled(r->p, (uint32_t)pid, (uint32_t)tid, comm, thread, set, *stack,
				 (uint32_t)n, (uint64_t)v, "pprof", r->err);
}

/* A varint at *p (before end): 0, or -EINVAL when cut or longer than 10 bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (*p == end)
			return -EINVAL;
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return 0;
	}
	return -EINVAL;
}

/* Profile.sample's field number (profile.proto). */
#define PB_SAMPLE 2
#define PB_CHUNK  (64u << 10)
/* what a damaged message gives below (the source's own errors are -EINVAL with err set) */
#define PB_DAMAGED (-EBADMSG)

/*
 * The message read through src, a window at a time: never more than the largest field (and a
 * chunk) is held, so the file is not kept whole beside what is made of it.
 */
struct pbr {
	const struct pprof_src *src;
	uint8_t *buf;
	size_t cap, start, end; /* bytes [start, end) of buf are held */
	bool eof;
};

/* At least need bytes held (fewer only at the end of the message). */
static int pbr_fill(struct pbr *b, size_t need)
{
	while (b->end - b->start < need && !b->eof) {
		long r;

		if (b->start) {
			memmove(b->buf, b->buf + b->start, b->end - b->start);
			b->end -= b->start;
			b->start = 0;
		}
		if (b->cap - b->end < PB_CHUNK) {
			size_t ncap = b->cap ? b->cap * 2 : 2 * PB_CHUNK;
			uint8_t *nb = realloc(b->buf, ncap);

			if (!nb)
				return -ENOMEM;
			b->buf = nb;
			b->cap = ncap;
		}
		r = b->src->read(b->src->ctx, b->buf + b->end, b->cap - b->end);
		if (r < 0)
			return (int)r;
		if (!r)
			b->eof = true;
		b->end += (size_t)r;
	}
	return 0;
}

/* Past n bytes (PB_DAMAGED when the message ends first). */
static int pbr_skip(struct pbr *b, uint64_t n)
{
	while (n) {
		size_t k;
		int ret;

		if (b->start == b->end) {
			ret = pbr_fill(b, 1);
			if (ret)
				return ret;
			if (b->start == b->end)
				return PB_DAMAGED;
		}
		k = b->end - b->start < n ? b->end - b->start : (size_t)n;
		b->start += k;
		n -= k;
	}
	return 0;
}

/*
 * The next top-level field of a Profile message: its number, its header's length (key, and
 * a varint's value or a payload's length) and its payload's; nothing consumed. 0, 1 at the
 * end, PB_DAMAGED, or the source's error.
 */
static int pbr_field(struct pbr *b, uint64_t *num, bool *delimited, size_t *hdr, uint64_t *payload)
{
	const uint8_t *p, *end;
	uint64_t key, v;
	int ret = pbr_fill(b, 20);

	if (ret)
		return ret;
	if (b->start == b->end)
		return 1;
	p = b->buf + b->start;
	end = b->buf + b->end;
	if (varint(&p, end, &key))
		return PB_DAMAGED;
	*num = key >> 3;
	*delimited = (key & 7) == 2;
	switch (key & 7) {
	case 0:
		if (varint(&p, end, &v))
			return PB_DAMAGED;
		*payload = 0;
		break;
	case 1:
	case 5:
		*payload = (key & 7) == 1 ? 8 : 4;
		break;
	case 2:
		if (varint(&p, end, payload) || *payload > INPUT_MAX_INFLATED)
			return PB_DAMAGED;
		break;
	default:
		return PB_DAMAGED; /* groups: not in profile.proto */
	}
	*hdr = (size_t)(p - (b->buf + b->start));
	return 0;
}

/* The whole field (header and payload) held at buf + start. */
static int pbr_hold(struct pbr *b, size_t n)
{
	int ret = pbr_fill(b, n);

	return ret ?: b->end - b->start < n ? PB_DAMAGED : 0;
}

/*
 * The message without its samples, and how many there are: protobuf-c's unpack of the whole
 * message held every sample as a struct with its own arrays (10 times the file); the samples
 * are unpacked one at a time instead, in a second pass (add_samples).
 */
static int split_samples(struct pbr *b, uint8_t **rest, size_t *rest_len, size_t *n_samples)
{
	size_t cap = 0, hdr, n;
	uint64_t num, payload;
	bool delim;
	int ret;

	*rest = NULL;
	*rest_len = 0;
	*n_samples = 0;
	while ((ret = pbr_field(b, &num, &delim, &hdr, &payload)) == 0) {
		n = hdr + (size_t)payload;
		if (num == PB_SAMPLE && delim) {
			(*n_samples)++;
			ret = pbr_skip(b, n);
			if (ret)
				return ret;
			continue;
		}
		ret = pbr_hold(b, n);
		if (ret)
			return ret;
		if (cap - *rest_len < n) {
			size_t ncap = cap ? cap : 4096;
			uint8_t *nr;

			while (ncap - *rest_len < n)
				ncap *= 2;
			nr = realloc(*rest, ncap);
			if (!nr)
				return -ENOMEM;
			*rest = nr;
			cap = ncap;
		}
		memcpy(*rest + *rest_len, b->buf + b->start, n);
		*rest_len += n;
		b->start += n;
	}
	return ret < 0 ? ret : 0;
}

/* The samples, one unpacked at a time, added to the profile. */
static int add_samples(struct rd *r, struct pbr *b, size_t vi, struct input_info *info,
		       uint32_t **stack, size_t *cap)
{
	size_t hdr, n;
	uint64_t num, payload;
	bool delim;
	int ret;

	while ((ret = pbr_field(b, &num, &delim, &hdr, &payload)) == 0) {
		Perftools__Profiles__Sample *s;

		n = hdr + (size_t)payload;
		if (num != PB_SAMPLE || !delim) {
			ret = pbr_skip(b, n);
			if (ret)
				break;
			continue;
		}
		ret = pbr_hold(b, n);
		if (ret)
			break;
		s = perftools__profiles__sample__unpack(NULL, (size_t)payload,
							b->buf + b->start + hdr);
		b->start += n;
		if (!s)
			return input_fail(r->err, "not a pprof profile: protobuf decoding failed "
						  "(a damaged sample)");
		ret = add_sample(r, s, vi, stack, cap);
		for (size_t k = 0; !ret && k < s->n_label; k++)
			if (s->label[k]->key > 0 &&
			    (uint64_t)s->label[k]->key < r->pb->n_string_table &&
			    !strcmp(r->pb->string_table[s->label[k]->key], "tid"))
				info->per_thread = true;
		perftools__profiles__sample__free_unpacked(s, NULL);
		if (ret)
			return ret;
	}
	/* damaged now, whole in the first pass: the file changed in between */
	if (ret == PB_DAMAGED)
		return input_fail(r->err, "pprof: the file changed while it was read");
	return ret < 0 ? ret : 0;
}

int pprof_read_src(const struct pprof_src *src, struct profile *p, struct input_info *info,
		   struct input_error *err)
{
	struct rd r = {.p = p, .err = err};
	struct pbr b = {.src = src};
	/* never NULL, also for a stack of no frames: profile__add compares it with memcmp */
	size_t cap = 64, vi, rest_len, n_samples;
	uint32_t *stack = malloc(cap * sizeof(*stack));
	uint8_t *rest = NULL;
	PbProfile *pb = NULL;
	int ret;

	if (!stack)
		return -ENOMEM;
	ret = split_samples(&b, &rest, &rest_len, &n_samples);
	if (!ret)
		pb = perftools__profiles__profile__unpack(NULL, rest_len,
							  rest ? rest : (const uint8_t *)"");
	free(rest);
	if (!pb) {
		free(stack);
		free(b.buf);
		if (ret && ret != PB_DAMAGED)
			return ret;
		return input_fail(err, "not a pprof profile: protobuf decoding failed "
				       "(truncated or not a profile)");
	}
	r.pb = pb;
	if (!pb->n_string_table || pb->string_table[0][0]) {
		ret = input_fail(err, "pprof: the string table %s",
				 pb->n_string_table ? "does not start with \"\"" : "is missing");
		goto out;
	}
	if (n_samples && !pb->n_sample_type) {
		ret = input_fail(err, "pprof: samples without sample_type");
		goto out;
	}
	if (pb->n_comment && pb->comment[0] > 0 && (size_t)pb->comment[0] < pb->n_string_table)
		r.ours = !strncmp(pb->string_table[pb->comment[0]], "cpuprof ", 8);
	ret = index_ids(&r);
	ret = ret ?: pick_value(&r, &vi, info);
	if (ret)
		goto out;
	if (pb->period_type && pb->period > 0) {
		const char *u = str(&r, pb->period_type->unit, "the period unit");

		if (!u || !str(&r, pb->period_type->type, "the period type")) {
			ret = -EINVAL;
			goto out;
		}
		if (!strcmp(u, "nanoseconds"))
			info->period_ns = (uint64_t)pb->period;
	}
	if (pb->duration_nanos > 0)
		info->duration_ns = (uint64_t)pb->duration_nanos;
	/* a profile without comm labels (Go's): the main executable's name */
	r.default_comm = "";
	if (pb->n_mapping) {
		const char *m0 = str(&r, pb->mapping[0]->filename, "a mapping's file name");

		if (!m0) {
			ret = -EINVAL;
			goto out;
		}
		r.default_comm = base_name(m0);
	}
	/* the second pass: the samples, checked against the message as the first pass saw it */
	b.start = b.end = 0;
	b.eof = false;
	ret = src->rewind(src->ctx);
	ret = ret ?: add_samples(&r, &b, vi, info, &stack, &cap);
out:
	if (r.loc_frames)
		for (size_t i = 0; i < pb->n_location; i++)
			free(r.loc_frames[i]);
	free(r.loc_frames);
	free(r.loc_nframes);
	free(r.locs);
	free(r.funcs);
	free(r.maps);
	free(stack);
	free(b.buf);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	return ret;
}

/* A message in memory, as a source. */
struct mem_src {
	const uint8_t *data;
	size_t len, pos;
};

static long mem_read(void *ctx, void *buf, size_t n)
{
	struct mem_src *m = ctx;

	if (n > m->len - m->pos)
		n = m->len - m->pos;
	memcpy(buf, m->data + m->pos, n);
	m->pos += n;
	return (long)n;
}

static int mem_rewind(void *ctx)
{
	((struct mem_src *)ctx)->pos = 0;
	return 0;
}

int pprof_read(const void *data, size_t len, struct profile *p, struct input_info *info,
	       struct input_error *err)
{
	struct mem_src m = {.data = data, .len = len};
	struct pprof_src src = {.read = mem_read, .rewind = mem_rewind, .ctx = &m};

	return pprof_read_src(&src, p, info, err);
}
