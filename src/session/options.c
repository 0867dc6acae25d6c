// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "session/options.h"

enum output_format options_output_format(const struct cp_options *o, size_t i)
{
	if (o->format != FORMAT_AUTO)
		return o->format;
	return format_from_name(i < o->n_outputs ? o->outputs[i] : NULL);
}

const char *options_output_path(const struct cp_options *o, size_t i)
{
	return i < o->n_outputs ? o->outputs[i] : "-";
}

const char *options_output_name(const struct cp_options *o, size_t i)
{
	const char *p = options_output_path(o, i);

	return strcmp(p, "-") ? p : "stdout";
}
