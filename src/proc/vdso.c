// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO from the auxiliary vector, its size from its own headers (no /proc needed).
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include "proc/vdso.h"

/* The x86-64 vDSO is two pages; a header that claims more than this is not believed. */
#define VDSO_MAX_SIZE (1u << 20)

/* end = max(end, off + len) when [off, off + len) lies within limit; false when it does not. */
static bool extend(uint64_t off, uint64_t len, size_t limit, uint64_t *end)
{
	if (off > limit || len > limit - off)
		return false;
	if (off + len > *end)
		*end = off + len;
	return true;
}

int vdso_elf_size(const void *image, size_t limit, size_t *size)
{
	const uint8_t *p = image;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh;
	uint64_t end = 0, shnum;

	if (!image || limit < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, p, sizeof(eh)); /* the image need not be aligned */
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(ph)) ||
	    (eh.e_shoff && eh.e_shentsize != sizeof(sh)))
		return -ENOEXEC;
	if (!extend(0, eh.e_ehsize, limit, &end) ||
	    !extend(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(ph), limit, &end))
		return -ENOEXEC;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && !extend(ph.p_offset, ph.p_filesz, limit, &end))
			return -ENOEXEC;
	}
	if (eh.e_shoff) {
		shnum = eh.e_shnum;
		if (!shnum) { /* 65280 sections or more: the count is in section 0 */
			if (!extend(eh.e_shoff, sizeof(sh), limit, &end))
				return -ENOEXEC;
			memcpy(&sh, p + eh.e_shoff, sizeof(sh));
			shnum = sh.sh_size;
		}
		if (shnum > limit / sizeof(sh) ||
		    !extend(eh.e_shoff, shnum * sizeof(sh), limit, &end))
			return -ENOEXEC;
		for (uint64_t i = 0; i < shnum; i++) {
			memcpy(&sh, p + eh.e_shoff + i * sizeof(sh), sizeof(sh));
			if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
			    !extend(sh.sh_offset, sh.sh_size, limit, &end))
				return -ENOEXEC;
		}
	}
	*size = end;
	return 0;
}

uint64_t vdso_image_vaddr(const void *image, size_t size)
{
	const uint8_t *p = image;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (!image || size < sizeof(eh))
		return 0;
	memcpy(&eh, p, sizeof(eh));
	if (eh.e_phentsize != sizeof(ph) || eh.e_phoff > size ||
	    (size - eh.e_phoff) / sizeof(ph) < eh.e_phnum)
		return 0;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset == 0)
			return ph.p_vaddr;
	}
	return 0;
}

int vdso_image(const void **image, size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	int err;

	if (!base)
		return -ENOENT;
	/* the mapping's length is not in the auxiliary vector: the headers are trusted, as the
	 * kernel wrote them, up to a plausible size */
	err = vdso_elf_size((const void *)base, VDSO_MAX_SIZE, size);
	if (err)
		return err;
	*image = (const void *)base;
	return 0;
}
