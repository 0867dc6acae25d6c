/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for sampled addresses.
 *
 * User space: while a process lives, symbolizer__snapshot() saves its mappings and opens every
 * file-backed executable mapping (through /proc/PID/map_files, else /proc/PID/root/PATH), so
 * the process may exit before the recording ends. Objects are shared between processes by
 * (device, inode) and indexed lazily (elf_syms) at the first lookup.
 * Kernel: /proc/kallsyms (ksyms).
 *
 * Address convention: the leaf frame is looked up at its exact PC, every caller at its return
 * address - 1, so a call at the very end of a function is not named after the next function.
 *
 * The module grows into DWARF (lines, inlined frames, debug files): a lookup answers with a
 * struct sym_frame, whose fields only ever get added.
 */
#ifndef CPUPROF_SYMBOLIZE_H
#define CPUPROF_SYMBOLIZE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct symbolizer;

/* The mapping a frame's address falls in, as the process saw it. */
enum sym_map_kind {
	SYM_MAP_NONE = 0, /* no mapping holds the address (or no snapshot of the process) */
	SYM_MAP_FILE,	  /* a file-backed mapping */
	SYM_MAP_ANON,	  /* anonymous executable memory (JIT code) */
	SYM_MAP_VDSO,	  /* the vDSO */
	SYM_MAP_SPECIAL,  /* [vsyscall] and other bracketed kernel mappings */
	SYM_MAP_KERNEL,	  /* the kernel image and its modules */
};

struct sym_frame {
	/* function name, or "module+0xOFFSET" when unnamed; never NULL */
	const char *name;
	/* base name of the object ("libc.so.6", "[kernel.kallsyms]", "[ext4]") */
	const char *module;
	/* address relative to the module: file vaddr, or the kernel address */
	uint64_t rel;
	/* name came from a symbol table (or debug information) */
	bool named;

	/* the mapping: strings are owned by the symbolizer and live as long as it does */
	enum sym_map_kind map_kind;
	uint64_t map_start, map_end; /* runtime addresses; the kernel: its whole half */
	uint64_t map_offset;	     /* file offset of map_start */
	const char *map_path;	     /* path as mapped ("/usr/lib/x/libc.so.6", "[vdso]") */
	const char *build_id;	     /* lower-case hex GNU build-id, "" when unknown */
};

/* procfs is "/proc" except in tests. Returns NULL and sets errno. */
struct symbolizer *symbolizer__new(const char *procfs);

/* NULL-safe; closes every file kept open. */
void symbolizer__free(struct symbolizer *sy);

/* Load kernel symbols from a kallsyms stream. 0 or a negative errno. */
int symbolizer__load_kallsyms(struct symbolizer *sy, FILE *f);

/* True when kallsyms addresses were hidden (kernel.kptr_restrict). */
bool symbolizer__kernel_restricted(const struct symbolizer *sy);

/*
 * Save the mappings of process pid as generation gen, and open its objects. Idempotent per
 * (pid, gen). Returns 0, -ESRCH when the process is gone, -ENOMEM.
 */
int symbolizer__snapshot(struct symbolizer *sy, uint32_t pid, uint32_t gen);

/*
 * Read the mappings of (pid, gen) again and add the new ones to its snapshot (the process
 * mapped more code: the dynamic loader, dlopen). Mappings that are gone stay, unless a new one
 * covers their addresses: earlier samples may point into them. Creates the snapshot if there
 * is none. Same returns as symbolizer__snapshot.
 */
int symbolizer__refresh(struct symbolizer *sy, uint32_t pid, uint32_t gen);

/* Number of snapshots and of distinct objects opened. */
unsigned int symbolizer__n_snapshots(const struct symbolizer *sy);
unsigned int symbolizer__n_objects(const struct symbolizer *sy);

/* Name a user address of (pid, gen). leaf: addr is the sampled PC, not a return address. */
int symbolizer__user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     struct sym_frame *out);

/* Name a kernel address. */
int symbolizer__kernel(struct symbolizer *sy, uint64_t addr, bool leaf, struct sym_frame *out);

#endif
