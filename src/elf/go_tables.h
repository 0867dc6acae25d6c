/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One read of each Go executable's function table (elf/gopclntab.h) in a recording, shared by
 * its users: the unwinder builds the rows of Go code from it, the goroutine label reader takes
 * the runtime's offsets and the TLS slot of g from it. A file is known by its device and inode
 * (and size and modification time, so that a file rewritten in place is read again); a file
 * without a Go table is remembered too, so that it is not looked at again. A table handed out
 * is held until given back (go_tables__put); one nobody holds goes at a later go_tables__trim,
 * so that memory follows the Go programs running, not every one ever run (go test ./... runs
 * a new one per package). Safe to call from several threads.
 */
#ifndef CPUPROF_GO_TABLES_H
#define CPUPROF_GO_TABLES_H
#include <libelf.h>
#include "elf/elf_file.h"
#include "elf/gopclntab.h"

struct go_tables;

/* NULL on ENOMEM. */
struct go_tables *go_tables__new(void);
void go_tables__free(struct go_tables *t); /* NULL-safe; frees every table handed out */

/*
 * The Go table of the file open on fd (not kept, not closed), read at the first call for that
 * file: 0 and *out (held: give it back with go_tables__put), -ENOENT (no Go table), -ESTALE
 * (the file shrank while it was read), -ENOEXEC, -ENOMEM, -EBADF (fstat failed). What the
 * file is (no table, not ELF, its table) is kept for it; a failed read is not.
 */
int go_tables__get(struct go_tables *t, int fd, const struct gopclntab **out);

/* The same for a caller that has the file on fd open as ef already (not read twice). */
int go_tables__get_elf(struct go_tables *t, int fd, const struct elf_file *ef,
		       const struct gopclntab **out);

/* Give back a table go_tables__get handed out (NULL: nothing). */
void go_tables__put(struct go_tables *t, const struct gopclntab *gt);

/*
 * Free the tables nobody has held during the last 8 calls (a file read again when it runs
 * again). Returns how many went. Called between drains.
 */
size_t go_tables__trim(struct go_tables *t);

/* Files read (Go or not), and Go tables among them. */
void go_tables__counts(struct go_tables *t, size_t *files, size_t *go);

#endif
