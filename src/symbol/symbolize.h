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
 * DWARF (lines, inlined frames, debug files) comes from dwarf_index, per build-id; a lookup
 * answers with struct sym_frame, whose fields only ever get added. No debuginfod: a hook for
 * an opt-in lookup belongs in object_index() in symbolize.c.
 */
#ifndef CPUPROF_SYMBOLIZE_H
#define CPUPROF_SYMBOLIZE_H
#include <stdbool.h>
#include <stddef.h>
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

	/* source position (symbolizer__user_chain; symbolizer__user leaves them empty) */
	const char *file;      /* source file, NULL when unknown */
	uint32_t line, column; /* 0 when unknown */
	bool inlined;	       /* an inlined instance: the next frame of the chain is its caller */
	const char *mangled;   /* linkage name when it differs from name, else NULL */
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

/* One executable mapping of a snapshot, for building unwind tables. */
struct sym_map_info {
	uint64_t start, end;  /* runtime addresses */
	int fd;		      /* the object's file (owned by the symbolizer), -1 if not a file */
	uint64_t dev, ino;    /* the object's identity: one table per file */
	uint64_t vaddr;	      /* file vaddr mapped at start; valid when fd >= 0 */
	bool vdso;	      /* the kernel's vDSO (fd -1): the image mapped at start */
	const char *build_id; /* interned hex (one pointer per id), NULL when none */
};

typedef int (*sym_map_fn)(const struct sym_map_info *mi, void *ctx);

/*
 * Call fn for each executable mapping of (pid, gen), in address order; stops at and returns
 * fn's first nonzero result. -ENOENT when there is no snapshot. A file whose program headers
 * cannot be read is passed with fd -1.
 */
int symbolizer__for_each_map(struct symbolizer *sy, uint32_t pid, uint32_t gen, sym_map_fn fn,
			     void *ctx);

/* Number of snapshots and of distinct objects opened. */
unsigned int symbolizer__n_snapshots(const struct symbolizer *sy);
unsigned int symbolizer__n_objects(const struct symbolizer *sy);

/*
 * Name a user address of (pid, gen). leaf: addr is the sampled PC, not a return address.
 * One frame, named from the ELF symbol tables only (no DWARF, no inlined frames): the cheap
 * answer; symbolizer__user_chain gives the source-level one.
 */
int symbolizer__user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     struct sym_frame *out);

/*
 * The source-level frames of a user address of (pid, gen), innermost first, into
 * out[0..*n), *n <= max: the inlined functions at the address, then the function that holds
 * them, each with file, line and column from DWARF (the object's own, or a separate debug file
 * found by build-id or .gnu_debuglink under /proc/PID/root and on the host). Every frame carries
 * the map_* fields and build_id of symbolizer__user. The outermost frame is named from the
 * symbol table when a symbol covers the address (as llvm-symbolizer does), from DWARF
 * otherwise. Without debug information: one frame, the same as symbolizer__user. Debug
 * information is indexed once per build-id and shared by every process and file with that id.
 * Returns 0 (at least one frame) or a negative errno (-EINVAL when max is 0, -ENOMEM).
 */
int symbolizer__user_chain(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr,
			   bool leaf, struct sym_frame *out, size_t max, size_t *n);

/*
 * Global debug directories for separate debug files, looked for under /proc/PID/root and on
 * the host (NULL-terminated, copied; NULL: /usr/lib/debug). Tests point this at a temporary
 * tree. Affects objects indexed afterwards. 0 or -ENOMEM.
 */
int symbolizer__set_debug_dirs(struct symbolizer *sy, const char *const *dirs);

/*
 * Whether to ask the debuginfod servers of $DEBUGINFOD_URLS for a debug file by build-id when
 * none is found locally (off by default: the network only on request).
 */
void symbolizer__set_debuginfod(struct symbolizer *sy, bool on);

/*
 * The base name of the first object indexed so far whose debug sections are zstd-compressed
 * (elfutils 0.188 cannot read them: its lines and inlined frames are missing), or NULL. For
 * the caller to warn once.
 */
const char *symbolizer__zstd_object(const struct symbolizer *sy);

/* Name a kernel address. */
int symbolizer__kernel(struct symbolizer *sy, uint64_t addr, bool leaf, struct sym_frame *out);

#endif
