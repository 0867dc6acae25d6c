/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Demangling of C++ (Itanium), Rust legacy (_ZN...17h<hash>E) and Rust v0 (_R...) names with
 * libiberty's cplus_demangle, plus a cache keyed by the name's address: the names come from
 * .debug_str, .strtab and .dynstr, which stay mapped as long as their object is open, so one
 * pointer is one name.
 */
#ifndef CPUPROF_DEMANGLE_H
#define CPUPROF_DEMANGLE_H
#include <stddef.h>

/*
 * The demangled form of name, malloc'ed, or NULL (errno ENOENT) when name is not a mangled
 * name libiberty understands; NULL with errno ENOMEM on allocation failure. Rust legacy names
 * lose their hash, as rustfilt prints them.
 */
char *demangle(const char *name);

struct demangle_cache;

/* Returns NULL and sets errno. */
struct demangle_cache *demangle_cache__new(void);

/* NULL-safe; frees every string handed out. */
void demangle_cache__free(struct demangle_cache *dc);

/*
 * The demangled name for the string at name (which must stay valid and unchanged as long as
 * the cache lives), or name itself when it is not mangled or on ENOMEM. Never NULL for a
 * non-NULL name. The result is owned by the cache.
 */
const char *demangle_cache__get(struct demangle_cache *dc, const char *name);

#endif
