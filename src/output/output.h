/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile's destination. A file is written atomically: a temporary file is created in the
 * same directory when recording starts (which also proves the output is writable before any
 * sampling), filled at the end, then renamed over the final name. Nothing is left behind on
 * failure. "-" or no name means stdout.
 */
#ifndef CPUPROF_OUTPUT_H
#define CPUPROF_OUTPUT_H
#include <stdbool.h>
#include <stdio.h>

/* The format of a profile file (--format, or inferred from the output name). */
enum output_format {
	FORMAT_AUTO = 0, /* from the output file name */
	FORMAT_FOLDED,
	FORMAT_PPROF,
	FORMAT_JSON,
};

struct out_file;

/* path NULL or "-": stdout. 0 or a negative errno (EACCES, ENOENT, EISDIR, EROFS...). */
int out_file__open(const char *path, struct out_file **out);

/* The stream to write the profile to. */
FILE *out_file__stream(const struct out_file *o);

/* True for stdout. */
bool out_file__is_stdout(const struct out_file *o);

/* Flush, sync and rename into place (or just flush stdout), then free o. 0 or -errno. */
int out_file__commit(struct out_file *o);

/* Remove the temporary file and free o. NULL-safe. */
void out_file__abort(struct out_file *o);

/* FORMAT_PPROF for *.pb.gz / *.pprof, FORMAT_JSON for *.json, else FORMAT_FOLDED. */
enum output_format format_from_name(const char *path);

#endif
