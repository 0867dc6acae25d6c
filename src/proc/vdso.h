/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This process's vDSO image. The kernel maps the same image into every process it runs, so
 * cpuprof's own copy stands for the vDSO of every profiled process: its unwind table or its
 * symbols are built once, from memory, as the vDSO has no file.
 */
#ifndef CPUPROF_VDSO_H
#define CPUPROF_VDSO_H
#include <stddef.h>
#include <stdint.h>

/*
 * The vDSO's ELF image: *image its first byte (getauxval(AT_SYSINFO_EHDR); mapped read-only
 * for the life of the process, never freed), *size its length from its ELF headers. 0;
 * -ENOENT the kernel maps no vDSO; -ENOEXEC the image is not a 64-bit ELF object.
 */
int vdso_image(const void **image, size_t *size);

/*
 * The length of the 64-bit ELF image at image, as far as its headers describe it: the furthest
 * end of the ELF and program headers, the contents of the PT_LOAD segments and of the
 * sections, and the section header table. That is more than the last PT_LOAD's end: the
 * section headers, which libelf needs to find .eh_frame, follow the segments. Nothing past
 * limit bytes is read. 0; -ENOEXEC not a 64-bit ELF image, or one that runs past limit.
 */
int vdso_elf_size(const void *image, size_t limit, size_t *size);

/*
 * The virtual address of the image's first byte, as its program headers say: the p_vaddr of
 * the PT_LOAD at file offset 0 (0 for the x86-64 vDSO); 0 when there is none. size bytes at
 * most are read.
 */
uint64_t vdso_image_vaddr(const void *image, size_t size);

#endif
