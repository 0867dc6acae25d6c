/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line and column of a character position in a source file: what a runtime that keeps
 * source positions, not lines (V8: a function's start is a position in its script's source),
 * gives BPF to copy, made a line from the file itself. Positions count UTF-16 code units from
 * the file's first byte (V8's strings), the file read as UTF-8. The files are hostile: the
 * path is the target's (any process names any script: vm.runInThisContext's filename), so it
 * is opened inside the process's root directory without following any symbolic link
 * (util/safe_file safe_openat: regular files, at most SRC_POS_MAX_FILE bytes and
 * SRC_POS_MAX_LINES lines), and read only when the process's user could read it (owner and
 * readable by the owner, or readable by all; a process of root reads any): root's recording
 * tells nobody the lines of a file they may not read. The line starts of the last few files
 * asked are kept (a profile asks the same few scripts for each function).
 */
#ifndef CPUPROF_SRC_POS_H
#define CPUPROF_SRC_POS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define SRC_POS_MAX_FILE  (64u << 20)
#define SRC_POS_MAX_LINES (4u << 20)

/* Whose file: the directory its paths are in ("/proc/PID/root", or "/"), its effective user
 * (-1: unknown, then only files readable by all are read). */
struct src_pos_who {
	const char *root;
	int64_t euid;
};

/*
 * *line (from 1) and *col (from 1) of position pos of the file at path (absolute, in
 * who->root) of the process who. 0, or -ENOENT (not a file: "node:internal/..."), -ERANGE (pos
 * past its end), -EACCES (who's user may not read it), -EFBIG (too big, too many lines),
 * -errno of the open (-ELOOP: a symbolic link on the way, -EINVAL: not a regular file).
 */
int src_pos_line(const struct src_pos_who *who, const char *path, uint32_t pos, int *line,
		 int *col);

/* Whether the user euid (-1: unknown) may read a file of status st, by its mode alone. */
bool src_pos_readable(const struct stat *st, int64_t euid);

/* The line starts (UTF-16 positions) of text (len bytes, UTF-8) into starts (max): their
 * number (the first is 0), at most max. Tests use it on strings. */
size_t src_pos_starts(const unsigned char *text, size_t len, uint32_t *starts, size_t max);

/* Forget the files kept. */
void src_pos_reset(void);

#endif
