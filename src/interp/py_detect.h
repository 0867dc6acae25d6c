/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is an object mapped by a process CPython itself (a static interpreter such as Debian's
 * /usr/bin/python3.11, or libpythonX.Y.so), which version, and where are the variables a
 * frame walker starts from. Everything here is read from the file, without touching the
 * process, except py_detect_version_in_process(), which reads sys.version's buffer from the
 * running interpreter when the file does not say the patch level.
 *
 * Detection needs only exported (.dynsym) names, so it works on stripped builds: every CPython
 * 2.7-3.13 exports _PyRuntime (3.7+) or _PyThreadState_Current (2.7, 3.6) and its eval loop
 * (_PyEval_EvalFrameDefault, 3.6+; PyEval_EvalFrameEx, 2.7). The pyenv launcher
 * bin/pythonX.Y, which only links libpython, exports neither and is not CPython here: its
 * libpython is (interpreters.md 1.5). Facts are from ../shared/design/interpreters.md 1.1/1.5.
 */
#ifndef CPUPROF_PY_DETECT_H
#define CPUPROF_PY_DETECT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "elf/elf_named.h"

/* Where the version came from, most reliable first. */
enum py_version_source {
	PY_VER_NONE,
	PY_VER_PY_VERSION,    /* the exported Py_Version u32 (3.11+), read from the file */
	PY_VER_DEBUG_OFFSETS, /* _PyRuntime's _Py_DebugOffsets.version (3.13+), from .data */
	PY_VER_PROCESS,	      /* sys.version's buffer in the running process's .bss/.data */
	PY_VER_NAME,	      /* the file name: libpython3.6m.so.1.0, python3.11 (no patch level) */
};

/* PY_VERSION_HEX: 0x030b07f0 is 3.11.7 final. */
#define PY_HEX(maj, min, mic) (((uint32_t)(maj) << 24) | ((uint32_t)(min) << 16) | ((mic) << 8))
#define PY_HEX_MAJOR(h)	      ((h) >> 24)
#define PY_HEX_MINOR(h)	      (((h) >> 16) & 0xff)
#define PY_HEX_MICRO(h)	      (((h) >> 8) & 0xff)
#define PY_HEX_MINOR_OF(h)    ((h)&0xffff0000u) /* 3.11.x -> 0x030b0000 */

/* What one CPython object says about itself. Addresses are file vaddrs (add the load bias). */
struct py_object_info {
	uint32_t hexversion; /* PY_VERSION_HEX; micro and release level 0 when unknown */
	bool micro_known;    /* the patch level is known (not only from the file name) */
	enum py_version_source source;
	bool stripped;	    /* no .symtab: only exported names were available */
	bool free_threaded; /* a free-threaded (no GIL) build: unsupported */
	uint64_t runtime;   /* _PyRuntime (3.7+), else 0 */
	uint64_t runtime_size;
	uint64_t tstate_current; /* _PyThreadState_Current (2.7, 3.6; the GIL holder), else 0 */
	uint64_t interp_head;	 /* static interp_head (2.7, 3.6; .symtab only), else 0 */
	uint64_t auto_tls_key;	 /* static int autoTLSkey (2.7, 3.6; .symtab only), else 0 */
	uint64_t code_type;	 /* PyCode_Type */
	uint64_t none;		 /* _Py_NoneStruct (3.13 shim frames have f_executable == None) */
	uint64_t eval_start, eval_end; /* the eval loop: _PyEval_EvalFrameDefault or 2.7's */
	uint64_t eval_cold_start, eval_cold_end; /* its .cold part (3.11, 3.12), else 0 */
	int64_t tss_tstate_tlsoff; /* _Py_tss_tstate's offset in the TLS block (3.12+, .symtab
				      only), else -1 */
};

/*
 * Decide whether the object open on fd (base name name, for the version from the name) is
 * CPython. 0 with *info filled; -ENOENT: not CPython (including the shared-build launcher);
 * -ENOTSUP: CPython, but a version this profiler has no offsets for (info says which) or a
 * free-threaded build; -ENOEXEC: not a 64-bit ELF; -ENOMEM.
 */
int py_detect_object(int fd, const char *name, struct py_object_info *info);

/* The same on an already opened object. */
int py_detect_named(const struct elf_named *en, const char *name, struct py_object_info *info);

/* "3.10.13 (main, ..." -> 0x030a0df0; 0 when s does not start with X.Y.Z then a space. */
uint32_t py_version_parse(const char *s, size_t len);

/* libpython3.6m.so.1.0 / python3.11 / python2.7 -> PY_HEX(3, 6, 0) ...; 0 when none. */
uint32_t py_version_from_name(const char *name);

/*
 * Find sys.version's text ("3.7.16 (default, ...") in the writable data of the running process
 * pid, whose object en is loaded with bias (runtime = file vaddr + bias), and set info's patch
 * level from it when it agrees with the minor version already known. 0, -ENOENT (not found),
 * -errno of the reads (-ESRCH: the process is gone).
 */
int py_detect_version_in_process(pid_t pid, const struct elf_named *en, uint64_t bias,
				 struct py_object_info *info);

/* The CPython of a process: the object, where it is loaded, what it says. */
struct py_process {
	struct py_object_info info;
	uint64_t bias;	   /* runtime address = file vaddr + bias */
	uint64_t dev, ino; /* the object's identity */
	int fd;		   /* owned by the proc_snapshot */
};

struct proc_snapshot;

/* Objects known not to be CPython (interp/interp_find.h): not opened again. */
struct interp_plain;

/*
 * Find CPython among the executable mappings of (pid, gen) of ps (taken already), the first
 * object that py_detect_object() accepts, and complete its patch level from the process when
 * the file does not say it. With plain (may be NULL), objects in it are not opened, and each
 * object found not to be CPython is added. 0; -ENOENT: no CPython there; -ENOTSUP: a CPython
 * this profiler does not support (out->info says which); -ESRCH, -ENOMEM.
 */
int py_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct py_process *out);

/* Whether this version is one the offset table covers (2.7, 3.6-3.13). */
bool py_version_supported(uint32_t hexversion);

#endif
