// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include "elf/elf_layout.h"

static uint64_t page_down(uint64_t x)
{
	return x & ~(uint64_t)(ELF_LAYOUT_PAGE - 1);
}

/*
 * How well segment s explains mapping m, -1 when it cannot have made it; *v gets the vaddr at
 * m->start. The loader's facts, strongest first: an executable mapping maps an executable
 * segment; a fixed object is mapped at its link addresses; the mapping lies within the pages
 * of the segment's file part; it starts at the segment's first page (a mapping that starts
 * further in was split off by mprotect, as RELRO does).
 */
static int score(const struct elf_load *s, bool fixed, const struct elf_map *m, uint64_t *v)
{
	uint64_t first = page_down(s->offset), fend = s->offset + s->filesz, vlo, vend;
	int sc = 0;

	/* nothing of the file is mapped for it (all .bss), or pgoff is outside its file range */
	if (!s->filesz || fend < s->offset || m->pgoff < first || m->pgoff >= fend)
		return -1;
	/* the loader maps pagedown(vaddr) at the page of pgoff: vaddr and offset agree mod page */
	if ((s->vaddr - s->offset) % ELF_LAYOUT_PAGE)
		return -1;
	/* a page before the segment's start mapped below address 0: not a real layout */
	if (m->pgoff < s->offset && s->vaddr < s->offset - m->pgoff)
		return -1;
	*v = s->vaddr - s->offset + m->pgoff;
	if (m->exec == !!(s->flags & PF_X))
		sc += 8;
	if (fixed && *v == m->start)
		sc += 4;
	vlo = page_down(s->vaddr);
	vend = s->vaddr + s->filesz;
	if (vend >= s->vaddr && m->end - m->start <= vend - *v + ELF_LAYOUT_PAGE - 1 && *v >= vlo)
		sc += 2;
	if (m->pgoff == first)
		sc += 1;
	return sc;
}

int elf_layout_map_vaddr(const struct elf_load *segs, size_t n, bool fixed, const struct elf_map *m,
			 uint64_t *vaddr)
{
	int best = -1, sc;
	uint64_t v;

	if (!segs || !m || !vaddr || m->end < m->start)
		return -EINVAL;
	/* the first segment among the best explains the mapping: header order breaks ties */
	for (size_t i = 0; i < n; i++) {
		sc = score(&segs[i], fixed, m, &v);
		if (sc > best) {
			best = sc;
			*vaddr = v;
		}
	}
	return best < 0 ? -ENOENT : 0;
}
