/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for sampled addresses.
 *
 * User space: the mappings of each (pid, generation) and the files behind them come from a
 * proc_snapshot (proc/proc_snapshot.h), which the caller takes while the process lives and
 * shares with the unwinder. What names are made of is kept here, per object of that snapshot:
 * its ELF symbol index (elf_syms, built at the first lookup), its DWARF index (dwarf_index:
 * functions, inlined frames and lines, shared by every object with the same build-id, debug
 * files found by debug_find, with the debuginfod servers asked only when
 * symbolizer__set_debuginfod says so); the vDSO's symbols from cpuprof's own copy; JIT code
 * from perf maps (perfmap). Kernel: /proc/kallsyms (ksyms).
 *
 * Address convention: the leaf frame is looked up at its exact PC, every caller at its return
 * address - 1, so a call at the very end of a function is not named after the next function.
 *
 * A lookup answers with struct sym_frame, whose fields only ever get added.
 */
#ifndef CPUPROF_SYMBOLIZE_H
#define CPUPROF_SYMBOLIZE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "elf/go_tables.h"

struct proc_snapshot;
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

	/* the mapping: strings live as long as the symbolizer and its proc_snapshot */
	enum sym_map_kind map_kind;
	uint64_t map_start, map_end; /* runtime addresses; the kernel: its whole half */
	uint64_t map_offset;	     /* file offset of map_start */
	const char *map_path;	     /* path as mapped ("/usr/lib/x/libc.so.6", "[vdso]") */
	const char *build_id;	     /* lower-case hex GNU build-id, "" when unknown */
	const char *go_version;	     /* Go programs: their Go version ("go1.19.8"), else NULL */

	/* source position (symbolizer__user_chain; symbolizer__user leaves them empty) */
	const char *file;      /* source file, NULL when unknown */
	uint32_t line, column; /* 0 when unknown */
	bool inlined;	       /* an inlined instance: the next frame of the chain is its caller */
	const char *mangled;   /* linkage name when it differs from name, else NULL */
};

/*
 * Name the addresses of the processes of ps, which must outlive the symbolizer (it is not
 * freed with it). Returns NULL and sets errno (EINVAL: ps is NULL).
 */
struct symbolizer *symbolizer__new(struct proc_snapshot *ps);

/*
 * Read Go's function tables through t (shared with the unwinder and the label reader: one read
 * of each executable; t outlives sy), not one for the symbolizer's own.
 */
void symbolizer__set_go_tables(struct symbolizer *sy, struct go_tables *t);

/* NULL-safe; frees the indexes built, not the proc_snapshot. */
void symbolizer__free(struct symbolizer *sy);

/*
 * Forget the perf maps read so far (each is read at its first use): JIT code written since is
 * in the files, and processes that are gone leave nothing behind. Between two drains.
 */
void symbolizer__forget_perf_maps(struct symbolizer *sy);

/*
 * The memory the perf maps held at once may take (CP_PERF_MAP_BUDGET unless set): a map that
 * does not fit in what is left is not read.
 */
void symbolizer__set_perf_map_budget(struct symbolizer *sy, size_t bytes);

/* The processes whose perf map was not read, by reason, over the whole recording. */
struct sym_perf_maps {
	size_t files;	    /* perf map files read (one for several processes sharing it) */
	size_t foreign;	    /* owned by neither root nor the process's user (perf's rule) */
	size_t links;	    /* a symbolic link, as the file or in its /tmp */
	size_t over_budget; /* over CP_PERF_MAP_BUDGET with the maps held already */
};
void symbolizer__perf_maps(const struct symbolizer *sy, struct sym_perf_maps *st);

/*
 * Drop what was built to name the objects (symbol indexes, DWARF indexes with their mapped
 * files): those not used during the last 8 calls, or all of them; those kept forget their
 * decoded line rows (dwarf_index__trim). Called between drains,
 * once their addresses are named (and the names kept elsewhere), memory follows what is being
 * named, not every object ever seen; an object needed again is indexed again. Strings of
 * sym_frames named from a dropped object go with it. Not while other threads name.
 */
void symbolizer__drop_indexes(struct symbolizer *sy, bool all);

/*
 * The objects known and the DWARF indexes shared by build-id, now, and the strings the
 * symbolizer keeps for the whole recording (labels of unnamed addresses, kernel names) and
 * their bytes (for -vv).
 */
void symbolizer__sizes(struct symbolizer *sy, size_t *objects, size_t *indexes, size_t *strings,
		       size_t *string_bytes);

/*
 * The objects whose own symbol table (the profiler's rules, elf_syms.h) is built now: only
 * those named by it (symbolizer__user, or a chain that DWARF and its symbols leave unnamed).
 */
size_t symbolizer__symbol_tables(const struct symbolizer *sy);

/* Load kernel symbols from a kallsyms stream. 0 or a negative errno. */
int symbolizer__load_kallsyms(struct symbolizer *sy, FILE *f);

/* True when kallsyms addresses were hidden (kernel.kptr_restrict). */
bool symbolizer__kernel_restricted(const struct symbolizer *sy);

/*
 * Name a user address of (pid, gen), from the proc_snapshot's mappings of it (a process without
 * a snapshot has none: its addresses are "[unknown]", or JIT code of its perf map). leaf: addr
 * is the sampled PC, not a return address.
 * One frame, named from the ELF symbol tables only (no DWARF, no inlined frames): the cheap
 * answer; symbolizer__user_chain gives the source-level one.
 */
int symbolizer__user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     struct sym_frame *out);

/*
 * Where a user address of (pid, gen) lies in the object mapped there, so that its names can be
 * kept per object rather than per process: every process of a program has its own load
 * addresses (ASLR), the same object and virtual address. object is NULL when the address is in
 * no file-backed mapping or the vDSO, or when it cannot be translated (its names then depend
 * on the process: JIT code, unknown memory).
 */
struct sym_place {
	const void *object; /* identity of the object (one per device and inode), NULL: none */
	uint64_t vaddr;	    /* the address as the object's own virtual address (sym_frame.rel) */
	/* the mapping in the object's address space: vaddrs [start, limit) at file offset */
	uint64_t start, limit, offset;
	const char *path;	/* the object's path as the first process that mapped it saw it */
	const char *build_id;	/* as sym_frame.build_id */
	const char *go_version; /* as sym_frame.go_version */
	uint32_t pid;		/* that first process (0: the vDSO, the same in every process) */
};

/* Fill *out for a user address of (pid, gen), as symbolizer__user would find it. 0 or -ENOMEM. */
int symbolizer__place(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		      struct sym_place *out);

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
 * Threads: symbolizer__user_chain may run in several threads at once for addresses of
 * different objects (different build-ids), each placed with symbolizer__place beforehand by
 * the one thread that uses the rest of the API (and takes or refreshes no snapshot meanwhile).
 */

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
 * A directory on disk where the compressed debug sections of objects indexed afterwards are
 * inflated to (unnamed files, gone when their index is), rather than into cpuprof's memory:
 * libc6-dbg's were 8.5 MB of heap for a whole recording. NULL (the default): into memory. A
 * directory in memory (tmpfs) or that cannot be written to: into memory too. 0 or -ENOMEM.
 */
int symbolizer__set_unpack_dir(struct symbolizer *sy, const char *dir);

/*
 * The first failure to ask the debuginfod servers other than "not there" (-errno: no server
 * reachable, a timeout...), or 0. For the caller to warn once: debug files missing locally
 * were then not fetched.
 */
int symbolizer__debuginfod_error(const struct symbolizer *sy);

/*
 * The base name of the first object indexed so far whose debug sections are zstd-compressed
 * (elfutils 0.188 cannot read them: its lines and inlined frames are missing), or NULL. For
 * the caller to warn once.
 */
const char *symbolizer__zstd_object(const struct symbolizer *sy);

/*
 * The base name of the first object whose debug sections turned out damaged while naming
 * (dwarf_index.h, DI_DAMAGED: some of its frames lack lines or inlined functions), or NULL.
 */
const char *symbolizer__damaged_object(const struct symbolizer *sy);

/*
 * Objects whose file or separate debug file shrank while it was read (its owner truncated it
 * under cpuprof), and the base name of the first, or 0 and NULL. Reads past the new end find
 * zeros instead of raising SIGBUS (util/fmap.h); what was read from such an object is dropped,
 * it is not read again, and its frames stay "object+0xOFFSET". For the caller to count.
 */
size_t symbolizer__changed_objects(const struct symbolizer *sy, const char **first);

/* Name a kernel address. */
int symbolizer__kernel(struct symbolizer *sy, uint64_t addr, bool leaf, struct sym_frame *out);

#endif
