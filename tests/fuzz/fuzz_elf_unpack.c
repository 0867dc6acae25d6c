// SPDX-License-Identifier: GPL-2.0
/*
 * elf_unpack on any image: the headers read within bounds, the streams inflated to their
 * stated size or refused; a file made is mapped and opened with libelf, its headers walked.
 * The files go to the working directory (on disk in a build tree; elsewhere only the
 * reading is fuzzed).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "fuzz.h"
#include "elf/elf_unpack.h"

static bool drop(const char *name)
{
	return !strcmp(name, ".debug_loclists");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stat st;
	Elf_Scn *scn = NULL;
	Elf *elf;
	void *p;
	int fd = elf_unpack(data, size, ".", 64u << 20, drop);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_memory(p, (size_t)st.st_size);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    sh.sh_type != SHT_NOBITS)
			elf_getdata(scn, NULL);
	}
	elf_end(elf);
	munmap(p, (size_t)st.st_size);
	return 0;
}
