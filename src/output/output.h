/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile's destination, opened when recording starts (which proves it writable before
 * any sampling) and filled at the end.
 * - A regular file, new or existing, is written atomically: into an unnamed file in the same
 *   directory (O_TMPFILE; a hidden temporary name where the file system lacks it), linked and
 *   renamed over the final name at commit. An existing file keeps its mode (and owner, as
 *   root); a new one under sudo belongs to the user who ran sudo. Nothing is left behind on
 *   failure, and with O_TMPFILE not even after SIGKILL.
 * - A symlink is followed only where the kernel would follow it for this process
 *   (fs.protected_symlinks: in a sticky world-writable directory, only a link of ours or of
 *   the directory's owner); the link stays and its target is written.
 * - A FIFO or a character device is written in place, streaming; a FIFO must have a reader
 *   (ENXIO otherwise). "/dev/stdout", "/dev/fd/N" and "/proc/self/fd/N" write to that
 *   descriptor of this process in place, whatever it is. "-" or no name means stdout.
 * - A directory is EISDIR; a block device or socket EINVAL.
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
	FORMAT_SVG,  /* a static flame graph */
	FORMAT_HTML, /* an interactive flame graph */
};

struct out_file;

/* How long -o FIFO waits for the FIFO's reader to open its end before ENXIO. */
#define CP_FIFO_READER_WAIT_MS 1000

/* path NULL or "-": stdout. 0 or a negative errno (EACCES, ENOENT, EISDIR, ENXIO, EROFS...). */
int out_file__open(const char *path, struct out_file **out);

/* The stream to write the profile to. */
FILE *out_file__stream(const struct out_file *o);

/* True for stdout. */
bool out_file__is_stdout(const struct out_file *o);

/* Flush, sync and rename into place (or flush a stream written in place), then free o. 0 or
 * -errno. */
int out_file__commit(struct out_file *o);

/* Remove the temporary file and free o. NULL-safe. */
void out_file__abort(struct out_file *o);

/* FORMAT_PPROF for *.pb.gz / *.pprof, FORMAT_JSON for *.json, FORMAT_SVG for *.svg,
 * FORMAT_HTML for *.html / *.htm, else FORMAT_FOLDED. */
enum output_format format_from_name(const char *path);

#endif
