/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol index of one ELF object (executable, PIE or shared object), built once with libelf:
 * function symbols from .symtab and .dynsym, sorted by address; the PT_LOAD segments that map
 * file offsets to the object's virtual addresses; the GNU build-id. This is the project's one
 * reader of ELF symbol tables: the profiler's names and the DWARF index's (llvm-symbolizer's)
 * both come from here, each under its own documented rules (enum elf_syms_rules).
 *
 * Address convention: a runtime address A inside a mapping (start, file offset pgoff) is turned
 * into the object's "file virtual address" (what addr2line and nm print) by
 *   vaddr = A - start + pgoff - p_offset + p_vaddr  (the PT_LOAD the mapping was made for),
 * which elf_layout.h finds (elf_syms__map_vaddr): right for PIE, non-PIE and shared objects,
 * split-code layouts and segments whose vaddr and offset differ (lld, mold).
 */
#ifndef CPUPROF_ELF_SYMS_H
#define CPUPROF_ELF_SYMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include "elf/elf_layout.h"

struct elf_syms;

/*
 * What is read, and which function names an address gets. Common to both: STT_FUNC and
 * STT_GNU_IFUNC symbols, and local size-0 untyped labels in executable sections (hand-written
 * entry code: ld.so's _start and _dl_start_user); never undefined, unnamed or value-0 ones.
 */
enum elf_syms_rules {
	/*
	 * The profiler's: .symtab and .dynsym together (and extra's .symtab). Among aliases at one
	 * address: global before weak before local before code labels, then the shorter name,
	 * then bytewise first; the function covers as far as its largest alias says. A size-0
	 * symbol covers up to the next function but not past its section (or segment); nested
	 * functions win inside and the enclosing one resumes after them. A stripped program's
	 * entry point is named _start when its FDE gives its extent.
	 */
	ELF_SYMS_PROFILE,
	/*
	 * llvm-symbolizer's: .symtab, else .dynsym plus extra's .symtab (llvm-symbolizer itself
	 * has no extra: it ignores MiniDebugInfo). Among aliases the largest size, then the last
	 * in table order. An address belongs to the last symbol starting at or before it: up to
	 * its size, or without a size as far as the next symbol, whatever lies between.
	 */
	ELF_SYMS_LLVM,
};

/* Which tables were there (elf_syms__tables); present, with or without function symbols. */
enum {
	ELF_SYMS_SYMTAB = 1 << 0, /* the object's .symtab */
	ELF_SYMS_DYNSYM = 1 << 1, /* its .dynsym */
	ELF_SYMS_EXTRA = 1 << 2,  /* extra's .symtab */
};

/* A function symbol found by address; strings owned by the index. */
struct elf_sym {
	const char *name;
	const char *file; /* a local symbol's source file (the STT_FILE before it), else NULL */
	uint64_t addr;	  /* where the symbol starts */
};

/*
 * Read the object open on fd (the fd is not kept and not closed). Returns NULL and sets errno:
 * ENOEXEC if it is not an ELF file, ENOMEM, EIO, ESTALE when the file shrank while it was read
 * (its owner truncated it: the reads past its new end found zeros, not SIGBUS; elf_file.h).
 * String tables of 64 KiB or more are not copied: the index keeps the file's guarded mapping
 * (not the fd) and reads the names there; a file truncated later then names with zeros.
 */
struct elf_syms *elf_syms__from_fd(int fd);

/*
 * The headers only: the PT_LOAD segments (elf_syms__offset_to_vaddr), the type and the build-id,
 * no symbols (every lookup finds nothing), for what needs an object's layout and identity but
 * not its names, at a fraction of the cost. Same returns as elf_syms__from_fd.
 */
struct elf_syms *elf_syms__headers_from_fd(int fd);

/* The same from an image in memory (e.g. the vDSO); the image is copied. */
struct elf_syms *elf_syms__from_mem(const void *image, size_t size);

/*
 * The same from an Elf handle the caller keeps (e.g. the one libdw reads), under rules, adding
 * the .symtab of extra (may be NULL: MiniDebugInfo's symbols, whose sections are those of
 * the object) as the rules say. Neither handle is kept; section data may be decompressed in
 * place. Returns NULL and sets errno: ENOEXEC, ENOMEM, EIO (a broken symbol table).
 */
struct elf_syms *elf_syms__from_elf(Elf *elf, Elf *extra, enum elf_syms_rules rules);

/* NULL-safe. */
void elf_syms__free(struct elf_syms *es);

/*
 * File offset -> file virtual address through the first PT_LOAD whose file range holds it.
 * 0, or -ENOENT. Not for runtime addresses: a page can belong to two segments with different
 * vaddr - offset (elf_syms__map_vaddr picks the one a mapping was made for).
 */
int elf_syms__offset_to_vaddr(const struct elf_syms *es, uint64_t off, uint64_t *vaddr);

/* The object's PT_LOAD segments in header order (*segs NULL and 0 for es NULL). */
size_t elf_syms__loads(const struct elf_syms *es, const struct elf_load **segs);

/* elf_layout_map_vaddr with the object's PT_LOADs and type. 0, -EINVAL, -ENOENT. */
int elf_syms__map_vaddr(const struct elf_syms *es, const struct elf_map *m, uint64_t *vaddr);

/*
 * The function symbol containing vaddr, by the index's rules (elf_syms__from_fd and __from_mem:
 * ELF_SYMS_PROFILE), and vaddr's offset in it. NULL when no symbol covers vaddr. The string is
 * owned by es.
 */
const char *elf_syms__lookup(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off);

/*
 * The same with the symbol's start and source file into *out (its strings owned by es); false
 * when no symbol covers vaddr.
 */
bool elf_syms__get(const struct elf_syms *es, uint64_t vaddr, struct elf_sym *out);

/*
 * elf_syms__get's answer in storage of the calling thread, valid until its next call of
 * elf_syms__find (the index keeps no struct elf_sym per function); NULL when none covers vaddr.
 */
const struct elf_sym *elf_syms__find(const struct elf_syms *es, uint64_t vaddr);

/* ELF_SYMS_* bits: the symbol tables found. */
unsigned int elf_syms__tables(const struct elf_syms *es);

/* Number of function symbols indexed: one per address. */
size_t elf_syms__count(const struct elf_syms *es);

/* The GNU build-id bytes and their length (0 when the object has none). */
const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *len);

/* Whether the object has Go's build ID note (name "Go", type 4): a program built by Go. */
bool elf_syms__go_note(const struct elf_syms *es);

/* ET_EXEC (non-PIE executable) or ET_DYN (PIE or shared object). */
int elf_syms__type(const struct elf_syms *es);

#endif
