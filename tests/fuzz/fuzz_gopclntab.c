// SPDX-License-Identifier: GPL-2.0
/*
 * Go's function table reader: an ELF image (the seeds: stripped Go programs) through
 * gopclntab__from_elf, anything else as the table itself; then lookups, frames and pcsp rows
 * over its functions.
 */
#include <stdlib.h>
#include <string.h>
#include <libelf.h>
#include "elf/gopclntab.h"
#include "fuzz.h"

static int count_row(void *ctx, uint64_t start, uint64_t end, int32_t delta)
{
	(void)start;
	(void)end;
	(void)delta;
	++*(size_t *)ctx;
	return 0;
}

static void exercise(const struct gopclntab *gt)
{
	size_t n = gopclntab__count(gt), rows = 0, k;
	struct go_runtime_offsets off;
	struct go_frame fr[8];
	struct go_func f;
	int32_t d;

	/* at most 4096 functions: each gets a lookup at its entry and past it */
	for (size_t i = 0; i < n && i < 4096; i++) {
		if (!gopclntab__func_at(gt, i, &f))
			continue;
		gopclntab__frames(gt, f.entry, fr, 8, &k);
		gopclntab__frames(gt, f.entry + (f.end - f.entry) / 2, fr, 8, &k);
		gopclntab__sp_delta(gt, f.entry + 1, &d);
		gopclntab__sp_rows(gt, i, 64, count_row, &rows);
		gopclntab__func(gt, f.end - 1, &f);
	}
	gopclntab__runtime_offsets(gt, &off);
	gopclntab__build_id(gt);
	gopclntab__go_version(gt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab *gt;

	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		char *copy = malloc(size);
		Elf *elf;

		if (!copy)
			return 0;
		memcpy(copy, data, size);
		elf_version(EV_CURRENT);
		elf = elf_memory(copy, size);
		gt = gopclntab__from_elf(elf);
		if (gt)
			exercise(gt);
		gopclntab__free(gt);
		elf_end(elf);
		free(copy);
		return 0;
	}
	gt = gopclntab__new(data, size, 0x401000);
	if (gt)
		exercise(gt);
	gopclntab__free(gt);
	return 0;
}
