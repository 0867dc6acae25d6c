// SPDX-License-Identifier: GPL-2.0
/*
 * What an object says about its debug file: its build-id, its .gnu_debuglink (name and CRC,
 * searched under an empty directory only), its MiniDebugInfo (xz, capped), its compressed
 * sections.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"
#include "symbol/debug_find.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roots[] = {"/nonexistent-cpuprof-fuzz", NULL};
	static const char *const dirs[] = {"/debug", NULL};
	struct debug_paths dp = {roots, dirs, false, NULL, NULL};
	const uint8_t *id;
	char found[256];
	void *image = NULL;
	size_t len;
	char *copy = malloc(size ? size : 1);
	Elf *elf;
	int fd;

	/* libelf may write its image (decompressing a section): give it a copy */
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf) {
		free(copy);
		return 0;
	}
	debug_build_id(elf, &id, &len);
	fd = debug_find_file(elf, "/nonexistent-cpuprof-fuzz/obj", &dp, found, sizeof(found));
	if (fd >= 0)
		close(fd);
	if (debug_minidebuginfo(elf, &image, &len) == 0)
		free(image);
	debug_has_zstd_sections(elf);
	debug_has_dwarf(elf);
	elf_end(elf);
	free(copy);
	return 0;
}
