/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for Perl 5 (threaded builds): the offsets and addresses user
 * space finds at attach (struct cp_pl_proc, the runtime layer's cp_rt_proc.data), the frame
 * kinds and walk ends of bpf/perl_walk.bpf.h. Frames, stacks and names are the runtime layer's
 * (runtime_shared.h). Same rules as bpf/shared.h. Include it after vmlinux.h (BPF) or
 * <linux/types.h> (user space).
 *
 * Facts: ../shared/design/runtimes.md 0, 2; every number and where it comes from is in
 * src/interp/pl_detect.c (scripts/perl-offsets-headers.sh checks them against perl.h).
 */
#ifndef CPUPROF_PERL_SHARED_H
#define CPUPROF_PERL_SHARED_H
#include "runtime_shared.h"

#define CP_PL_VER(maj, min, patch) (((__u32)(maj) << 16) | ((__u32)(min) << 8) | (__u32)(patch))

/* Offsets of one Perl version (bytes). */
struct cp_pl_offsets {
	__u32 version;
	__u16 interp_curcop;	      /* PerlInterpreter.Icurcop */
	__u16 interp_curstackinfo;    /* .Icurstackinfo */
	__u16 si_cxstack;	      /* PERL_SI.si_cxstack */
	__u16 si_prev;		      /* .si_prev: the stackinfo this one was pushed over */
	__u16 si_cxix;		      /* .si_cxix: I32 */
	__u16 si_type;		      /* .si_type: I32 */
	__u16 cx_size;		      /* sizeof(PERL_CONTEXT); cx_type (u8) at 0 */
	__u16 cx_oldcop;	      /* .blk_oldcop */
	__u16 cx_retop;		      /* .blk_sub.retop */
	__u16 cx_cv;		      /* .blk_sub.cv */
	__u16 cop_line;		      /* COP.cop_line: u32 */
	__u16 cop_file;		      /* COP.cop_file: char* (ithreads) */
	__u16 sv_any, sv_flags, sv_u; /* SV head */
	__u16 xcv_stash;	      /* XPVCV.xcv_stash: a CVf_NAMED sub's package */
	__u16 xcv_gv;		      /* XPVCV.xcv_gv_u: the GV, or a CVf_NAMED sub's name HEK */
	__u16 xcv_flags;	      /* XPVCV.xcv_flags: u32 */
	__u16 gp_egv;		      /* GP.gp_egv */
	__u16 gp_cv;		      /* GP.gp_cv */
	__u16 xcv_file;		      /* XPVCV.xcv_file: char* */
	__u16 xgv_namehek;	      /* XPVGV.xiv_u.xivu_namehek */
	__u16 xgv_stash;	      /* XPVGV.xnv_u.xgv_stash */
	__u16 xhv_aux;		      /* the aux struct in the HV body (5.35+: xpvhv_with_aux),
					 CP_PL_AUX_AFTER_BUCKETS before */
	__u16 xhv_max;		      /* XPVHV.xhv_max: the aux struct follows the buckets */
	__u16 aux_name;		      /* xpvhv_aux.xhv_name_u: HEK* or HEK** */
	__u16 aux_name_count;	      /* xpvhv_aux.xhv_name_count: I32 */
	__u16 hek_key;		      /* HEK.hek_key */
};
_Static_assert(sizeof(struct cp_pl_offsets) == 60, "cp_pl_offsets layout");

/* Perl constants (cop.h, sv.h, cv.h of 5.28-5.42; checked against the 5.36 headers by
 * scripts/perl-offsets-headers.sh). */
#define CP_PL_CXTYPEMASK	0xf
#define CP_PL_CXt_SUB		9
#define CP_PL_CXt_FORMAT	10
#define CP_PL_CXp_SUB_RE_FAKE	0x80
#define CP_PL_SVt_MASK		0x1f
#define CP_PL_SVt_PVGV		9
#define CP_PL_SVt_PVCV		13
#define CP_PL_SVpgv_GP		0x8000
#define CP_PL_CVf_NAMED		0x8000
#define CP_PL_PERLSI_MAIN	1
#define CP_PL_AUX_AFTER_BUCKETS 0xffff
#define CP_PL_SVf_OOK		0x02000000 /* SVf_OOK on an HV: it has the aux struct */

/* What the Perl walker knows of one process (a map value keyed by tgid). */
struct cp_pl_proc {
	struct cp_pl_offsets off;
	__u64 thr_key;			/* &PL_thr_key (int): the pthread key of my_perl */
	__u64 runops_start, runops_end; /* Perl_runops_standard */
	__u32 gen, pad;
	__u64 debug_start, debug_end; /* Perl_runops_debug (perl -d, Devel::*), 0 when none */
};
_Static_assert(sizeof(struct cp_pl_proc) == 64 + 48, "cp_pl_proc layout");

_Static_assert(sizeof(struct cp_pl_proc) <= CP_RT_PROC_DATA, "cp_pl_proc fits cp_rt_proc.data");

/* Frame kinds (cp_rt_frame.kind); pos is the line running in the frame (0: unknown). */
#define CP_PL_FRAME_SUB	 1 /* a sub: ptr its (effective) GV */
#define CP_PL_FRAME_CV	 2 /* a sub named without a GV (CVf_NAMED: main's since 5.22): ptr its CV */
#define CP_PL_FRAME_MAIN 3 /* file-level code: ptr the cop's file name string */

/* Frames a walk records at most: the runtime layer's. */
#define CP_PL_MAX_FRAMES CP_RT_MAX_FRAMES

/* How a Perl walk ended (cp_rt_stack.end), counted per reason. */
enum cp_pl_end {
	CP_PL_END_OK = 0,    /* the main program's file-level code was reached */
	CP_PL_END_NO_PROC,   /* not a known Perl process (yet) */
	CP_PL_END_NO_STATE,  /* no interpreter for this thread (yet) */
	CP_PL_END_TRUNCATED, /* more frames or contexts than a walk looks at */
	CP_PL_END_READ,	     /* a context or stackinfo could not be read */
	CP_PL_END_MAX,
};
_Static_assert(CP_PL_END_MAX <= CP_RT_END_MAX, "the Perl ends fit an rt_stats row");

#endif
