// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/index_sort.h"

struct isort {
	const char *base;
	size_t size;
	int (*cmp)(const void *a, const void *b, void *ctx);
	void *ctx;
};

static int cmp_at(const void *a, const void *b, void *c)
{
	const struct isort *s = c;

	return s->cmp(s->base + *(const uint32_t *)a * s->size,
		      s->base + *(const uint32_t *)b * s->size, s->ctx);
}

int index_sort(void *base, size_t n, size_t size,
	       int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	struct isort s = {base, size, cmp, ctx};
	uint32_t *idx;
	char *rows = base, *tmp;

	if (n > UINT32_MAX)
		return -ENOMEM;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	tmp = malloc(size ? size : 1);
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_at, &s);
	/* element j of the result is element idx[j]; idx[j] = j marks j done */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		if (idx[i] == i)
			continue;
		memcpy(tmp, rows + i * size, size);
		while (idx[j] != i) {
			size_t k = idx[j];

			memcpy(rows + j * size, rows + k * size, size);
			idx[j] = (uint32_t)j;
			j = k;
		}
		memcpy(rows + j * size, tmp, size);
		idx[j] = (uint32_t)j;
	}
	free(idx);
	free(tmp);
	return 0;
}
