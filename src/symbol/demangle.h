/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Demangling of C++ (Itanium), Rust legacy (_ZN...17h<hash>E) and Rust v0 (_R...) names with
 * libiberty's streaming demanglers, plus a cache keyed by the name's address: the names come
 * from .debug_str, .strtab and .dynstr, which stay mapped as long as their object is open, so
 * one pointer is one name.
 *
 * Bounded, because a name is whatever a user put in a binary: a few hundred bytes of
 * back-references ask for gigabytes of text (each substitution doubling the last), or for
 * exponential work that prints nothing (a pack expansion whose pattern is such a tree). A name
 * is demangled only when its mangled form has at most DEMANGLE_MAX_MANGLED bytes, its
 * demangled form at most DEMANGLE_MAX_LEN, and the demangler needs at most DEMANGLE_MAX_CPU_MS
 * of the thread's CPU time for it; otherwise it keeps its mangled form. The output is counted
 * as libiberty hands it over and abandoned (longjmp) at the cap; the time by a thread CPU-time
 * timer whose signal abandons it the same way (safe: with a callback, libiberty's demanglers
 * keep everything on the stack and take no lock, checked on libiberty 20230104).
 */
#ifndef CPUPROF_DEMANGLE_H
#define CPUPROF_DEMANGLE_H
#include <stddef.h>

#define DEMANGLE_MAX_MANGLED 8192 /* bytes; also bounds libiberty's stack arrays (~80 B each) */
#define DEMANGLE_MAX_LEN     8192 /* bytes of the demangled name */
#define DEMANGLE_MAX_CPU_MS  20	  /* per name */

/*
 * The demangled form of name, malloc'ed, or NULL with errno: ENOENT when name is not a
 * mangled name libiberty understands, E2BIG when it is over one of the caps above, ENOMEM.
 * Rust legacy names lose their hash, as rustfilt prints them. Thread-safe.
 */
char *demangle(const char *name);

struct demangle_cache;

/* Returns NULL and sets errno. */
struct demangle_cache *demangle_cache__new(void);

/* NULL-safe; frees every string handed out. */
void demangle_cache__free(struct demangle_cache *dc);

/*
 * The demangled name for the string at name (which must stay valid and unchanged as long as
 * the cache lives), or name itself when it is not mangled, over a cap, or on ENOMEM. Never
 * NULL for a non-NULL name. The result is owned by the cache.
 */
const char *demangle_cache__get(struct demangle_cache *dc, const char *name);

#endif
