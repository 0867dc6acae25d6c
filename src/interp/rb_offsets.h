/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRI Ruby struct offsets per version (2.6-3.3), a built-in table: Ruby does not describe its
 * own layout (interpreters.md 5.2). Each number's source is in rb_offsets.c;
 * scripts/rb-offsets-mjit.sh prints the same fields as the compiler lays them out, from the
 * rb_mjit_min_header of an installed ruby (2.6-3.2 ship one), and tests/unit/test_rb_offsets.c
 * compares the table with it.
 */
#ifndef CPUPROF_RB_OFFSETS_H
#define CPUPROF_RB_OFFSETS_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ruby_shared.h"

/*
 * The offsets of version (CP_RB_VER). The layout is the same for every teeny release of a
 * minor version in 2.6-3.3. 0, or -ENOTSUP (no entry for that minor version).
 */
int rb_offsets_table(uint32_t version, struct cp_rb_offsets *out);

/*
 * Field i of o by name (the names scripts/rb-offsets-mjit.sh prints: "cfp.size"...), for
 * comparisons with an independent source. false past the last field.
 */
bool rb_offsets_field(const struct cp_rb_offsets *o, size_t i, const char **name, __u16 *value);

#endif
