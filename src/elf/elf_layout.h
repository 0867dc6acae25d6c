/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a mapping of an ELF object puts the object's virtual addresses: the one translation
 * from a runtime address to the object's "file virtual address" (what nm, addr2line and the
 * unwind tables use), shared by the unwinder (proc_snapshot__for_each_map's vaddr) and the
 * symbolizer (proc_snapshot__map_vaddr).
 *
 * The loader (the kernel for the executable and ld.so, ld.so for libraries) maps each PT_LOAD
 * segment S on its own: file offsets [pagedown(S.offset), S.offset + S.filesz) at
 * bias + pagedown(S.vaddr), so a mapping (start, end, file offset pgoff) made for S holds
 *   vaddr = pc - start + pgoff - S.offset + S.vaddr.
 * The segment is not always the one whose file range holds pgoff: lld, mold and rustc's
 * default linking start the executable segment in the middle of the page where the read-only
 * one ends, with another vaddr - offset (LOAD 0x16a90 0x17a90 R E), so the page at pgoff
 * belongs to both, and the segment that covers it first is the wrong one. The mapping is
 * matched with its segment by what the loader did: the segment's permissions (an executable
 * mapping maps a PF_X segment), a non-PIE (ET_EXEC) object's load bias of 0, the mapping's
 * length within the segment's pages, and the mapping starting at the segment's first page.
 * What this cannot tell apart: a one-page mapping of a page that two executable segments with
 * different vaddr - offset share (no linker here makes one); the first in header order wins.
 */
#ifndef CPUPROF_ELF_LAYOUT_H
#define CPUPROF_ELF_LAYOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The page size the loader aligns segments to: x86-64's. */
#define ELF_LAYOUT_PAGE 4096u

/* One PT_LOAD program header. */
struct elf_load {
	uint64_t offset, filesz; /* p_offset, p_filesz */
	uint64_t vaddr, memsz;	 /* p_vaddr, p_memsz */
	uint32_t flags;		 /* p_flags: PF_R, PF_W, PF_X */
};

/* How a mapping is laid over its object. */
struct elf_map {
	uint64_t start, end; /* runtime addresses */
	uint64_t pgoff;	     /* file offset of start */
	bool exec;	     /* mapped executable */
};

/*
 * The object's vaddr at m->start (a runtime pc in the mapping is at vaddr
 * pc - m->start + *vaddr), for the object with the n PT_LOADs segs; fixed: it is ET_EXEC, so
 * loaded at its link addresses. 0, -EINVAL (NULL arguments, end before start), or -ENOENT when
 * no segment maps the mapping's offset.
 */
int elf_layout_map_vaddr(const struct elf_load *segs, size_t n, bool fixed, const struct elf_map *m,
			 uint64_t *vaddr);

#endif
