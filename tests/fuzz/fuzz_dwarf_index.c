// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF index (functions, inlined frames, lines, symbols, debug-file search) on any
 * image, through a memfd; debug files are looked for under an empty directory only.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include "fuzz.h"
#include "symbol/dwarf_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roots[] = {"/nonexistent-cpuprof-fuzz", NULL};
	static const char *const dirs[] = {"/debug", NULL};
	struct debug_paths dp = {roots, dirs, false, NULL, NULL};
	struct di_frame f[16];
	struct dwarf_index *di;
	size_t n;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	di = dwarf_index__open(fd, "/nonexistent-cpuprof-fuzz/obj", &dp);
	if (di) {
		for (uint64_t a = 0; a < 0x4000; a += 0x101)
			dwarf_index__lookup(di, a, f, 16, &n);
		dwarf_index__debug_symbol(di, 0x1000);
		dwarf_index__free(di);
	}
	close(fd);
	return 0;
}
