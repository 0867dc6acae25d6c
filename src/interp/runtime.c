// SPDX-License-Identifier: GPL-2.0
/*
 * The table of runtimes (runtime.h), indexed by id, and the naming from what BPF copied. A new
 * runtime: its descriptor (X_runtime.c), its line below, its walker in
 * bpf/runtime_profile.bpf.h and its slot in the loader.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "interp/hs_runtime.h"
#include "interp/php_runtime.h"
#include "interp/pl_runtime.h"
#include "interp/py_runtime.h"
#include "interp/rb_runtime.h"
#include "interp/runtime.h"
#include "interp/src_pos.h"
#include "interp/v8_runtime.h"

static const struct runtime *const table[CP_RT_MAX] = {
	[CP_RT_PYTHON] = &py_runtime, [CP_RT_RUBY] = &rb_runtime, [CP_RT_PHP] = &php_runtime,
	[CP_RT_PERL] = &pl_runtime,   [CP_RT_JAVA] = &hs_runtime, [CP_RT_V8] = &v8_runtime,
};

const struct runtime *runtime_of(uint32_t id)
{
	return id < CP_RT_MAX ? table[id] : NULL;
}

/* Copy string s of at most max bytes (from BPF: hostile) as printable ASCII, cut marked. */
static void copy_clean(char *out, size_t size, const char *s, size_t max, bool cut_head)
{
	size_t n = 0, len = strnlen(s, max);

	if (cut_head && size > 4) {
		memcpy(out, "...", 3);
		n = 3;
	}
	for (size_t i = 0; i < len && n + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[n] = 0;
}

int runtime_name_copied(const struct cp_rt_name *n, const struct src_pos_who *who,
			struct rt_frame_info *out)
{
	memset(out, 0, sizeof(*out));
	out->line = -1;
	if (!n || !(n->flags & (CP_RT_NAME_OK | CP_RT_FILE_OK)))
		return -ENOENT;
	if (n->flags & CP_RT_NAME_OK) {
		copy_clean(out->name, sizeof(out->name), n->name, sizeof(n->name), false);
		/* a builtin has no file nor line: said in its name */
		if (n->flags & CP_RT_NAME_BUILTIN)
			strncat(out->name, " [builtin]", sizeof(out->name) - strlen(out->name) - 1);
	} else
		snprintf(out->name, sizeof(out->name), "[unknown]");
	if (n->flags & CP_RT_FILE_OK)
		copy_clean(out->file, sizeof(out->file), n->file, sizeof(n->file),
			   n->flags & CP_RT_FILE_CUT);
	out->firstline = n->firstline <= 1u << 30 ? (int)n->firstline : 0;
	if ((n->flags & (CP_RT_NAME_POS | CP_RT_NAME_LINE)) == (CP_RT_NAME_POS | CP_RT_NAME_LINE)) {
		/* BPF made it a line in the runtime's memory: no file read (node:internal/...) */
		out->line = out->firstline;
		out->column = out->firstline && n->column <= 1u << 30 ? (int)n->column : 0;
	} else if ((n->flags & CP_RT_NAME_POS) && out->firstline) {
		int line, col;

		/* where the code is defined: its line, and the column there */
		out->firstline = 0;
		if (!src_pos_line(who, out->file, n->firstline - 1, &line, &col)) {
			out->firstline = out->line = line;
			out->column = col;
		}
	}
	return 0;
}

void runtime_name_pos(const struct src_pos_who *who, struct rt_frame_info *out, uint32_t pos)
{
	int line, col;

	if (!who || !out || !pos || pos > 1u << 30 || !out->file[0] || out->file[0] != '/')
		return;
	if (src_pos_line(who, out->file, pos - 1, &line, &col))
		return;
	out->line = line;
	out->column = col;
}
