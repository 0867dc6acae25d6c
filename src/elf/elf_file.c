// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "elf/elf_file.h"

int elf_file_open(int fd, struct elf_file *ef)
{
	/* libelf's version handshake: idempotent */
	elf_version(EV_CURRENT);
	ef->elf = NULL;
	if (fmap_open(fd, &ef->map) == 0) {
		ef->elf = elf_memory(ef->map.p, ef->map.size);
		if (!ef->elf)
			fmap_close(&ef->map);
	} else {
		ef->elf = elf_begin(fd, ELF_C_READ, NULL);
	}
	return ef->elf ? 0 : -ENOEXEC;
}

void elf_file_close(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	ef->elf = NULL;
	fmap_close(&ef->map);
}

bool elf_file_changed(const struct elf_file *ef)
{
	return fmap_faulted(&ef->map);
}
