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
 *
 * And bounded in total, because one binary can hold thousands of distinct such names, each
 * worth the per-name cap (10,000 work bombs: 200 s). Every name's demangler CPU time beyond
 * DEMANGLE_FREE_US (more than ordinary names take: a few microseconds each, tens for the
 * longest) is added to one process-wide counter. Once it passes DEMANGLE_BUDGET_MS, names are
 * still tried, but with DEMANGLE_LATE_CPU_US as their CPU cap (ordinary names stay far below
 * it, so they keep being demangled); once it passes DEMANGLE_BUDGET_MS +
 * DEMANGLE_LATE_BUDGET_MS, no name is tried any more for the rest of the process. The
 * demangler's total CPU time is so at most the two budgets, plus one per-name cap and one
 * scheduler tick (the CPU-time timer fires at a tick) per thread racing past them, plus
 * DEMANGLE_FREE_US per name. demangle_stats() counts the names kept mangled for each reason.
 */
#ifndef CPUPROF_DEMANGLE_H
#define CPUPROF_DEMANGLE_H
#include <stddef.h>

#define DEMANGLE_MAX_MANGLED 8192 /* bytes; also bounds libiberty's stack arrays (~80 B each) */
#define DEMANGLE_MAX_LEN     8192 /* bytes of the demangled name */
#define DEMANGLE_MAX_CPU_MS  20	  /* per name */
/*
 * The total (see above): 1 s, 50 names at the full cap, is a small part of a recording's
 * naming and far more than all ordinary names of a large program use; 1 ms (in effect the
 * next scheduler tick: 4 ms at HZ=250) then stops a work bomb 2 to 20 times sooner and is
 * still far over what the longest ordinary names take; the second second lets 100 to 1000
 * more costly names be tried before demangling stops.
 */
#define DEMANGLE_FREE_US	50   /* per name, not counted */
#define DEMANGLE_BUDGET_MS	1000 /* counted CPU at the full per-name cap */
#define DEMANGLE_LATE_CPU_US	1000 /* the per-name cap after DEMANGLE_BUDGET_MS */
#define DEMANGLE_LATE_BUDGET_MS 1000 /* more counted CPU, then no more demangling */

/*
 * The demangled form of name, malloc'ed, or NULL with errno: ENOENT when name is not a
 * mangled name libiberty understands, E2BIG when it is over one of the caps above (or both budgets
 * are spent), ENOMEM. Rust legacy names lose their hash, as rustfilt prints them. Thread-safe.
 */
char *demangle(const char *name);

/*
 * The names demangle() kept mangled, by reason, since the process started: one per call, so a
 * name looked up from two tables (.symtab and DWARF, each with its cache) counts twice.
 */
struct demangle_stats {
	unsigned long long over_mangled;  /* mangled form over DEMANGLE_MAX_MANGLED */
	unsigned long long over_len;	  /* demangled form over DEMANGLE_MAX_LEN */
	unsigned long long over_cpu;	  /* stopped at DEMANGLE_MAX_CPU_MS */
	unsigned long long over_late_cpu; /* stopped at DEMANGLE_LATE_CPU_US (first budget spent) */
	unsigned long long refused;	  /* not tried: both budgets spent */
	unsigned long long spent_ns;	  /* the CPU time counted against the budgets */
};

/* The counts so far; thread-safe (each field read atomically, not all at one instant). */
void demangle_stats(struct demangle_stats *st);

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
