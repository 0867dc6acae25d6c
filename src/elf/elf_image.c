// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "elf/elf_image.h"

int elf_image_open(const void *image, size_t size, Elf **elf, void **copy)
{
	*elf = NULL;
	*copy = NULL;
	if (!image)
		return -EINVAL;
	if (size < SELFMAG || memcmp(image, ELFMAG, SELFMAG))
		return -ENOEXEC;
	*copy = malloc(size);
	if (!*copy)
		return -ENOMEM;
	memcpy(*copy, image, size);
	/* libelf's version handshake: idempotent, and the only one there is */
	elf_version(EV_CURRENT);
	*elf = elf_memory(*copy, size);
	if (!*elf) {
		free(*copy);
		*copy = NULL;
		return -ENOEXEC;
	}
	return 0;
}
