/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol index of one ELF object (executable, PIE or shared object), built once with libelf:
 * function symbols from .symtab and .dynsym, sorted by address; the PT_LOAD segments that map
 * file offsets to the object's virtual addresses; the GNU build-id.
 *
 * Address convention: a runtime address A inside a mapping (start, file offset pgoff) is turned
 * into the object's "file virtual address" (what addr2line and nm print) by
 *   off = A - start + pgoff;  vaddr = off - p_offset + p_vaddr  (the PT_LOAD holding off),
 * which is right for PIE, non-PIE and shared objects alike, and for split-code layouts.
 */
#ifndef CPUPROF_ELF_SYMS_H
#define CPUPROF_ELF_SYMS_H
#include <stddef.h>
#include <stdint.h>

struct elf_syms;

/*
 * Read the object open on fd (the fd is not kept and not closed). Returns NULL and sets errno:
 * ENOEXEC if it is not an ELF file, ENOMEM, EIO.
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

/* NULL-safe. */
void elf_syms__free(struct elf_syms *es);

/* File offset -> file virtual address through the PT_LOAD segments. 0, or -ENOENT. */
int elf_syms__offset_to_vaddr(const struct elf_syms *es, uint64_t off, uint64_t *vaddr);

/*
 * The function symbol containing vaddr (addr <= vaddr < addr + size; a symbol of size 0 covers
 * up to the next symbol) and vaddr's offset in it. Among aliases at one address the choice is
 * deterministic: global before weak before local, then the shorter name, then bytewise first.
 * NULL when no symbol covers vaddr. The string is owned by es.
 */
const char *elf_syms__lookup(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off);

/* Number of function symbols indexed. */
size_t elf_syms__count(const struct elf_syms *es);

/* The GNU build-id bytes and their length (0 when the object has none). */
const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *len);

/* ET_EXEC (non-PIE executable) or ET_DYN (PIE or shared object). */
int elf_syms__type(const struct elf_syms *es);

#endif
