/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file on a descriptor opened with libelf over a guarded mapping (util/fmap.h) instead of
 * libelf's own (ELF_C_READ_MMAP): the file's owner may truncate it while cpuprof reads it, and a
 * read past the new end then finds zeros instead of killing cpuprof with SIGBUS. The owner asks
 * elf_file_changed() once it has read what it wanted, and drops it if so (-ESTALE).
 */
#ifndef CPUPROF_ELF_FILE_H
#define CPUPROF_ELF_FILE_H
#include <stdbool.h>
#include <libelf.h>
#include "util/fmap.h"

struct elf_file {
	Elf *elf;	 /* NULL when the file could not be opened */
	struct fmap map; /* empty when libelf reads the file itself (with pread) */
};

/*
 * Open the file on fd (kept by the caller, open as long as ef is; not closed). When it cannot
 * be mapped (an empty file, no address space), libelf reads it with pread: a file that shrinks
 * then makes reads fail, no more. 0, or -ENOEXEC when libelf cannot open it (ef->elf NULL).
 * Whether it is ELF at all is the caller's to check (elf_kind).
 */
int elf_file_open(int fd, struct elf_file *ef);

/* elf_end and unmap; ef empty afterwards. NULL-safe. */
void elf_file_close(struct elf_file *ef);

/* Whether the file shrank under a read since it was opened: what was read may be zeros. */
bool elf_file_changed(const struct elf_file *ef);

#endif
