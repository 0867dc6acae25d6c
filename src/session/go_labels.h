/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which recorded processes are Go programs whose goroutine labels BPF can read, and with what
 * offsets (bpf/shared.h, struct cp_go_proc): the executable's Go version and .gopclntab give
 * the label layout, the TLS slot of g and the runtime's offsets (elf/gopclntab.h: a table by
 * version, else the program's DWARF). Each object is looked at once per recording. Nothing
 * here prints.
 */
#ifndef CPUPROF_GO_LABELS_H
#define CPUPROF_GO_LABELS_H
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "proc/proc_snapshot.h"

struct go_labels;

/* NULL on ENOMEM. */
struct go_labels *go_labels__new(void);
void go_labels__free(struct go_labels *gl); /* NULL-safe */

/*
 * The record of (pid, gen), whose mappings ps holds, in *out: 0, or -ENOENT when it is no Go
 * program, or one whose labels cannot be read (unknown version, offsets or TLS slot).
 */
int go_labels__proc(struct go_labels *gl, struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		    struct cp_go_proc *out);

/* The record of the Go executable open on fd (not closed): 0, -ENOENT as above. */
int go_labels__from_fd(int fd, struct cp_go_proc *out);

/* The same for the file at path (a regular file; -ENOENT when it cannot be opened). */
int go_labels__from_path(const char *path, struct cp_go_proc *out);

#endif
