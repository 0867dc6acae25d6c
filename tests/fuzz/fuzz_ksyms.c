// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms text, and lookups in what was read. */
#include <stdio.h>
#include "fuzz.h"
#include "symbol/ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	struct ksyms *ks;
	uint64_t off;

	if (!f)
		return 0;
	ks = ksyms__load(f);
	if (ks) {
		ksyms__lookup(ks, 0xffffffff81000000ull, NULL, &off);
		ksyms__lookup(ks, 0xffffffffc0000000ull, NULL, &off);
		ksyms__lookup(ks, 0, NULL, &off);
		ksyms__free(ks);
	}
	fclose(f);
	return 0;
}
