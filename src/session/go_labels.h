/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which recorded processes are Go programs whose goroutine labels BPF can read, and with what
 * offsets (bpf/shared.h, struct cp_go_proc, in the go_procs map): the executable's Go version
 * and .gopclntab give the label layout, the TLS slot of g and the runtime's offsets
 * (elf/gopclntab.h: a table by version, else the program's DWARF). The table is read once per
 * executable for the unwinder and this module both (elf/go_tables.h). Nothing here prints.
 *
 * An entry is for one generation of its process (cp_proc.gen: exec and pid reuse start a new
 * one). The mappings of a generation may be read after it has ended: the request of a sample
 * taken while the command was in execve is answered once exec has returned, with the mappings
 * of the new program under the old generation. Such a read enters nothing: it would replace the
 * entry of the generation that runs (BPF reads a process's labels only under its own).
 */
#ifndef CPUPROF_GO_LABELS_H
#define CPUPROF_GO_LABELS_H
#include <stdint.h>
#include <linux/types.h>
#include "shared.h"
#include "elf/go_tables.h"
#include "proc/proc_snapshot.h"

/* What the module asks of the recording's BPF maps (fakes in the unit tests). */
struct go_labels_ops {
	void *ctx;
	/* enter gp for process pid (go_procs): 0 or a negative errno */
	int (*set)(void *ctx, uint32_t pid, const struct cp_go_proc *gp);
	/* the generation BPF counts pid's samples under now: 0, or a negative errno (none) */
	int (*gen)(void *ctx, uint32_t pid, uint32_t *gen);
};

struct go_labels;

/* Reading ps's mappings, the tables from tables (both outlive it). NULL on ENOMEM. */
struct go_labels *go_labels__new(struct proc_snapshot *ps, struct go_tables *tables,
				 const struct go_labels_ops *ops);
void go_labels__free(struct go_labels *gl); /* NULL-safe */

/*
 * The mappings of (pid, gen) have been read: when it is a Go program whose labels can be read,
 * its entry. 0 (entered), -ENOENT (no such Go program, or no snapshot), -ESTALE (gen is not the
 * process's generation any more: nothing entered), or the error of ops->set.
 */
int go_labels__loaded(struct go_labels *gl, uint32_t pid, uint32_t gen);

/*
 * The command pid, held before its exec of path: the entry of the generation that exec starts,
 * so that its goroutines' labels are read from its first sample on, not only once its mappings
 * have been read. 0, -ENOENT (no Go program, or none of the offsets labels need), -ENOEXEC
 * (not ELF), another error of reading its Go tables (go_tables.h), or the error of ops->set.
 */
int go_labels__command(struct go_labels *gl, uint32_t pid, const char *path);

/*
 * The entry of the Go executable open on fd (not closed; tables NULL: read here): 0, -ENOENT
 * (no Go table, or not the offsets labels need), or the error of reading its Go tables.
 */
int go_labels__from_fd(struct go_tables *tables, int fd, struct cp_go_proc *out);

#endif
