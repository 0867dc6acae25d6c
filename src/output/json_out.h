/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output: a speedscope file (https://www.speedscope.app/file-format-schema.json) that opens
 * in speedscope as it is, plus one top-level "cpuprof" object with what speedscope has no place
 * for. docs/json-format.md describes every field, docs/cpuprof-json.schema.json is its schema.
 *
 * - one "sampled" profile per process, or per thread when m->per_thread, ordered by pid (tid);
 * - every stack starts with the process name (then "THREAD (tid N)" per thread), as the folded
 *   output does; kernel frames are suffixed "_[k]", inlined ones "_[i]"; unit nanoseconds,
 *   weight = count x period;
 * - shared.frames holds one entry per function (name, kind, inlined, module, file), so
 *   speedscope merges the addresses of a function; cpuprof.locations keeps every sampled
 *   address, its mapping, line and inline flag, and cpuprof.profiles[i].stacks maps each stack
 *   onto them;
 * - addresses are hex strings; names follow util/utf8safe.h (what it refuses becomes U+FFFD);
 * - the same bytes for the same profile, whatever order it was built in;
 * - written as a stream, never built as a tree: memory is a few tables of the profile's size
 *   (a first pass numbers functions, locations and mappings; what can fail for memory fails
 *   there, before the first byte).
 */
#ifndef CPUPROF_JSON_OUT_H
#define CPUPROF_JSON_OUT_H
#include <stdio.h>
#include <jansson.h>
#include "profile/profile.h"

/* Version of the "cpuprof" object's layout; bumped on incompatible changes. */
#define CPUPROF_JSON_FORMAT_VERSION 1

/* Write p to out as one line of JSON. 0, -ENOMEM, or -EIO when a write fails. */
int json_write(const struct profile *p, const struct profile_meta *m, FILE *out);

/*
 * A JSON string of s by the rule for foreign text (util/utf8safe.h: invalid UTF-8, control
 * characters and noncharacters become U+FFFD); NULL gives null. NULL on allocation failure.
 * For every writer of JSON in output/.
 */
json_t *json_out_string(const char *s);

#endif
