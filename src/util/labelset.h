/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sample's labels (a Go goroutine's pprof labels) as one string, the form every part of
 * cpuprof keeps and compares them in: "key=value" pairs sorted by key (then value), joined by
 * ','. In keys and values the bytes '%', ',', '=', ';' and the control bytes are written as
 * %XX (two upper-case hex digits), so the string holds neither a separator of its own nor one
 * of the folded format. "" is the empty set. Also the trace and span IDs of the trace_id and
 * span_id labels as bytes, from their hex (W3C trace context IDs) or traceparent forms.
 */
#ifndef CPUPROF_LABELSET_H
#define CPUPROF_LABELSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct label {
	const char *key, *val;
};

/* Labels at most in one set, and bytes of a set's string at most (with its NUL). */
#define LABELSET_MAX	 64
#define LABELSET_MAX_LEN 4096

/*
 * The set of the n labels v (reordered: sorted) into out[size]: 0, -EINVAL (n too big, an
 * empty key) or -ENOSPC (does not fit: out is "").
 */
int labelset_encode(struct label *v, size_t n, char *out, size_t size);

/*
 * The next label of a set: *pos starts at the set's string; the key and value decoded into
 * key[ksize] and val[vsize] (cut to fit). true, or false at the end.
 */
bool labelset_next(const char **pos, char *key, size_t ksize, char *val, size_t vsize);

/*
 * A set as written by hand or by another tool (any order, escapes as above) in the form
 * above into out[size]: 0, -EINVAL (more than LABELSET_MAX labels, an empty key) or -ENOSPC.
 */
int labelset_canon(const char *in, char *out, size_t size);

/* The value of key in set into val[vsize]: true, or false when the set has no such key. */
bool labelset_get(const char *set, const char *key, char *val, size_t vsize);

/*
 * A trace ID (16 bytes) or span ID (8 bytes) from a label value: n * 2 hex digits (either
 * case), or a W3C traceparent "VV-TRACEID-SPANID-FF" (the trace or the span ID part: n 16 or
 * 8). All zeros is no ID. 0 or -EINVAL.
 */
int labelset_id(const char *val, uint8_t *out, size_t n);

#endif
