/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Naming a PHP or Perl frame from what BPF copied while the process lived (struct cp_pp_name,
 * bpf/phpperl_shared.h): "php::Class::method", "php::{main}", "pl::main::sub", "pl::<main>";
 * bytes the process wrote are hostile: they pass util/utf8safe's rule (utf8safe_copy).
 */
#ifndef CPUPROF_PP_NAMES_H
#define CPUPROF_PP_NAMES_H
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "phpperl_shared.h"

/* The runtime prefix of a frame kind: "php" or "pl" (NULL for an unknown kind). */
const char *pp_kind_runtime(uint8_t kind);

/*
 * The frame's name, without the runtime prefix ("Work::leaf", "{main}"), into buf (size bytes,
 * NUL-terminated, truncated). nm NULL: the frame was not named ("[unknown]"). f gives the
 * frame's flags (file-level PHP code entered from C is {main}, else an include).
 */
void pp_name_format(const struct cp_pp_frame *f, const struct cp_pp_name *nm, char *buf,
		    size_t size);

/* The file of a named frame, cleaned the same way, into buf; "" when unknown. */
void pp_file_format(const struct cp_pp_name *nm, char *buf, size_t size);

#endif
