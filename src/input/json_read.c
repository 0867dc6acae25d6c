// SPDX-License-Identifier: GPL-2.0
/*
 * JSON reader: cpuprof's JSON output (docs/json-format.md), read through its "cpuprof" object
 * (locations, frames, per-profile pid/tid/comm/thread and stacks), so that every field the
 * writer keeps comes back; or any speedscope "sampled" file, read from shared.frames and the
 * profiles' samples and weights (first frame = process name, weights as counts).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "input/json_read.h"

struct jr {
	struct profile *p;
	struct input_error *err;
	uint32_t *stack;
	size_t cap;
};

static int push(struct jr *r, size_t n, uint32_t id)
{
	if (n >= INPUT_MAX_DEPTH)
		return input_fail(r->err, "json: a stack deeper than %d frames", INPUT_MAX_DEPTH);
	if (n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		uint32_t *ns = realloc(r->stack, ncap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		r->stack = ns;
		r->cap = ncap;
	}
	r->stack[n] = id;
	return 0;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A count from a weight: weight / div, which must be a whole, non-negative number. */
static int count_of(struct jr *r, json_t *w, uint64_t div, uint64_t *count)
{
	double d;

	if (!json_is_number(w))
		return input_fail(r->err, "json: a weight is not a number");
	d = json_number_value(w);
	if (!(d >= 0) || d > 1.8e19)
		return input_fail(r->err, "json: a weight is negative or out of range");
	*count = (uint64_t)(d / (double)div + 0.5);
	return 0;
}

/* cpuprof's own file: the "cpuprof" object has the locations behind every stack. */
static int read_cpuprof(struct jr *r, json_t *root, json_t *cp, struct input_info *info)
{
	json_t *profiles = json_object_get(root, "profiles"),
	       *cprofs = json_object_get(cp, "profiles");
	json_t *frames = json_object_get(cp, "frames"), *locs = json_object_get(cp, "locations");
	json_t *period = json_object_get(cp, "period_ns");
	uint64_t div = 1;
	uint32_t *loc_ids = NULL;
	size_t nlocs, i;
	int ret = 0;

	if (!json_is_array(profiles) || !json_is_array(cprofs) || !json_is_array(frames) ||
	    !json_is_array(locs) || json_array_size(profiles) != json_array_size(cprofs))
		return input_fail(r->err, "json: the cpuprof object lacks profiles, frames or "
					  "locations, or they do not line up");
	if (json_is_integer(period) && json_integer_value(period) > 0) {
		info->period_ns = (uint64_t)json_integer_value(period);
		div = info->period_ns;
	}
	if (json_is_integer(json_object_get(cp, "duration_ns")) &&
	    json_integer_value(json_object_get(cp, "duration_ns")) > 0)
		info->duration_ns =
			(uint64_t)json_integer_value(json_object_get(cp, "duration_ns"));
	info->per_thread = json_is_true(json_object_get(cp, "per_thread"));
	nlocs = json_array_size(locs);
	loc_ids = calloc(nlocs + 1, sizeof(*loc_ids));
	if (!loc_ids)
		return -ENOMEM;
	for (i = 0; i < nlocs && !ret; i++) {
		json_t *l = json_array_get(locs, i), *fr, *line, *col;
		json_int_t fi = json_integer_value(json_object_get(l, "frame"));
		struct prof_frame f = {0};
		const char *kind, *addr;

		fr = json_array_get(frames, fi >= 0 ? (size_t)fi : SIZE_MAX);
		if (!json_is_object(l) || !json_is_object(fr) || !(f.name = jstr(fr, "name"))) {
			ret = input_fail(r->err, "json: location %zu names no frame", i);
			break;
		}
		kind = jstr(fr, "kind");
		f.kind = kind && !strcmp(kind, "kernel")   ? FRAME_KERNEL
			 : kind && !strcmp(kind, "pseudo") ? FRAME_PSEUDO
							   : FRAME_USER;
		f.module = jstr(fr, "module");
		f.file = jstr(fr, "file");
		f.mangled = jstr(fr, "mangled");
		f.inlined = json_is_true(json_object_get(l, "inlined"));
		f.named = json_is_true(json_object_get(l, "named"));
		addr = jstr(l, "address");
		if (addr)
			f.addr = strtoull(addr, NULL, 16);
		addr = jstr(l, "object_address");
		if (addr)
			f.rel = strtoull(addr, NULL, 16);
		line = json_object_get(l, "line");
		col = json_object_get(l, "column");
		if (json_is_integer(line) && json_integer_value(line) > 0 &&
		    json_integer_value(line) <= UINT32_MAX)
			f.line = (uint32_t)json_integer_value(line);
		if (json_is_integer(col) && json_integer_value(col) > 0 &&
		    json_integer_value(col) <= UINT32_MAX)
			f.column = (uint32_t)json_integer_value(col);
		ret = profile__intern_frame(r->p, &f, &loc_ids[i]);
	}
	for (i = 0; i < json_array_size(profiles) && !ret; i++) {
		json_t *pr = json_array_get(profiles, i), *cpr = json_array_get(cprofs, i);
		json_t *weights = json_object_get(pr, "weights"),
		       *stacks = json_object_get(cpr, "stacks");
		json_t *pid = json_object_get(cpr, "pid"), *tid = json_object_get(cpr, "tid");
		const char *comm = jstr(cpr, "comm"), *thread = jstr(cpr, "thread");

		if (!json_is_array(weights) || !json_is_array(stacks) ||
		    json_array_size(weights) != json_array_size(stacks) || !comm) {
			ret = input_fail(r->err,
					 "json: profile %zu: stacks and weights do not line up", i);
			break;
		}
		if (json_integer_value(pid) < 0 || json_integer_value(pid) > UINT32_MAX ||
		    json_integer_value(tid) < 0 || json_integer_value(tid) > UINT32_MAX) {
			ret = input_fail(r->err, "json: profile %zu: pid or tid out of range", i);
			break;
		}
		for (size_t k = 0; k < json_array_size(stacks) && !ret; k++) {
			json_t *st = json_array_get(stacks, k);
			uint64_t count = 0;
			size_t n = 0;

			if (!json_is_array(st)) {
				ret = input_fail(r->err, "json: profile %zu: stack %zu is no array",
						 i, k);
				break;
			}
			ret = count_of(r, json_array_get(weights, k), div, &count);
			for (size_t d = 0; d < json_array_size(st) && !ret; d++) {
				json_t *e = json_array_get(st, d);
				json_int_t li = json_integer_value(e);

				if (!json_is_integer(e) || li < -1 || li >= (json_int_t)nlocs) {
					ret = input_fail(r->err,
							 "json: profile %zu: stack %zu: location "
							 "out of range",
							 i, k);
					break;
				}
				if (li >= 0)
					ret = push(r, n++, loc_ids[li]);
			}
			if (!ret && count)
				ret = input_add(r->p, (uint32_t)json_integer_value(pid),
						(uint32_t)json_integer_value(tid), comm,
						thread ? thread : "", r->stack, (uint32_t)n, count,
						"json", r->err);
		}
	}
	free(loc_ids);
	return ret;
}

/* Any speedscope file: shared.frames and sampled profiles. */
static int read_speedscope(struct jr *r, json_t *root)
{
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");
	json_t *profiles = json_object_get(root, "profiles");
	int ret = 0;

	if (!json_is_array(frames) || !json_is_array(profiles))
		return input_fail(r->err, "json: neither a cpuprof nor a speedscope file "
					  "(no shared.frames or profiles)");
	for (size_t i = 0; i < json_array_size(profiles) && !ret; i++) {
		json_t *pr = json_array_get(profiles, i);
		json_t *samples = json_object_get(pr, "samples"),
		       *weights = json_object_get(pr, "weights");
		const char *type = jstr(pr, "type");

		if (!type || strcmp(type, "sampled"))
			continue; /* evented profiles: nothing to aggregate here */
		if (!json_is_array(samples) || !json_is_array(weights) ||
		    json_array_size(samples) != json_array_size(weights))
			return input_fail(r->err,
					  "json: profile %zu: samples and weights do not "
					  "line up",
					  i);
		for (size_t k = 0; k < json_array_size(samples) && !ret; k++) {
			json_t *st = json_array_get(samples, k);
			const char *comm = "";
			uint64_t count = 0;
			size_t n = 0;

			ret = count_of(r, json_array_get(weights, k), 1, &count);
			if (!ret && !json_is_array(st))
				ret = input_fail(r->err,
						 "json: profile %zu: sample %zu is no array", i, k);
			for (size_t d = 0; !ret && d < json_array_size(st); d++) {
				json_t *e = json_array_get(st, d), *fr;
				json_int_t fi = json_integer_value(e);
				struct prof_frame f = {.named = true};
				char *name;
				size_t len;
				bool kernel, inlined;

				fr = json_array_get(frames, fi >= 0 ? (size_t)fi : SIZE_MAX);
				if (!json_is_integer(e) || !json_is_object(fr) ||
				    !jstr(fr, "name")) {
					ret = input_fail(r->err,
							 "json: profile %zu: sample %zu: frame "
							 "index out of range",
							 i, k);
					break;
				}
				if (d == 0) {
					comm = jstr(fr, "name");
					continue;
				}
				name = strdup(jstr(fr, "name"));
				if (!name)
					return -ENOMEM;
				len = strlen(name);
				input_frame_mark(name, &len, &kernel, &inlined);
				name[len] = '\0';
				f.name = name;
				f.file = jstr(fr, "file");
				f.kind = kernel ? FRAME_KERNEL : FRAME_USER;
				f.inlined = inlined;
				if (json_is_integer(json_object_get(fr, "line")) &&
				    json_integer_value(json_object_get(fr, "line")) > 0 &&
				    json_integer_value(json_object_get(fr, "line")) <= UINT32_MAX)
					f.line = (uint32_t)json_integer_value(
						json_object_get(fr, "line"));
				ret = push(r, n, 0);
				ret = ret ?: profile__intern_frame(r->p, &f, &r->stack[n]);
				n++;
				free(name);
			}
			if (!ret && count)
				ret = input_add(r->p, 0, 0, comm, "", r->stack, (uint32_t)n, count,
						"json", r->err);
		}
	}
	return ret;
}

int json_read_root(json_t *root, struct profile *p, struct input_info *info,
		   struct input_error *err)
{
	struct jr r = {.p = p, .err = err};
	json_t *cp;
	int ret;

	/* never NULL, also for a stack of no frames: profile__add compares it with memcmp */
	r.cap = 64;
	r.stack = malloc(r.cap * sizeof(*r.stack));
	if (!r.stack)
		return -ENOMEM;
	if (!json_is_object(root)) {
		ret = input_fail(err, "json: the document is not an object");
		goto out;
	}
	cp = json_object_get(root, "cpuprof");
	if (json_is_object(cp))
		ret = read_cpuprof(&r, root, cp, info);
	else
		ret = read_speedscope(&r, root);
out:
	free(r.stack);
	return ret;
}

int json_read(const char *data, size_t len, struct profile *p, struct input_info *info,
	      struct input_error *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return input_fail(err, "json: line %d: %s", jerr.line, jerr.text);
	ret = json_read_root(root, p, info, err);
	json_decref(root);
	return ret;
}
