/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source-level names for addresses of one ELF object: the chain of functions at an address,
 * innermost inlined function first, each with its demangled and mangled name and its file,
 * line and column, as llvm-symbolizer reports them.
 *
 * Built once per object, lazily per compilation unit (CU): the CUs' address ranges at open, then
 * at the first lookup that lands in a CU one walk of its DIE tree collects every concrete
 * function and inlined instance with its ranges into a flat, sorted "innermost scope" table,
 * next to the CU's line table copied into a sorted array. A lookup is three binary searches and
 * a walk up the scope tree; nothing walks DIEs per address.
 *
 * Debug information comes from the object itself or a separate debug file (debug_find.h);
 * function symbols through elf_syms under llvm-symbolizer's rules (ELF_SYMS_LLVM): the object's
 * .symtab, else its .dynsym plus MiniDebugInfo (which llvm-symbolizer ignores); the debug file's
 * .symtab apart (dwarf_index__debug_symbol). The outermost frame is named by the symbol table when
 * a symbol covers the address (llvm-symbolizer does the same: it shows .constprop/.isra clones and
 * the alias the linker kept), by DWARF otherwise.
 *
 * Not thread-safe: one index is used by one thread at a time; dwarf_index__lookup_batch starts
 * threads of its own (each with its own libdw handle) and waits for them.
 */
#ifndef CPUPROF_DWARF_INDEX_H
#define CPUPROF_DWARF_INDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbol/debug_find.h"

struct dwarf_index;

/* One frame of a chain; strings are owned by the index and live as long as it does. */
struct di_frame {
	const char *name;      /* demangled function name; NULL when unknown */
	const char *mangled;   /* linkage name when it differs from name, else NULL */
	const char *file;      /* source file, absolute when DWARF gives the directories */
	uint32_t line, column; /* 0 when unknown */
	bool inlined;	       /* an inlined instance: the next frame is its caller */
};

/* What an index found (dwarf_index__flags). */
enum {
	DI_DWARF = 1 << 0,	/* DWARF is read */
	DI_DEBUG_FILE = 1 << 1, /* ... from a separate debug file */
	DI_MINIDEBUG = 1 << 2,	/* symbols from .gnu_debugdata */
	DI_SYMBOLS = 1 << 3,	/* at least one function symbol */
	DI_ZSTD = 1 << 4,	/* zstd-compressed debug sections, which libdw 0.188 cannot read */
	DI_DAMAGED = 1 << 5,	/* debug sections present but unreadable, wholly or in part:
				   lines or inline frames are missing (set as CUs are read) */
	DI_CHANGED = 1 << 6,	/* the object or its debug file shrank while it was read (its
				   owner truncated it): every lookup answers -ESTALE */
	DI_UNPACKED = 1 << 7,	/* compressed sections read inflated from a file of
				   debug_paths.unpack_dir, not from memory */
};

/*
 * Index the ELF object open on fd (not kept, not closed), known as path (may be NULL; gives
 * the directory for .gnu_debuglink). dp says where debug files are looked for; NULL: the host's
 * /usr/lib/debug. Returns NULL and sets errno: ENOEXEC when fd is not an ELF file, ENOMEM,
 * ESTALE when a file shrank while it was read. An object without debug information or symbols
 * is not an error. The files stay mapped (guarded, util/fmap.h): one that shrinks later makes
 * the lookups that read past its new end, and all after them, answer -ESTALE, not SIGBUS.
 */
struct dwarf_index *dwarf_index__open(int fd, const char *path, const struct debug_paths *dp);

/* NULL-safe. */
void dwarf_index__free(struct dwarf_index *di);

/*
 * Between lookups: forget the decoded line rows not looked up since the last call, the indexing
 * scratch and the file pages read (they come back on the next lookup that needs them). No lookup
 * may run meanwhile. The line rows freed.
 */
size_t dwarf_index__trim(struct dwarf_index *di);

/* DI_* bits. */
unsigned int dwarf_index__flags(const struct dwarf_index *di);

/* The separate debug file used, or NULL. */
const char *dwarf_index__debug_path(const struct dwarf_index *di);

/*
 * The frames at vaddr (the object's own virtual address: the exact PC of a leaf frame, a
 * return address - 1 for callers), innermost first, into out[0..*n) with *n <= max; when the
 * chain is longer, the innermost max - 1 frames and the outermost are kept. *n is 0 when
 * nothing is known about vaddr. Returns 0, -EINVAL (max == 0), -ENOMEM or -ESTALE (a file
 * shrank under a read: DI_CHANGED, *n 0); a broken CU answers from the symbol table alone.
 */
int dwarf_index__lookup(struct dwarf_index *di, uint64_t vaddr, struct di_frame *out, size_t max,
			size_t *n);

/*
 * The frames of n addresses at once, each answered as dwarf_index__lookup would, with up to
 * jobs threads: the addresses are grouped by CU and each CU is indexed and read by one thread,
 * so the answers do not depend on jobs. Objects whose debug sections are compressed use one
 * thread. *out (free with di_batch__free) holds the answers; their strings live as long as
 * the index. Returns 0, -EINVAL (max == 0), -ENOMEM or -ESTALE (as dwarf_index__lookup).
 */
struct di_batch;
int dwarf_index__lookup_batch(struct dwarf_index *di, const uint64_t *vaddrs, size_t n, size_t max,
			      unsigned int jobs, struct di_batch **out);

/*
 * A batch starts one thread per this many bytes of DIEs it has to index (default 4 MiB: below
 * that, a thread's set-up costs more than it saves), up to its jobs. Tests lower it.
 */
void dwarf_index__set_thread_bytes(struct dwarf_index *di, uint64_t bytes);

/*
 * Decoded line rows dwarf_index__lookup lets the index hold before it forgets the sequences not
 * looked up since it last did (default 524,288: 6 MiB). Tests lower it.
 */
void dwarf_index__set_held_rows(struct dwarf_index *di, size_t rows);

/* The decoded line rows the index holds now. */
size_t dwarf_index__held_rows(const struct dwarf_index *di);

/* The frames of the batch's i-th address, innermost first, into *frames; their number. */
size_t di_batch__frames(const struct di_batch *b, size_t i, const struct di_frame **frames);

/* NULL-safe. */
void di_batch__free(struct di_batch *b);

/*
 * The function symbol of the separate debug file's .symtab at vaddr, demangled, or NULL: names
 * code that neither DWARF nor the object's own symbols describe (a stripped object's local
 * assembly functions, libgcc helpers). llvm-symbolizer leaves such code "??", and so does
 * dwarf_index__lookup; the profiler asks this too. NULL too once a file shrank (DI_CHANGED).
 */
const char *dwarf_index__debug_symbol(struct dwarf_index *di, uint64_t vaddr);

#endif
