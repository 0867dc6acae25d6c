// SPDX-License-Identifier: GPL-2.0
/*
 * The profile readers of cpuprof report/diff on any bytes: gzip, pprof (protobuf-c), folded,
 * JSON. A refusal must come with a message; an accepted profile must be whole, and a sample's
 * labels in their set's form (util/labelset.h): no separator of the folded format, no control
 * byte, at most LABELSET_MAX labels, each with a key.
 */
#include <stdlib.h>
#include "fuzz.h"
#include <string.h>
#include "input/input.h"
#include "util/labelset.h"

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

		const char *pos = s->labels;
		char key[LABELSET_MAX_LEN], val[LABELSET_MAX_LEN];
		size_t n = 0;

		for (const char *c = s->labels; *c; c++)
			if (*c == ';' || (unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
		while (labelset_next(&pos, key, sizeof(key), val, sizeof(val)))
			if (++n > LABELSET_MAX || !key[0])
				abort();
		for (uint32_t k = 0; k < s->nframes; k++)
			if (!profile__frame(p, s->frames[k])->name)
				abort();
	}
	profile__total(p);
	profile__free(p);
	return 0;
}
