/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Naming a PHP or Perl frame from what BPF copied while the process lived (struct cp_pp_name,
 * bpf/phpperl_shared.h): the composed name ("Work::leaf", "{main}", "<main>"), the file, the
 * line; bytes the process wrote are hostile: they pass util/utf8safe's rule (utf8safe_copy).
 */
#ifndef CPUPROF_PP_NAMES_H
#define CPUPROF_PP_NAMES_H
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "phpperl_shared.h"

/* The runtime prefix of a frame kind: "php" or "pl" (NULL for an unknown kind). */
const char *pp_kind_runtime(uint8_t kind);

/* The frame's name into buf (size bytes, NUL-terminated, cut); nm NULL or without a name:
 * "[unknown]". */
void pp_name_format(const struct cp_pp_name *nm, char *buf, size_t size);

/* The file of a named frame into buf, cleaned the same way; "" when unknown. */
void pp_file_format(const struct cp_pp_name *nm, char *buf, size_t size);

#endif
