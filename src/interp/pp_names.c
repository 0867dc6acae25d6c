// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "interp/pp_names.h"
#include "util/utf8safe.h"

const char *pp_kind_runtime(uint8_t kind)
{
	switch (kind) {
	case CP_PP_K_PHP_USER:
	case CP_PP_K_PHP_INTERNAL:
	case CP_PP_K_PHP_CODE:
	case CP_PP_K_PHP_EVAL:
		return "php";
	case CP_PP_K_PL_SUB:
	case CP_PP_K_PL_CV:
	case CP_PP_K_PL_MAIN:
		return "pl";
	}
	return NULL;
}

/* a field copied by BPF: at most n bytes, maybe not terminated; cleaned into buf */
static void field(char *buf, size_t size, const char *src, size_t n)
{
	char raw[CP_PP_FILE_LEN + 1];
	size_t len = strnlen(src, n < CP_PP_FILE_LEN ? n : CP_PP_FILE_LEN);

	memcpy(raw, src, len);
	raw[len] = 0;
	utf8safe_copy(buf, size, raw);
}

void pp_name_format(const struct cp_pp_name *nm, char *buf, size_t size)
{
	if (!size)
		return;
	if (!nm || !(nm->flags & CP_PP_NAME_OK) || !nm->name[0]) {
		snprintf(buf, size, "[unknown]");
		return;
	}
	field(buf, size, nm->name, sizeof(nm->name));
}

void pp_file_format(const struct cp_pp_name *nm, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = 0;
	if (nm && (nm->flags & CP_PP_FILE_OK))
		field(buf, size, nm->file, sizeof(nm->file));
}
