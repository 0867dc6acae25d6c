// SPDX-License-Identifier: GPL-2.0
/* .eh_frame/.debug_frame to rows: any ELF image; the rows must come out strictly ascending. */
#include <stdlib.h>
#include "fuzz.h"
#include "unwind/unwind_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table *ut = unwind_table__from_mem(data, size);
	const struct cp_unwind_row *r;
	size_t n;

	if (!ut)
		return 0;
	r = unwind_table__rows(ut, &n);
	for (size_t i = 1; i < n; i++)
		if (r[i].pc <= r[i - 1].pc)
			abort(); /* the BPF binary search would pick wrong rows */
	unwind_table__free(ut);
	return 0;
}
