/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named symbols of any type (data objects, TLS variables, functions) of one ELF object, looked
 * up by name, and the file bytes behind a virtual address. elf_syms indexes functions by
 * address for naming PCs; interpreter support instead needs a few well-known variables by
 * name (CPython's _PyRuntime, Py_Version, PyCode_Type) and their initial contents. Lookups scan
 * the tables each time: callers ask for a handful of names per object.
 */
#ifndef CPUPROF_ELF_NAMED_H
#define CPUPROF_ELF_NAMED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_named;

struct elf_named_sym {
	uint64_t value; /* st_value: file vaddr, or the offset in the TLS block for STT_TLS */
	uint64_t size;	/* st_size */
	uint8_t type;	/* STT_* */
	uint8_t bind;	/* STB_* */
	bool dynamic;	/* found in .dynsym (else .symtab) */
	bool nobits;	/* in a SHT_NOBITS section (.bss, .tbss): no bytes in the file */
	uint16_t shndx; /* st_shndx */
};

/*
 * Open the object on fd (kept by the caller, open for the life of the result; not closed).
 * 0, -ENOEXEC (not ELF, or not 64-bit), -ENOMEM, -ESTALE (the file shrank while read). The
 * file stays mapped, guarded (elf/elf_file.h): once it shrinks under a read, every function
 * below that answers an int answers -ESTALE, elf_named__needs false.
 */
int elf_named__open(int fd, struct elf_named **out);

/* NULL-safe. */
void elf_named__free(struct elf_named *en);

/*
 * The defined symbol called name: .dynsym first (through its GNU hash table when it has one),
 * then .symtab (a pass). 0, or -ENOENT. A versioned dynamic name matches without its "@VERSION"
 * (the string table does not carry it).
 */
int elf_named__sym(const struct elf_named *en, const char *name, struct elf_named_sym *sym);

/*
 * len bytes of the file at vaddr, from the allocated section holding them all. 0, -ENOENT (no
 * section holds [vaddr, vaddr+len)), -ENODATA (the section is NOBITS: zero in the file, only
 * the process has its value), -EIO.
 */
int elf_named__read(const struct elf_named *en, uint64_t vaddr, void *buf, size_t len);

/* The [start, end) vaddr range of the section called name. 0, or -ENOENT. */
int elf_named__section(const struct elf_named *en, const char *name, uint64_t *start,
		       uint64_t *end);

/* Whether a DT_NEEDED entry of the object starts with prefix ("libpython"). */
bool elf_named__needs(const struct elf_named *en, const char *prefix);

/* Whether the object has a .symtab (not stripped). */
bool elf_named__has_symtab(const struct elf_named *en);

/* The object's TLS segment (PT_TLS): its vaddr, size in memory and alignment. */
struct elf_named_tls {
	uint64_t vaddr, memsz, align;
};

/* 0 with *tls filled, or -ENOENT (no PT_TLS). */
int elf_named__tls(const struct elf_named *en, struct elf_named_tls *tls);

/*
 * The first dynamic relocation (SHT_RELA against .dynsym) of type rtype (R_X86_64_DTPMOD64...)
 * whose symbol is called name: its r_offset (the GOT slot, a file vaddr) and addend. 0, or
 * -ENOENT. How a variable of another module's TLS block is reached: the loader writes the
 * module id (DTPMOD64) or the offset from the thread pointer (TPOFF64) there.
 */
int elf_named__reloc(const struct elf_named *en, const char *name, uint32_t rtype, uint64_t *offset,
		     int64_t *addend);

/* ET_EXEC or ET_DYN (ET_NONE when unknown). */
int elf_named__type(const struct elf_named *en);

#endif
