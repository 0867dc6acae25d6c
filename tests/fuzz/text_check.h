/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the escaper harnesses assert, written apart from src/util/utf8safe.c so that a fault
 * there is not checked by itself: strict UTF-8 (shortest form, no surrogate, nothing above
 * U+10FFFF) of characters that are neither control characters nor noncharacters.
 */
#ifndef CPUPROF_FUZZ_TEXT_CHECK_H
#define CPUPROF_FUZZ_TEXT_CHECK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool text_check(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		uint32_t cp, min;
		size_t len;

		if (u[i] < 0x80)
			cp = u[i], len = 1, min = 0;
		else if ((u[i] & 0xe0) == 0xc0)
			cp = u[i] & 0x1f, len = 2, min = 0x80;
		else if ((u[i] & 0xf0) == 0xe0)
			cp = u[i] & 0x0f, len = 3, min = 0x800;
		else if ((u[i] & 0xf8) == 0xf0)
			cp = u[i] & 0x07, len = 4, min = 0x10000;
		else
			return false;
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return false;
		if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
			return false;
		i += len;
	}
	return true;
}

#endif
