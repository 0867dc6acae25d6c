// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps text as any process's kernel could not write it. */
#include <stdio.h>
#include "fuzz.h"
#include "proc/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_maps m = {0};
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;

	if (!f)
		return 0;
	if (proc_maps_parse(f, &m) == 0) {
		proc_maps_find(&m, 0x400000);
		proc_maps_find(&m, 0x7fff00000000);
		proc_maps_free(&m);
	}
	fclose(f);
	return 0;
}
