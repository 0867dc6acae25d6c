// SPDX-License-Identifier: GPL-2.0
/* The ELF symbol reader on any image, then lookups across its address range. */
#include "elf/elf_syms.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *es = elf_syms__from_mem(data, size);
	uint64_t off, vaddr;
	size_t len;

	if (!es)
		return 0;
	for (uint64_t a = 0; a < 0x10000; a += 0x333)
		elf_syms__lookup(es, a, &off);
	elf_syms__find(es, 0x401000);
	elf_syms__offset_to_vaddr(es, 0x1000, &vaddr);
	/* the mapping -> vaddr translation over whatever program headers the image has */
	for (uint64_t pgoff = 0; pgoff < 0x4000; pgoff += 0x1000) {
		struct elf_map m = {0x7f0000000000, 0x7f0000003000, pgoff, true};

		elf_syms__map_vaddr(es, &m, &vaddr);
		m.exec = false;
		elf_syms__map_vaddr(es, &m, &vaddr);
	}
	elf_syms__build_id(es, &len);
	elf_syms__free(es);
	return 0;
}
