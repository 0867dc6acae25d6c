// SPDX-License-Identifier: GPL-2.0
/* A /tmp/perf-PID.map as any user can write it, and lookups in it. */
#include <stdio.h>
#include "fuzz.h"
#include "symbol/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	struct perfmap *pm;
	uint64_t off;

	if (!f)
		return 0;
	pm = perfmap__load(f, 1 << 20);
	if (pm) {
		for (uint64_t a = 0; a < 0x100000; a += 0x3331)
			perfmap__lookup(pm, a, &off);
		perfmap__lookup(pm, UINT64_MAX, &off);
		perfmap__free(pm);
	}
	fclose(f);
	return 0;
}
