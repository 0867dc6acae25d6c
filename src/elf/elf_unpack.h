/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file whose zlib-compressed sections (SHF_COMPRESSED) are stored inflated, in an
 * unnamed file of a directory on disk: what libdw would otherwise inflate into memory of its
 * own when it opens the file, and keep as long as its handle lives (libc6-dbg's debug file:
 * 8.5 MB of heap for the whole recording). Mapped, those bytes are file pages: read when a
 * lookup needs them and given back (MADV_DONTNEED) like the rest of a debug file.
 */
#ifndef CPUPROF_ELF_UNPACK_H
#define CPUPROF_ELF_UNPACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A copy of the 64-bit little-endian ELF image (size bytes, hostile) in an unnamed file of dir,
 * every zlib-compressed section inflated at the end of it, its header saying so (the flag
 * cleared, the offset and size of the inflated bytes); the sections drop(name) says yes to left
 * out (no name, no bytes: libdw inflates every compressed section it knows). The other
 * sections' bytes are copied where they were; the compressed bytes are not. Returns the file's
 * descriptor (read-write, close-on-exec), or:
 *   -ENOENT   nothing compressed in zlib (nothing to gain);
 *   -ENOEXEC  not a 64-bit little-endian ELF file, or a header out of bounds;
 *   -EINVAL   a compressed section that does not inflate to its stated size, or whose zlib
 *             header is not deflate's (the zlib checksum is not checked: see inflate_at);
 *   -EFBIG    more than max_bytes to write, or more than 4 MiB to copy and more bytes to copy
 *             than to inflate (an object whose code is bigger than its debug information: not
 *             worth a copy);
 *   -EXDEV    dir is in memory (tmpfs, ramfs): the bytes would stay in memory all the same;
 *   -ENOSPC   less than twice the bytes to write free on its file system;
 *   or the -errno of the file system.
 */
int elf_unpack(const void *image, size_t size, const char *dir, uint64_t max_bytes,
	       bool (*drop)(const char *name));

#endif
