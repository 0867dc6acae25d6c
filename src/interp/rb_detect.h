/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is an object mapped by a process MRI Ruby itself (libruby-X.Y.so, or a ruby executable
 * linked statically with it), which version, and where are the variables a frame walker
 * starts from. Everything here is read from the file, without touching the process.
 *
 * Detection needs only exported (.dynsym) names, so it works on stripped builds: every MRI
 * 2.6-3.3 exports ruby_version (the "3.1.2" string) and rb_vm_exec (interpreters.md 2.4). The
 * ruby launcher of a shared build only links libruby: its libruby is Ruby here.
 *
 * The sampled thread's execution context is the thread-local ruby_current_ec (3.0+). It lies
 * in the TLS block of the object defining it, at the symbol's st_value; the code of the object
 * reaches it through a GOT slot the dynamic loader fills at load time, which is what this
 * module finds (interpreters.md 2.1, 5.3):
 *   - R_X86_64_DTPMOD64 (general dynamic; Debian's libruby 3.1): the loader writes the
 *     module id there; the block is then DTV[modid] (glibc: *(fsbase + 8) + 16 * modid);
 *   - R_X86_64_TPOFF64 (initial exec): the loader writes the (negative) offset of the
 *     variable from the thread pointer;
 *   - neither, in an executable with PT_TLS (static ruby, local exec): the executable is
 *     TLS module 1 and its block ends at the thread pointer (x86_64 TLS variant II), so the
 *     offset follows from PT_TLS alone (rb_tls_exec_tpoff()).
 * TLSDESC (gnu2) GOT pairs are not decoded: such a build falls back to the GVL holder's EC.
 */
#ifndef CPUPROF_RB_DETECT_H
#define CPUPROF_RB_DETECT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "elf/elf_named.h"

/* Where the version came from. */
enum rb_version_source {
	RB_VER_NONE,
	RB_VER_SYMBOL, /* the exported ruby_version string */
	RB_VER_NAME,   /* the file name: libruby-3.1.so.3.1.2, libruby.so.2.7.8 */
};

/* What one Ruby object says about itself. Addresses are file vaddrs (add the load bias). */
struct rb_object_info {
	uint32_t version; /* CP_RB_VER(major, minor, teeny); 0 when unknown */
	enum rb_version_source source;
	bool stripped;	 /* no .symtab: only exported names were available */
	bool executable; /* ET_EXEC, or ET_DYN with an interpreter (a PIE), not a library */
	/* ruby_current_ec (3.0+) */
	bool has_ec_tls;	  /* the TLS symbol is defined here */
	uint64_t ec_tls_off;	  /* its st_value: offset in this object's TLS block */
	uint64_t ec_dtpmod_got;	  /* GOT slot of its R_X86_64_DTPMOD64, else 0 */
	uint64_t ec_tpoff_got;	  /* GOT slot of its R_X86_64_TPOFF64, else 0 */
	struct elf_named_tls tls; /* PT_TLS (memsz 0: none) */
	/* global fallbacks (the GVL holder's EC) */
	uint64_t ec_ptr;      /* ruby_current_execution_context_ptr (2.6, 2.7), else 0 */
	uint64_t main_ractor; /* ruby_single_main_ractor (3.0+), else 0 */
	uint64_t vm_ptr;      /* ruby_current_vm_ptr, else 0 */
	/* naming C functions: ID -> String */
	uint64_t global_symbols; /* ruby_global_symbols (by name, else decoded), else 0 */
	uint32_t last_op_id;	 /* tLAST_OP_ID read from rb_id2str's code, 0 when not */
	/* the VM's eval loop, for interleaving with native frames */
	uint64_t vm_exec_start, vm_exec_end;
};

/*
 * Decide whether the object open on fd (base name name, for the version from the name) is
 * Ruby. 0 with *info filled; -ENOENT: not Ruby (including the launcher of a shared build);
 * -ENOTSUP: Ruby, but a version this profiler has no offsets for (info says which);
 * -ENOEXEC: not a 64-bit ELF; -ENOMEM.
 */
int rb_detect_object(int fd, const char *name, struct rb_object_info *info);

/* The same on an already opened object. */
int rb_detect_named(const struct elf_named *en, const char *name, struct rb_object_info *info);

/* "3.1.2" -> CP_RB_VER(3, 1, 2); 0 when s (len bytes, maybe NUL-terminated) is not X.Y.Z. */
uint32_t rb_version_parse(const char *s, size_t len);

/* libruby-3.1.so.3.1.2 / libruby.so.2.7.8 / libruby-3.1.so.3.1 -> the version, teeny 0 when
 * the name does not say it; 0 when the name is not libruby's. */
uint32_t rb_version_from_name(const char *name);

/* Whether this version is one the offset table covers (2.6-3.3). */
bool rb_version_supported(uint32_t version);

/*
 * The offset from the thread pointer of a variable at st_value in the TLS block of an
 * executable (TLS module 1, first in the static TLS area, x86_64 variant II: glibc's
 * _dl_determine_tlsoffset for the first module). Negative.
 */
int64_t rb_tls_exec_tpoff(const struct elf_named_tls *tls, uint64_t st_value);

/*
 * Find ruby_global_symbols from rb_id2str's code (code: n bytes at vaddr at, the function and
 * what follows), for stripped builds that do not export it: rb_id2str compares the ID with
 * tLAST_OP_ID (cmp $imm32, %rdi) and jumps to the lookup, which compares the serial with
 * global_symbols.last_id (cmp %reg, disp(%rip)) and loads global_symbols.ids
 * (mov disp(%rip), %reg). The two addresses must lie ids_minus_last_id bytes apart (the
 * offsets table's symbols_ids - symbols_last_id), which rejects a match by chance. target_code
 * is n2 bytes at the jump's target, read by the caller after a first call returned -EAGAIN
 * with *target set. 0 with *symbols and *last_op_id; -EAGAIN (give the target's code);
 * -ENOENT: not the expected shape.
 */
int rb_decode_id2str(const uint8_t *code, size_t n, uint64_t at, const uint8_t *target_code,
		     size_t n2, uint64_t *target, unsigned int ids_minus_last_id, uint64_t *symbols,
		     uint32_t *last_op_id);

/* The Ruby of a process: the object, where it is loaded, what it says. */
struct rb_process {
	struct rb_object_info info;
	uint64_t bias;	   /* runtime address = file vaddr + bias */
	uint64_t dev, ino; /* the object's identity */
	int fd;		   /* owned by the proc_snapshot */
};

struct proc_snapshot;

struct interp_plain;
/*
 * Find Ruby among the executable mappings of (pid, gen) of ps (taken already): the first
 * object that rb_detect_object() accepts (interp_find). With plain (may be NULL), objects in it
 * are not opened, and each object found not to be Ruby is added. 0; -ENOENT: no Ruby there;
 * -ENOTSUP: a Ruby this profiler does not support (out->info says which); -ESRCH, -ENOMEM.
 */
int rb_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct rb_process *out);

#endif
