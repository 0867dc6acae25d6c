/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding an interpreter (CPython, MRI Ruby) among the executable objects a process maps: the
 * scan py_detect_process and rb_detect_process share, and the set of objects known not to be
 * a given interpreter, kept across processes so that a system-wide recording opens each
 * object once per interpreter.
 */
#ifndef CPUPROF_INTERP_FIND_H
#define CPUPROF_INTERP_FIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Objects known not to be one interpreter, by identity (dev, ino). The verdict is per object,
 * never per process: the pyenv launcher bin/python3.7 is not CPython, and a process running it
 * is CPython as soon as its libpython3.7m.so is mapped (or a program dlopen()s libpython).
 * One set per interpreter: an object that is not CPython may be Ruby. The set also remembers
 * up to 64 objects found to be the interpreter (or refused, -ENOTSUP) with what detect said of
 * them, by identity and name: the next process that maps one is answered without opening it.
 */
struct interp_plain;

struct interp_plain *interp_plain__new(void);
void interp_plain__free(struct interp_plain *pl);
bool interp_plain__has(const struct interp_plain *pl, uint64_t dev, uint64_t ino);
/* Objects in the set. */
size_t interp_plain__count(const struct interp_plain *pl);

/*
 * Whether the object open on fd, called name in the process (its base name), is the
 * interpreter: 0 with *info filled; -ENOENT or -ENOEXEC: not it; another error: it, but not
 * usable (-ENOTSUP: a version without offsets), or a failure.
 */
typedef int (*interp_detect_fn)(int fd, const char *name, void *info);

/* Where the object found is (its fd is owned by the proc_snapshot). */
struct interp_found {
	uint64_t bias;	   /* runtime address = file vaddr + bias */
	uint64_t dev, ino; /* the object's identity */
	int fd;
};

struct proc_snapshot;
struct elf_named;

/*
 * Run detect (a detection of one interpreter by the object's symbols) on the object open at fd
 * (named name): info (size bytes) zeroed when it cannot be read as ELF. detect's result, or
 * elf_named__open()'s error.
 */
int interp_detect_elf(int fd, const char *name, void *info, size_t size,
		      int (*detect)(const struct elf_named *en, const char *name, void *info));

/*
 * Look at the executable mappings of (pid, gen) of ps (taken already), each object once, and
 * stop at the first one detect does not reject: detect's result then (info and *out filled).
 * With plain (may be NULL), objects in it are not opened, and each object found not to be the
 * interpreter is added. -ENOENT: none (*info zeroed, info_size bytes); -ESRCH, -ENOMEM.
 */
int interp_find(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		interp_detect_fn detect, void *info, size_t info_size, struct interp_found *out);

#endif
