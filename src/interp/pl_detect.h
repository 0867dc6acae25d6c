/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perl 5 in a process: is an object Perl (Perl_runops_standard and PL_revision exported:
 * Debian's /usr/bin/perl, which has libperl linked in, or libperl.so), which version (the
 * bytes of PL_revision, PL_version, PL_subversion), the struct offsets of that version, and
 * what the BPF walker needs of the process (bpf/perl_shared.h struct cp_pl_proc). Builds
 * without threads (no PL_thr_key) are refused (-ENOTSUP): their state is in plain globals the
 * walker does not read yet.
 */
#ifndef CPUPROF_PL_DETECT_H
#define CPUPROF_PL_DETECT_H
#include <stdint.h>
#include <linux/types.h>
#include "perl_shared.h"

/* What one Perl object says about itself (file vaddrs). */
struct pl_object_info {
	uint32_t version;		   /* CP_PL_VER(5, 36, 0) */
	uint64_t thr_key;		   /* PL_thr_key */
	uint64_t runops_start, runops_end; /* Perl_runops_standard */
	uint64_t debug_start, debug_end;   /* Perl_runops_debug (0, 0: none) */
};

/* 0 with *info filled; -ENOENT not Perl; -ENOTSUP Perl but not usable; other errno. */
int pl_detect_object(int fd, const char *name, struct pl_object_info *info);

/* The offsets of version (5.28-5.42): 0, or -ENOTSUP. */
int pl_offsets_table(uint32_t version, struct cp_pl_offsets *off);

struct proc_snapshot;
struct interp_plain;

/* The Perl of (pid, gen): out filled for BPF. 0, -ENOENT, -ENOTSUP, other negative errno. */
int pl_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_pl_proc *out);

#endif
