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

void pp_name_format(const struct cp_pp_frame *f, const struct cp_pp_name *nm, char *buf,
		    size_t size)
{
	char scope[CP_PP_NAME_LEN * 4], func[CP_PP_NAME_LEN * 4];

	if (!size)
		return;
	if (!nm) {
		snprintf(buf, size, "[unknown]");
		return;
	}
	field(scope, sizeof(scope), nm->scope, sizeof(nm->scope));
	field(func, sizeof(func), nm->func, sizeof(nm->func));
	switch (f->kind) {
	case CP_PP_K_PHP_CODE:
		snprintf(buf, size, "%s", f->flags & CP_PP_FF_ENTRY ? "{main}" : "{include}");
		return;
	case CP_PP_K_PHP_EVAL:
		snprintf(buf, size, "{eval}");
		return;
	case CP_PP_K_PL_MAIN:
		snprintf(buf, size, "<main>");
		return;
	case CP_PP_K_PL_SUB:
	case CP_PP_K_PL_CV:
		snprintf(buf, size, "%s::%s", scope[0] ? scope : "__ANON__",
			 func[0] ? func : "__ANON__");
		return;
	}
	if (!func[0])
		snprintf(buf, size, "[unknown]");
	else if (scope[0])
		snprintf(buf, size, "%s::%s", scope, func);
	else
		snprintf(buf, size, "%s", func);
}

void pp_file_format(const struct cp_pp_name *nm, char *buf, size_t size)
{
	if (!size)
		return;
	if (!nm) {
		buf[0] = 0;
		return;
	}
	field(buf, size, nm->file, sizeof(nm->file));
}
