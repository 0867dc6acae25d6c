/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF walker needs about one process's Ruby (struct cp_rb_proc), read once at
 * attach, and the naming of the frames it records, read from the process's memory: a Ruby
 * frame's label, path, first line and current line (iseq body + instruction index); a C
 * function's name (method entry -> definition -> original_id -> the VM's symbol table).
 * Names are cached per process: by iseq body, by method entry, by ID.
 */
#ifndef CPUPROF_RB_PROC_H
#define CPUPROF_RB_PROC_H
#include <linux/types.h>
#include <stdint.h>
#include <sys/types.h>
#include "ruby_shared.h"
#include "interp/runtime.h"

struct rb_process;

/*
 * Fill out for the Ruby rp (rb_detect_process) of process pid with offsets o
 * (rb_offsets_table): how the walker reaches each thread's execution context, in this order:
 * ruby_current_ec through its TPOFF64 GOT slot (offset from the thread pointer), its DTPMOD64
 * GOT slot (module id: the DTV), or an executable's own TLS (local exec); else the GVL
 * holder's EC (2.6/2.7's ruby_current_execution_context_ptr, 3.x's main ractor), which the
 * walker flags. 0; -EAGAIN: the loader has not filled the slot yet (ask again later);
 * -ENOTSUP: none of these; the errors of pmem_read().
 */
int rb_proc_build(pid_t pid, const struct rb_process *rp, const struct cp_rb_offsets *o,
		  struct cp_rb_proc *out);

/* The naming state of one process (caches). */
struct rb_names;

/*
 * For process pid, whose Ruby is rp with offsets o. NULL when out of memory. The offsets are
 * copied; rp is not kept.
 */
struct rb_names *rb_names_new(pid_t pid, const struct rb_process *rp,
			      const struct cp_rb_offsets *o);

/* NULL-safe. */
void rb_names_free(struct rb_names *rn);

/*
 * Name a recorded frame (cp_rt_frame): an ISEQ frame from its body and pc index, a CFUNC
 * frame from its method entry. 0; -EINVAL: not what the offsets describe (a wrong type tag, an
 * implausible string); the errors of pmem_read(). A CFUNC frame whose name cannot be found
 * (no symbol table, a method entry that is not one) is named "<cfunc>" with 0.
 */
int rb_names_frame(struct rb_names *rn, const struct cp_rt_frame *f, struct rt_frame_info *out);

/* The name of Ruby ID id ("loop"), into buf (size bytes). 0, -ENOENT, pmem_read()'s errors. */
int rb_names_id(struct rb_names *rn, uint64_t id, char *buf, size_t size);

/* Cache statistics: lookups answered from a cache, and those that read the process. */
void rb_names_stats(const struct rb_names *rn, unsigned long *hits, unsigned long *misses);

#endif
