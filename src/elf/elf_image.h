/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF image in memory (the vDSO) opened with libelf: elf_memory() takes a mutable image that
 * it reads lazily and may write to, so it gets a private copy and the caller's memory (the
 * live, read-only vDSO) stays out of its hands.
 */
#ifndef CPUPROF_ELF_IMAGE_H
#define CPUPROF_ELF_IMAGE_H
#include <stddef.h>
#include <libelf.h>

/*
 * Open a copy of the size bytes at image. On success *copy is the copy, to be freed after
 * elf_end(). 0, -EINVAL (image NULL), -ENOEXEC (not ELF), -ENOMEM.
 */
int elf_image_open(const void *image, size_t size, Elf **elf, void **copy);

#endif
