// SPDX-License-Identifier: GPL-2.0
/*
 * JSON reader: cpuprof's JSON output (docs/json-format.md), read through its "cpuprof" object
 * (locations, frames, per-profile pid/tid/comm/thread and stacks), so that every field the
 * writer keeps comes back; or any speedscope "sampled" file, read from shared.frames and the
 * profiles' samples and weights (first frame = process name, weights as counts).
 *
 * The document is never turned into a tree: a tree of jansson values costs 8 to 10 times the
 * text. A scanner of its own checks the whole text first (what jansson refuses, it refuses:
 * syntax, strings that are not UTF-8, \u0000, lone surrogates, integers past int64, depth);
 * then the big arrays (frames, locations, samples, weights, stacks) are walked in place, one
 * element at a time, and only small values (one frame, one location, a name) are handed to
 * jansson. Memory: the text, 8 bytes per frame and the profile itself.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "input/json_read.h"
#include "util/labelset.h"

/* jansson's JSON_PARSER_MAX_DEPTH: nesting past it is refused as jansson refused it */
#define MAX_NEST 2048
/* objects at most this long are also parsed by jansson once, for its duplicate-key check */
#define SMALL_OBJECT (64u << 10)

struct jr {
	const char *d;
	size_t len;
	struct profile *p;
	struct input_error *err;
	uint32_t *stack;
	size_t cap;
	bool recheck;		       /* the first pass: small objects through jansson too */
	char labels[LABELSET_MAX_LEN]; /* the labels of the sample being read */
};

static int jfail(struct jr *r, size_t pos, const char *what)
{
	int line = 1;

	for (size_t i = 0; i < pos && i < r->len; i++)
		line += r->d[i] == '\n';
	return input_fail(r->err, "json: line %d: %s", line, what);
}

static size_t ws(const struct jr *r, size_t pos)
{
	while (pos < r->len &&
	       (r->d[pos] == ' ' || r->d[pos] == '\t' || r->d[pos] == '\n' || r->d[pos] == '\r'))
		pos++;
	return pos;
}

static int hex4(const struct jr *r, size_t pos, unsigned *v)
{
	*v = 0;
	if (r->len - pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = r->d[pos + i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* One UTF-8 sequence at pos, strict (no overlong forms, surrogates or past U+10FFFF). */
static size_t utf8_len(const struct jr *r, size_t pos)
{
	const unsigned char *s = (const unsigned char *)r->d + pos;
	size_t avail = r->len - pos, n;
	unsigned c = s[0], cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A string at *pos (its opening quote): checked, *pos past its closing quote. */
static int scan_string(struct jr *r, size_t *pos)
{
	size_t i = *pos + 1;

	while (i < r->len) {
		unsigned char c = (unsigned char)r->d[i];
		unsigned u, lo;
		size_t n;

		if (c == '"') {
			*pos = i + 1;
			return 0;
		}
		if (c < 0x20)
			return jfail(r, i, "control character in a string");
		if (c != '\\') {
			n = utf8_len(r, i);
			if (!n)
				return jfail(r, i, "a string is not UTF-8");
			i += n;
			continue;
		}
		if (++i >= r->len)
			break;
		c = (unsigned char)r->d[i];
		if (c != 'u') {
			if (!c || !strchr("\"\\/bfnrt", c))
				return jfail(r, i, "invalid escape");
			i++;
			continue;
		}
		if (hex4(r, i + 1, &u))
			return jfail(r, i, "invalid escape");
		i += 5;
		if (!u)
			return jfail(r, i, "\\u0000 is not allowed");
		if (u >= 0xdc00 && u <= 0xdfff)
			return jfail(r, i, "invalid Unicode (a lone low surrogate)");
		if (u >= 0xd800 && u <= 0xdbff) {
			if (r->len - i < 6 || r->d[i] != '\\' || r->d[i + 1] != 'u' ||
			    hex4(r, i + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
				return jfail(r, i, "invalid Unicode (a lone high surrogate)");
			i += 6;
		}
	}
	return jfail(r, i, "premature end of input");
}

struct num {
	bool is_int;
	json_int_t i;
	double v;
};

/* A number at *pos as jansson reads it: an integer unless it has a fraction or exponent. */
static int scan_number(struct jr *r, size_t *pos, struct num *out)
{
	size_t i = *pos, start = i;
	bool is_int = true;
	char buf[64], *tmp = NULL, *s = buf, *end;
	int ret = 0;

	if (i < r->len && r->d[i] == '-')
		i++;
	if (i < r->len && r->d[i] == '0') {
		i++;
		if (i < r->len && r->d[i] >= '0' && r->d[i] <= '9')
			return jfail(r, i, "invalid token");
	} else if (i < r->len && r->d[i] >= '1' && r->d[i] <= '9') {
		while (i < r->len && r->d[i] >= '0' && r->d[i] <= '9')
			i++;
	} else {
		return jfail(r, i, "invalid token");
	}
	if (i < r->len && r->d[i] == '.') {
		is_int = false;
		if (++i >= r->len || r->d[i] < '0' || r->d[i] > '9')
			return jfail(r, i, "invalid token");
		while (i < r->len && r->d[i] >= '0' && r->d[i] <= '9')
			i++;
	}
	if (i < r->len && (r->d[i] == 'e' || r->d[i] == 'E')) {
		is_int = false;
		i++;
		if (i < r->len && (r->d[i] == '+' || r->d[i] == '-'))
			i++;
		if (i >= r->len || r->d[i] < '0' || r->d[i] > '9')
			return jfail(r, i, "invalid token");
		while (i < r->len && r->d[i] >= '0' && r->d[i] <= '9')
			i++;
	}
	if (i - start >= sizeof(buf)) {
		tmp = malloc(i - start + 1);
		if (!tmp)
			return -ENOMEM;
		s = tmp;
	}
	memcpy(s, r->d + start, i - start);
	s[i - start] = '\0';
	errno = 0;
	if (is_int) {
		long long v = strtoll(s, &end, 10);

		if (errno == ERANGE)
			ret = jfail(r, start,
				    v < 0 ? "too big negative integer" : "too big integer");
		out->is_int = true;
		out->i = (json_int_t)v;
		out->v = (double)v;
	} else {
		double v = strtod(s, &end);

		if (errno == ERANGE && isinf(v))
			ret = jfail(r, start, "real number overflow");
		out->is_int = false;
		out->i = 0;
		out->v = v;
	}
	free(tmp);
	*pos = i;
	return ret;
}

/* Any value at *pos (after white space), checked to the end; *pos past it. */
static int scan_value(struct jr *r, size_t *pos, int depth)
{
	size_t i = ws(r, *pos), start;
	struct num n;
	int ret;

	if (i >= r->len)
		return jfail(r, i, "premature end of input");
	switch (r->d[i]) {
	case '"':
		ret = scan_string(r, &i);
		break;
	case '[':
	case '{': {
		bool obj = r->d[i] == '{';
		char close = obj ? '}' : ']';

		if (depth >= MAX_NEST)
			return jfail(r, i, "maximum parsing depth reached");
		start = i++;
		i = ws(r, i);
		if (i < r->len && r->d[i] == close) {
			i++;
			ret = 0;
			break;
		}
		for (;;) {
			if (obj) {
				i = ws(r, i);
				if (i >= r->len || r->d[i] != '"')
					return jfail(r, i, "string or '}' expected");
				ret = scan_string(r, &i);
				if (ret)
					return ret;
				i = ws(r, i);
				if (i >= r->len || r->d[i] != ':')
					return jfail(r, i, "':' expected");
				i++;
			}
			ret = scan_value(r, &i, depth + 1);
			if (ret)
				return ret;
			i = ws(r, i);
			if (i < r->len && r->d[i] == ',') {
				i++;
				continue;
			}
			if (i < r->len && r->d[i] == close) {
				i++;
				break;
			}
			return jfail(r, i, obj ? "'}' expected" : "']' expected");
		}
		if (obj && r->recheck && i - start <= SMALL_OBJECT) {
			json_error_t jerr;
			json_t *v =
				json_loadb(r->d + start, i - start, JSON_REJECT_DUPLICATES, &jerr);

			if (!v)
				return jfail(
					r, start + (size_t)(jerr.position > 0 ? jerr.position : 0),
					jerr.text);
			json_decref(v);
		}
		ret = 0;
		break;
	}
	case 't':
	case 'f':
	case 'n': {
		const char *lit = r->d[i] == 't' ? "true" : r->d[i] == 'f' ? "false" : "null";
		size_t l = strlen(lit);

		if (r->len - i < l || memcmp(r->d + i, lit, l))
			return jfail(r, i, "invalid token");
		i += l;
		ret = 0;
		break;
	}
	default:
		ret = scan_number(r, &i, &n);
	}
	if (!ret)
		*pos = i;
	return ret;
}

/* Arrays walked in place: *pos at '[' (white space before it skipped) → 0, else 1 not an array. */
static int arr_open(struct jr *r, size_t *pos)
{
	*pos = ws(r, *pos);
	if (*pos >= r->len || r->d[*pos] != '[')
		return 1;
	(*pos)++;
	return 0;
}

/* The next element: 1 with *pos at it, 0 at the end (*pos past ']'). */
static int arr_next(struct jr *r, size_t *pos, bool *first)
{
	*pos = ws(r, *pos);
	if (*pos < r->len && r->d[*pos] == ']') {
		(*pos)++;
		return 0;
	}
	if (!*first && *pos < r->len && r->d[*pos] == ',')
		*pos = ws(r, *pos + 1);
	*first = false;
	return 1;
}

static bool is_array(struct jr *r, size_t pos)
{
	return pos != SIZE_MAX && !arr_open(r, &pos);
}

/* The elements of the array at pos (checked already). */
static int arr_count(struct jr *r, size_t pos, size_t *n)
{
	bool first = true;
	int ret;

	*n = 0;
	if (arr_open(r, &pos))
		return 0;
	while (arr_next(r, &pos, &first)) {
		ret = scan_value(r, &pos, 0);
		if (ret)
			return ret;
		(*n)++;
	}
	return 0;
}

/*
 * The values of keys[] in the object at pos (SIZE_MAX: absent, or no object there); a key
 * twice is refused, as jansson's JSON_REJECT_DUPLICATES did.
 */
static int find_keys(struct jr *r, size_t pos, const char *const *keys, size_t nkeys, size_t *vals)
{
	int ret;

	for (size_t k = 0; k < nkeys; k++)
		vals[k] = SIZE_MAX;
	if (pos == SIZE_MAX)
		return 0;
	pos = ws(r, pos);
	if (pos >= r->len || r->d[pos] != '{')
		return 0;
	pos = ws(r, pos + 1);
	if (pos < r->len && r->d[pos] == '}')
		return 0;
	for (;;) {
		size_t ks = ws(r, pos), ke = ks;

		ret = scan_string(r, &ke);
		if (ret)
			return ret;
		pos = ws(r, ke) + 1; /* past ':' */
		pos = ws(r, pos);
		for (size_t k = 0; k < nkeys; k++) {
			size_t kl = strlen(keys[k]);

			if (ke - ks - 2 != kl || memcmp(r->d + ks + 1, keys[k], kl))
				continue;
			if (vals[k] != SIZE_MAX)
				return jfail(r, ks, "duplicate object key");
			vals[k] = pos;
		}
		ret = scan_value(r, &pos, 0);
		if (ret)
			return ret;
		pos = ws(r, pos);
		if (pos >= r->len || r->d[pos] != ',')
			return 0;
		pos++;
	}
}

/* A small value at pos through jansson (NULL when absent). */
static int load(struct jr *r, size_t pos, json_t **v)
{
	size_t end = pos;
	json_error_t jerr;
	int ret;

	*v = NULL;
	if (pos == SIZE_MAX)
		return 0;
	ret = scan_value(r, &end, 0);
	if (ret)
		return ret;
	*v = json_loadb(r->d + pos, end - pos, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!*v)
		return jfail(r, pos, jerr.text);
	return 0;
}

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

/* A count from the weight at *pos (past it after): weight / div, whole and non-negative. */
static int count_of(struct jr *r, size_t *pos, uint64_t div, uint64_t *count)
{
	struct num n;
	double d;
	int ret;
	char c;

	*pos = ws(r, *pos);
	c = *pos < r->len ? r->d[*pos] : 0;
	if (c != '-' && (c < '0' || c > '9')) {
		ret = scan_value(r, pos, 0);
		return ret ?: input_fail(r->err, "json: a weight is not a number");
	}
	ret = scan_number(r, pos, &n);
	if (ret)
		return ret;
	d = n.v;
	if (!(d >= 0) || d > 1.8e19)
		return input_fail(r->err, "json: a weight is negative or out of range");
	*count = (uint64_t)(d / (double)div + 0.5);
	return 0;
}

/* An integer element at *pos (past it after): 1 when it is one, 0 when it is anything else. */
static int int_elem(struct jr *r, size_t *pos, json_int_t *v)
{
	struct num n = {0};
	char c;
	int ret;

	*pos = ws(r, *pos);
	c = *pos < r->len ? r->d[*pos] : 0;
	if (c == '-' || (c >= '0' && c <= '9'))
		ret = scan_number(r, pos, &n);
	else
		ret = scan_value(r, pos, 0);
	if (ret)
		return ret;
	*v = n.i;
	return n.is_int;
}

/* Where each element of the array at pos starts. */
static int offsets(struct jr *r, size_t pos, uint32_t **offs, size_t *n)
{
	bool first = true;
	size_t k = 0;
	int ret;

	*offs = NULL;
	ret = arr_count(r, pos, n);
	if (ret)
		return ret;
	*offs = malloc((*n + 1) * sizeof(**offs));
	if (!*offs)
		return -ENOMEM;
	if (arr_open(r, &pos))
		return 0;
	while (arr_next(r, &pos, &first) && k < *n) {
		(*offs)[k++] = (uint32_t)pos;
		ret = scan_value(r, &pos, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * cpuprof.profiles[i].labels[k] at *pos (moved past it): null, or an object of string values,
 * into r->labels (util/labelset.h's form).
 */
static int sample_labels(struct jr *r, size_t *pos, size_t i, size_t k)
{
	struct label v[LABELSET_MAX];
	const char *key;
	json_t *o = NULL, *val;
	size_t n = 0;
	int ret;

	r->labels[0] = '\0';
	ret = load(r, *pos, &o) ?: scan_value(r, pos, 0);
	if (!ret && !json_is_null(o) && !json_is_object(o))
		ret = input_fail(r->err, "json: profile %zu: labels %zu are no object", i, k);
	if (!ret && json_is_object(o)) {
		json_object_foreach(o, key, val)
		{
			if (!json_is_string(val) || !*key || n == LABELSET_MAX) {
				ret = input_fail(r->err,
						 "json: profile %zu: labels %zu: a label is no "
						 "string, or more than %d",
						 i, k, LABELSET_MAX);
				break;
			}
			v[n++] = (struct label){key, json_string_value(val)};
		}
		if (!ret && labelset_encode(v, n, r->labels, sizeof(r->labels)))
			ret = input_fail(r->err, "json: profile %zu: labels %zu too long", i, k);
	}
	json_decref(o);
	return ret;
}

/* cpuprof's own file: the "cpuprof" object has the locations behind every stack. */
static int read_cpuprof(struct jr *r, size_t profiles, size_t cp, struct input_info *info)
{
	static const char *const cp_keys[] = {"profiles",  "frames",	 "locations",
					      "period_ns", "per_thread", "duration_ns"};
	static const char *const cpr_keys[] = {"stacks", "pid", "tid", "comm", "thread", "labels"};
	static const char *const pr_keys[] = {"weights"};
	size_t v[6], nprof = 0, ncprof = 0, nframes = 0, nlocs = 0;
	uint32_t *foffs = NULL;
	size_t ppos, cpos, i = 0;
	bool pfirst = true, cfirst = true;
	json_t *period = NULL, *pt = NULL, *dur = NULL;
	uint64_t div = 1;
	uint32_t *loc_ids = NULL;
	int ret;

	ret = find_keys(r, cp, cp_keys, 6, v);
	if (ret)
		return ret;
	if (!is_array(r, profiles) || !is_array(r, v[0]) || !is_array(r, v[1]) ||
	    !is_array(r, v[2]) || arr_count(r, profiles, &nprof) || arr_count(r, v[0], &ncprof) ||
	    nprof != ncprof)
		return input_fail(r->err, "json: the cpuprof object lacks profiles, frames or "
					  "locations, or they do not line up");
	ret = load(r, v[3], &period) ?: load(r, v[4], &pt) ?: load(r, v[5], &dur);
	if (ret)
		goto out;
	if (json_is_integer(period) && json_integer_value(period) > 0) {
		info->period_ns = (uint64_t)json_integer_value(period);
		div = info->period_ns;
	}
	if (json_is_integer(dur) && json_integer_value(dur) > 0)
		info->duration_ns = (uint64_t)json_integer_value(dur);
	info->per_thread = json_is_true(pt);
	ret = offsets(r, v[1], &foffs, &nframes) ?: arr_count(r, v[2], &nlocs);
	if (ret)
		goto out;
	loc_ids = calloc(nlocs + 1, sizeof(*loc_ids));
	if (!loc_ids) {
		ret = -ENOMEM;
		goto out;
	}
	/* the locations, one at a time */
	ppos = v[2];
	arr_open(r, &ppos);
	for (i = 0; !ret && i < nlocs && arr_next(r, &ppos, &pfirst); i++) {
		json_t *l = NULL, *fr = NULL, *line, *col;
		json_int_t fi;
		struct prof_frame f = {0};
		const char *kind, *addr;

		ret = load(r, ppos, &l);
		ret = ret ?: scan_value(r, &ppos, 0);
		fi = json_integer_value(json_object_get(l, "frame"));
		if (!ret && fi >= 0 && (size_t)fi < nframes)
			ret = load(r, foffs[fi], &fr);
		if (!ret &&
		    (!json_is_object(l) || !json_is_object(fr) || !(f.name = jstr(fr, "name"))))
			ret = input_fail(r->err, "json: location %zu names no frame", i);
		if (!ret) {
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
		json_decref(l);
		json_decref(fr);
	}
	/* the profiles: speedscope's weights beside cpuprof's stacks */
	ppos = profiles;
	cpos = v[0];
	arr_open(r, &ppos);
	arr_open(r, &cpos);
	pfirst = cfirst = true;
	for (i = 0; !ret && i < nprof && arr_next(r, &ppos, &pfirst) && arr_next(r, &cpos, &cfirst);
	     i++) {
		size_t pv[1], cv[6], nw = 0, nst = 0, nl = 0, wpos, spos, lpos;
		json_t *pid = NULL, *tid = NULL, *jcomm = NULL, *jthread = NULL;
		const char *comm, *thread;
		bool wfirst = true, sfirst = true, lfirst = true;

		ret = find_keys(r, ppos, pr_keys, 1, pv) ?: find_keys(r, cpos, cpr_keys, 6, cv);
		ret = ret ?: scan_value(r, &ppos, 0) ?: scan_value(r, &cpos, 0);
		ret = ret ?: load(r, cv[1], &pid) ?: load(r, cv[2], &tid) ?: load(r, cv[3], &jcomm);
		ret = ret ?: load(r, cv[4], &jthread);
		comm = json_is_string(jcomm) ? json_string_value(jcomm) : NULL;
		thread = json_is_string(jthread) ? json_string_value(jthread) : NULL;
		if (!ret &&
		    (!is_array(r, pv[0]) || !is_array(r, cv[0]) || arr_count(r, pv[0], &nw) ||
		     arr_count(r, cv[0], &nst) || nw != nst || !comm))
			ret = input_fail(r->err,
					 "json: profile %zu: stacks and weights do not line up", i);
		if (!ret && (json_integer_value(pid) < 0 || json_integer_value(pid) > UINT32_MAX ||
			     json_integer_value(tid) < 0 || json_integer_value(tid) > UINT32_MAX))
			ret = input_fail(r->err, "json: profile %zu: pid or tid out of range", i);
		/* labels: optional, parallel to the stacks */
		if (!ret && cv[5] != SIZE_MAX &&
		    (!is_array(r, cv[5]) || arr_count(r, cv[5], &nl) || nl != nst))
			ret = input_fail(r->err,
					 "json: profile %zu: labels and stacks do not line up", i);
		wpos = pv[0];
		spos = cv[0];
		lpos = cv[5];
		if (!ret) {
			arr_open(r, &wpos);
			arr_open(r, &spos);
			if (lpos != SIZE_MAX)
				arr_open(r, &lpos);
		}
		for (size_t k = 0;
		     !ret && k < nst && arr_next(r, &wpos, &wfirst) && arr_next(r, &spos, &sfirst);
		     k++) {
			uint64_t count = 0;
			size_t n = 0;
			bool dfirst = true;

			ret = count_of(r, &wpos, div, &count);
			if (!ret && arr_open(r, &spos)) {
				ret = input_fail(r->err, "json: profile %zu: stack %zu is no array",
						 i, k);
				break;
			}
			while (!ret && arr_next(r, &spos, &dfirst)) {
				json_int_t li = 0;
				int isint = int_elem(r, &spos, &li);

				if (isint < 0) {
					ret = isint;
					break;
				}
				if (!isint || li < -1 || li >= (json_int_t)nlocs) {
					ret = input_fail(r->err,
							 "json: profile %zu: stack %zu: location "
							 "out of range",
							 i, k);
					break;
				}
				if (li >= 0)
					ret = push(r, n++, loc_ids[li]);
			}
			if (!ret && lpos != SIZE_MAX && arr_next(r, &lpos, &lfirst))
				ret = sample_labels(r, &lpos, i, k);
			else if (!ret)
				r->labels[0] = '\0';
			if (!ret && count)
				ret = input_add_labeled(r->p, (uint32_t)json_integer_value(pid),
							(uint32_t)json_integer_value(tid), comm,
							thread ? thread : "", r->labels, r->stack,
							(uint32_t)n, count, "json", r->err);
		}
		json_decref(pid);
		json_decref(tid);
		json_decref(jcomm);
		json_decref(jthread);
	}
out:
	json_decref(period);
	json_decref(pt);
	json_decref(dur);
	free(foffs);
	free(loc_ids);
	return ret;
}

/* One speedscope frame: its name (comm, d == 0) or its id in the profile (cached in ids). */
static int ss_frame(struct jr *r, size_t off, uint32_t *id, bool comm_only, json_t **keep)
{
	struct prof_frame f = {.named = true};
	json_t *fr = NULL, *line;
	char *name;
	size_t len;
	bool kernel, inlined;
	int ret = load(r, off, &fr);

	if (ret)
		return ret;
	if (!json_is_object(fr) || !jstr(fr, "name")) {
		json_decref(fr);
		return 1;
	}
	if (comm_only) {
		*keep = fr;
		return 0;
	}
	name = strdup(jstr(fr, "name"));
	if (!name) {
		json_decref(fr);
		return -ENOMEM;
	}
	len = strlen(name);
	input_frame_mark(name, &len, &kernel, &inlined);
	name[len] = '\0';
	f.name = name;
	f.file = jstr(fr, "file");
	f.kind = kernel ? FRAME_KERNEL : FRAME_USER;
	f.inlined = inlined;
	line = json_object_get(fr, "line");
	if (json_is_integer(line) && json_integer_value(line) > 0 &&
	    json_integer_value(line) <= UINT32_MAX)
		f.line = (uint32_t)json_integer_value(line);
	ret = profile__intern_frame(r->p, &f, id);
	free(name);
	json_decref(fr);
	return ret;
}

/* Any speedscope file: shared.frames and sampled profiles. */
static int read_speedscope(struct jr *r, size_t shared, size_t profiles)
{
	static const char *const sh_keys[] = {"frames"};
	static const char *const pr_keys[] = {"type", "samples", "weights"};
	size_t frames, nframes = 0, ppos;
	uint32_t *foffs = NULL;
	uint32_t *ids = NULL;
	bool pfirst = true;
	int ret;

	ret = find_keys(r, shared, sh_keys, 1, &frames);
	if (ret)
		return ret;
	if (!is_array(r, frames) || !is_array(r, profiles))
		return input_fail(r->err, "json: neither a cpuprof nor a speedscope file "
					  "(no shared.frames or profiles)");
	ret = offsets(r, frames, &foffs, &nframes);
	if (ret)
		goto out;
	ids = malloc((nframes + 1) * sizeof(*ids));
	if (!ids) {
		ret = -ENOMEM;
		goto out;
	}
	memset(ids, 0xff, (nframes + 1) * sizeof(*ids));
	ppos = profiles;
	arr_open(r, &ppos);
	for (size_t i = 0; !ret && arr_next(r, &ppos, &pfirst); i++) {
		size_t v[3], ns = 0, nw = 0, spos, wpos;
		bool sfirst = true, wfirst = true;
		json_t *type = NULL;

		ret = find_keys(r, ppos, pr_keys, 3, v) ?: scan_value(r, &ppos, 0);
		ret = ret ?: load(r, v[0], &type);
		if (ret || !json_is_string(type) || strcmp(json_string_value(type), "sampled")) {
			json_decref(type);
			continue; /* evented profiles: nothing to aggregate here */
		}
		json_decref(type);
		if (!is_array(r, v[1]) || !is_array(r, v[2]) || arr_count(r, v[1], &ns) ||
		    arr_count(r, v[2], &nw) || ns != nw) {
			ret = input_fail(r->err,
					 "json: profile %zu: samples and weights do not "
					 "line up",
					 i);
			break;
		}
		spos = v[1];
		wpos = v[2];
		arr_open(r, &spos);
		arr_open(r, &wpos);
		for (size_t k = 0;
		     !ret && k < ns && arr_next(r, &spos, &sfirst) && arr_next(r, &wpos, &wfirst);
		     k++) {
			json_t *comm = NULL;
			uint64_t count = 0;
			size_t n = 0;
			bool dfirst = true;

			ret = count_of(r, &wpos, 1, &count);
			if (!ret && arr_open(r, &spos))
				ret = input_fail(r->err,
						 "json: profile %zu: sample %zu is no array", i, k);
			for (size_t d = 0; !ret && arr_next(r, &spos, &dfirst); d++) {
				json_int_t fi = 0;
				int isint = int_elem(r, &spos, &fi), bad;

				if (isint < 0) {
					ret = isint;
					break;
				}
				bad = !isint || fi < 0 || (size_t)fi >= nframes;
				if (!bad && d == 0 && !comm)
					bad = ss_frame(r, foffs[fi], NULL, true, &comm);
				else if (!bad && d > 0) {
					if (ids[fi] == UINT32_MAX)
						bad = ss_frame(r, foffs[fi], &ids[fi], false, NULL);
					if (!bad)
						bad = push(r, n++, ids[fi]);
				}
				if (bad > 0)
					ret = input_fail(r->err,
							 "json: profile %zu: sample %zu: frame "
							 "index out of range",
							 i, k);
				else
					ret = bad;
			}
			if (!ret && count)
				ret = input_add(r->p, 0, 0, comm ? jstr(comm, "name") : "", "",
						r->stack, (uint32_t)n, count, "json", r->err);
			json_decref(comm);
		}
	}
out:
	free(ids);
	free(foffs);
	return ret;
}

int json_read(const char *data, size_t len, struct profile *p, struct input_info *info,
	      struct input_error *err)
{
	static const char *const keys[] = {"shared", "profiles", "cpuprof"};
	struct jr r = {.d = data, .len = len, .p = p, .err = err};
	size_t v[3], end = 0;
	int ret;

	/* never NULL, also for a stack of no frames: profile__add compares it with memcmp */
	r.cap = 64;
	r.stack = malloc(r.cap * sizeof(*r.stack));
	if (!r.stack)
		return -ENOMEM;
	/* frames are found again by their offset in the text, kept in 32 bits */
	if (len >= UINT32_MAX) {
		ret = input_fail(err, "json: larger than 4 GiB");
		goto out;
	}
	/* the whole text checked first, as jansson did */
	end = ws(&r, 0);
	if (end >= len || (data[end] != '{' && data[end] != '[')) {
		ret = jfail(&r, end, "'[' or '{' expected");
		goto out;
	}
	r.recheck = true;
	ret = scan_value(&r, &end, 0);
	r.recheck = false;
	if (ret)
		goto out;
	end = ws(&r, end);
	if (end < len) {
		ret = jfail(&r, end, "end of file expected");
		goto out;
	}
	if (data[ws(&r, 0)] != '{') {
		ret = input_fail(err, "json: the document is not an object");
		goto out;
	}
	ret = find_keys(&r, 0, keys, 3, v);
	if (ret)
		goto out;
	if (v[2] != SIZE_MAX && data[v[2]] == '{')
		ret = read_cpuprof(&r, v[1], v[2], info);
	else
		ret = read_speedscope(&r, v[0], v[1]);
out:
	free(r.stack);
	return ret;
}
