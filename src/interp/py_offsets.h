/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython struct offsets per version: a built-in table (2.7, 3.6-3.13) and, for 3.13+, the
 * interpreter's own description, _Py_DebugOffsets at the start of _PyRuntime, which is preferred
 * (it survives patch-level drift, what broke Parca's 3.13 table: interpreters.md 1.4).
 */
#ifndef CPUPROF_PY_OFFSETS_H
#define CPUPROF_PY_OFFSETS_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "python_shared.h"

struct py_process;

/* Where a process's offsets came from. */
enum py_offsets_source {
	PY_OFF_TABLE,	      /* the built-in table */
	PY_OFF_DEBUG_PROCESS, /* _Py_DebugOffsets read from the process's memory */
	PY_OFF_DEBUG_FILE,    /* _Py_DebugOffsets of _PyRuntime's initial value in the file */
};

/*
 * The built-in offsets of hexversion. micro_known: the patch level is known (3.7.0-3.7.3 lay
 * _PyRuntime out differently from 3.7.4+). 0, -ENOTSUP (no entry for that minor version),
 * -EAGAIN (the entry depends on a patch level that is not known).
 */
int py_offsets_table(uint32_t hexversion, bool micro_known, struct cp_py_offsets *out);

/* Size of _Py_DebugOffsets in 3.13 (73 u64 words), the most py_offsets_from_debug() reads. */
#define PY_DEBUG_OFFSETS_313_SIZE (73 * 8)

/*
 * Override out (the table's entry for the same minor version) with what a _Py_DebugOffsets image
 * says (buf, len bytes from _PyRuntime's start). 0; -EINVAL: no "xdebugpy" cookie, len too
 * short, or an offset that does not fit; -ENOTSUP: a free-threaded runtime, or a major.minor
 * other than out->version's (the layout is stable within a minor version only: CPython
 * gh-106597) or one whose layout is not known here (before 3.13, 3.14+).
 */
int py_offsets_from_debug(const void *buf, size_t len, struct cp_py_offsets *out);

/*
 * The offsets for the CPython of pp (py_detect_process), of process pid: the table, then on
 * 3.13+ _Py_DebugOffsets from the process memory, else from the file. *src says which won.
 * 0, or the errors of py_offsets_table().
 */
int py_offsets_for_process(pid_t pid, const struct py_process *pp, struct cp_py_offsets *out,
			   enum py_offsets_source *src);

/*
 * Check o's code-object offsets against the running interpreter's own description:
 * PyCode_Type's member table (tp_members: name and offset of co_filename, co_name,
 * co_firstlineno...) and, from 3.11, tp_basicsize (= the offset of co_code_adaptive). Works on
 * stripped builds; catches a table entry that does not fit the build (interpreters.md 5.2).
 * Returns the number of fields compared (> 0) with *mismatch NULL, or with *mismatch naming
 * the first field that differs; -EINVAL (no member table where it should be), or the errors of
 * pmem_read().
 */
int py_offsets_check_code(pid_t pid, const struct py_process *pp, const struct cp_py_offsets *o,
			  const char **mismatch);

/*
 * Field i of o by name (the names of scripts/py-offsets-dwarf.py: "tstate.frame"...), for
 * comparisons with an independent source. false past the last field.
 */
bool py_offsets_field(const struct cp_py_offsets *o, size_t i, const char **name, __u16 *value);

#endif
