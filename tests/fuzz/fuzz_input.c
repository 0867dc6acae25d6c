// SPDX-License-Identifier: GPL-2.0
/*
 * The profile readers of cpuprof report/diff on any bytes: gzip, pprof (protobuf-c), folded,
 * JSON. A refusal must come with a message; an accepted profile must be whole.
 */
#include <stdlib.h>
#include "fuzz.h"
#include "input/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_error err;
	struct input_info info;
	struct profile *p;
	int rc = input_read_mem(data, size, &p, &info, &err);

	if (rc) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < profile__n_samples(p); i++) {
		const struct prof_sample *s = profile__sample(p, i);

		for (uint32_t k = 0; k < s->nframes; k++)
			if (!profile__frame(p, s->frames[k])->name)
				abort();
	}
	profile__total(p);
	profile__free(p);
	return 0;
}
