/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the debug information of an ELF object is: separate debug files found by GNU build-id
 * (DEBUGDIR/.build-id/xx/rest.debug) or by .gnu_debuglink (next to the object, in its .debug/
 * subdirectory, and DEBUGDIR/<object's directory>/), checked by build-id or CRC32; MiniDebugInfo
 * (.gnu_debugdata, an xz-compressed ELF image with a symbol table); and which debug sections
 * are compressed with zstd (elfutils before 0.189 cannot read them).
 *
 * Every lookup is done under each root in turn: a process's files are found under
 * /proc/PID/root first and on the host next. Debug directories and roots are parameters, so
 * tests use a temporary tree. Nothing here prints.
 */
#ifndef CPUPROF_DEBUG_FIND_H
#define CPUPROF_DEBUG_FIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* The default global debug directory, as gdb, elfutils and llvm-symbolizer use it. */
#define DEBUG_FIND_DEFAULT_DIR "/usr/lib/debug"
/* The largest debug file read (a browser's is about 3 GiB); anything larger is ignored. */
#define CP_MAX_DEBUG_FILE (8ull << 30)

struct debug_paths {
	/* path prefixes tried in order ("" is the host); NULL: the host only */
	const char *const *roots;
	/* global debug directories, each under every root; NULL: DEBUG_FIND_DEFAULT_DIR */
	const char *const *debug_dirs;
	/* when nothing local is found, ask the debuginfod servers of $DEBUGINFOD_URLS by build-id
	 */
	bool debuginfod;
	/* where to note the first failure to ask them other than "not there" (-errno: a server
	   that cannot be reached, a timeout...), for the caller to tell once; NULL: nowhere */
	int *debuginfod_err;
	/* a directory on disk where compressed debug sections are inflated to, rather than into
	   memory (dwarf_index, elf_unpack.h); NULL: into memory */
	const char *unpack_dir;
};

/* The GNU build-id note of elf: 0 and the bytes (owned by elf), or -ENOENT. */
int debug_build_id(Elf *elf, const uint8_t **id, size_t *len);

/*
 * Open the separate debug file of elf, whose path (as its process sees it; may be NULL) gives
 * the directory for .gnu_debuglink. Returns an fd (O_CLOEXEC, caller closes) and copies the
 * path opened into found, or -ENOENT.
 */
int debug_find_file(Elf *elf, const char *path, const struct debug_paths *dp, char *found,
		    size_t found_size);

/*
 * MiniDebugInfo holds a symbol table, a few MiB at most in real objects; a 78 KB section of
 * a hostile file can inflate to gigabytes. Neither the image nor xz's decoder memory may
 * exceed this.
 */
#define CP_MAX_MINIDEBUG (64u << 20)

/*
 * Decompress .gnu_debugdata. 0 with a malloc'ed ELF image, -ENOENT when there is none,
 * -EINVAL when it does not decompress, -EFBIG when it would exceed CP_MAX_MINIDEBUG (or xz
 * asks for more decoder memory than that), -ENOMEM.
 */
int debug_minidebuginfo(Elf *elf, void **image, size_t *size);

/* True when a .debug_* section of elf is compressed with zstd (SHF_COMPRESSED, ch_type 2). */
bool debug_has_zstd_sections(Elf *elf);

/* True when elf has a .debug_info section (compressed or not). */
bool debug_has_dwarf(Elf *elf);

#endif
