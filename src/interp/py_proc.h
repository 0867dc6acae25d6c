/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF walker needs about one process's CPython (struct cp_py_proc), read once at
 * attach, and the naming of the code objects it records: function, file, first line, and the
 * current line from the code object's line table, read from the process's memory.
 */
#ifndef CPUPROF_PY_PROC_H
#define CPUPROF_PY_PROC_H
#include <linux/types.h>
#include <stdint.h>
#include <sys/types.h>
#include "python_shared.h"
#include "interp/runtime.h"

struct py_process;

/*
 * Fill out for the CPython pp (py_detect_process) of process pid with offsets o
 * (py_offsets_for_process): runtime addresses, the thread-state pthread key, the interpreter.
 * 0; -EAGAIN: the interpreter is not initialised yet (no key, no interpreter: ask again
 * later); -ESRCH and the other errors of pmem_read().
 */
int py_proc_build(pid_t pid, const struct py_process *pp, const struct cp_py_offsets *o,
		  struct cp_py_proc *out);

struct proc_snapshot;
struct interp_plain;

/* Why py_attach() did not attach, for a message. */
struct py_attach_why {
	uint32_t hexversion;  /* the CPython found (-ENOTSUP: which one), 0 when none */
	const char *mismatch; /* -EPROTO: the code-object field the offsets get wrong */
};

/*
 * Everything the walker needs about the CPython of (pid, gen), whose mappings ps holds: find
 * it (py_detect_process, with plain), choose and check its offsets, read its runtime values.
 * 0 with *out filled (out->gen = gen). -ENOENT: no CPython among the mappings: ask again when
 * they change (libpython is mapped after exec, or dlopen()ed); -EAGAIN: CPython, but not
 * initialised yet (no thread-state key, or 3.7's patch level not written yet): ask again
 * soon; -ENOTSUP (version in why->hexversion), -EPROTO (offsets that do not fit: why->mismatch)
 * and other errors: not now, not later.
 */
int py_attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
	      struct cp_py_proc *out, struct py_attach_why *why);

/*
 * Read code object code of process pid under offsets o and compute the line of instruction
 * position instr (cp_rt_frame.pos). 0; -EINVAL: not a code object the offsets describe
 * (implausible strings); the errors of pmem_read(). A string too long is cut.
 */
int py_code_read(pid_t pid, const struct cp_py_offsets *o, uint64_t code, uint32_t instr,
		 struct rt_frame_info *out);

#endif
