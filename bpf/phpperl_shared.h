/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for PHP (Zend, NTS) and Perl (threaded) frames: the offsets
 * and addresses user space finds at attach, the frame record the walkers write and the names
 * they copy while the process lives (so that a script that exits before user space reads its
 * memory is still named). Same rules as bpf/shared.h: fixed-width types, layouts pinned with
 * _Static_assert, no map definitions. Include it after vmlinux.h (BPF) or <linux/types.h>.
 *
 * Facts: ../shared/design/runtimes.md 0-2; every number and where it comes from is in
 * src/interp/php_detect.c and src/interp/pl_detect.c.
 */
#ifndef CPUPROF_PHPPERL_SHARED_H
#define CPUPROF_PHPPERL_SHARED_H

/* Offsets of one PHP version (bytes). */
struct cp_php_offsets {
	__u32 version;		       /* CP_PP_VER(8, 2, 0) */
	__u16 eg_current_execute_data; /* zend_executor_globals.current_execute_data */
	__u16 ed_opline;	       /* zend_execute_data.opline */
	__u16 ed_func;		       /* .func: zend_function* */
	__u16 ed_type_info;	       /* .This.u1.type_info: ZEND_CALL_* flags */
	__u16 ed_prev;		       /* .prev_execute_data */
	__u16 func_name;	       /* zend_function.common.function_name (type u8 at 0) */
	__u16 func_scope;	       /* .common.scope: zend_class_entry* */
	__u16 op_filename;	       /* zend_op_array.filename: zend_string* */
	__u16 op_line_start;	       /* zend_op_array.line_start: u32 */
	__u16 opline_lineno;	       /* zend_op.lineno: u32 */
	__u16 zstr_val;		       /* zend_string.val */
	__u16 ce_name;		       /* zend_class_entry.name: zend_string* */
	__u16 pad0;
};
_Static_assert(sizeof(struct cp_php_offsets) == 32, "cp_php_offsets layout");

/* Zend constants (Zend/zend_compile.h, zend_execute.h of 7.3-8.4; checked against the 8.2
 * headers by scripts/php-offsets-headers.sh). */
#define CP_PHP_INTERNAL_FUNCTION 1
#define CP_PHP_USER_FUNCTION	 2
#define CP_PHP_EVAL_CODE	 4
#define CP_PHP_CALL_TOP		 (1u << 17) /* ZEND_CALL_TOP: the frame C code called */
#define CP_PHP_CALL_CODE	 (1u << 16) /* ZEND_CALL_CODE: file-level code, not a function */

/* What the PHP walker knows of one process (a map value keyed by tgid). */
struct cp_php_proc {
	struct cp_php_offsets off;
	__u64 eg;		    /* &executor_globals (NTS) */
	__u64 exec_start, exec_end; /* execute_ex, for interleaving with native frames */
	__u32 gen, pad;
};
_Static_assert(sizeof(struct cp_php_proc) == 32 + 32, "cp_php_proc layout");

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

/*
 * glibc 2.36 x86_64 thread-specific data (the same as bpf/python_shared.h's CP_PY_GLIBC_TSD_*:
 * struct pthread's specific_1stblock at 0x310, {seq, data} pairs, then the second level at
 * 0x510 in blocks of 32).
 */
#define CP_PL_GLIBC_TSD_FIRST  0x310
#define CP_PL_GLIBC_TSD_SECOND 0x510
#define CP_PL_GLIBC_TSD_BLOCK  32

/* What the Perl walker knows of one process (a map value keyed by tgid). */
struct cp_pl_proc {
	struct cp_pl_offsets off;
	__u64 thr_key;			/* &PL_thr_key (int): the pthread key of my_perl */
	__u64 runops_start, runops_end; /* Perl_runops_standard */
	__u32 gen, pad;
};
_Static_assert(sizeof(struct cp_pl_proc) == 64 + 32, "cp_pl_proc layout");

#define CP_PP_VER(maj, min, patch) (((__u32)(maj) << 16) | ((__u32)(min) << 8) | (__u32)(patch))

/* Frames a walk records at most. */
#define CP_PP_MAX_FRAMES 64

/* One frame as recorded. */
struct cp_pp_frame {
	__u64 ptr;  /* PHP: the zend_function; Perl: the sub's (effective) GV, or the CV of a
		       sub named without a GV (CVf_NAMED: main's subs since 5.22), or for the
		       top-level code the cop_file string's address */
	__u32 line; /* the line running in this frame (0: unknown) */
	__u8 kind;  /* CP_PP_K_* */
	__u8 flags; /* CP_PP_FF_* */
	__u16 pad;
};
_Static_assert(sizeof(struct cp_pp_frame) == 16, "cp_pp_frame layout");
#define CP_PP_K_PHP_USER     1 /* a PHP function or method */
#define CP_PP_K_PHP_INTERNAL 2 /* a function written in C (str_repeat) */
#define CP_PP_K_PHP_CODE     3 /* file-level code: the script, an include */
#define CP_PP_K_PHP_EVAL     4 /* eval()'d code */
#define CP_PP_K_PL_SUB	     5 /* a Perl sub */
#define CP_PP_K_PL_MAIN	     6 /* Perl file-level code */
#define CP_PP_K_PL_CV	     7 /* a Perl sub named by its CV (CVf_NAMED) */
/* The frame C code entered the interpreter loop with (PHP ZEND_CALL_TOP; Perl a sub with no
 * return op, or the main program): a native execute_ex / Perl_runops_standard frame consumes
 * frames up to and including it. */
#define CP_PP_FF_ENTRY 1

/* How a walk ended. */
enum cp_pp_end {
	CP_PP_END_OK = 0,    /* the outermost frame was reached */
	CP_PP_END_NO_PROC,   /* not a known PHP/Perl process (yet) */
	CP_PP_END_NO_STATE,  /* no interpreter state in this thread (yet) */
	CP_PP_END_TRUNCATED, /* more than CP_PP_MAX_FRAMES frames */
	CP_PP_END_READ,	     /* a frame could not be read */
	CP_PP_END_MAX,
};

struct cp_pp_stack {
	__u32 len;
	__u16 end; /* enum cp_pp_end */
	__u16 pad;
	struct cp_pp_frame frames[CP_PP_MAX_FRAMES];
};
_Static_assert(sizeof(struct cp_pp_stack) == 8 + 16 * CP_PP_MAX_FRAMES, "cp_pp_stack layout");

/*
 * A frame's names, copied by BPF the first time the (process, ptr) is seen: kept in a hash map
 * (key struct cp_pp_name_key), so a frame is named even after its process exited. The shape of
 * the runtime layer's struct cp_rt_name: the name composed ("Work::leaf", "{main}"), the file
 * (its tail kept when it is longer), the first line.
 */
#define CP_PP_NAME_LEN 128 /* powers of two: a mask bounds an index */
#define CP_PP_FILE_LEN 256
struct cp_pp_name_key {
	__u32 pid, gen;
	__u64 ptr;
};
_Static_assert(sizeof(struct cp_pp_name_key) == 16, "cp_pp_name_key layout");
struct cp_pp_name {
	__u32 firstline; /* 0: unknown */
	__u16 flags;	 /* CP_PP_NAME_* */
	__u16 runtime;
	char name[CP_PP_NAME_LEN];
	char file[CP_PP_FILE_LEN];
};
_Static_assert(sizeof(struct cp_pp_name) == 8 + CP_PP_NAME_LEN + CP_PP_FILE_LEN, "cp_pp_name");
#define CP_PP_NAME_OK	1 /* name[] holds the function's name */
#define CP_PP_FILE_OK	2 /* file[] holds its file */
#define CP_PP_FILE_CUT	8 /* the file was longer than its field: its tail is kept */
#define CP_PP_DEF_NAMES 16384
/* The parts of a composed name: the scope's first bytes, "::", the function's. */
#define CP_PP_SCOPE_MAX 62
#define CP_PP_FUNC_MAX	64

/* The walkers' test harness (bpf/ppwalk.bpf.c): one ring-buffer record per sample. */
struct cp_pp_event {
	__u32 tid;
	__u32 runtime; /* 1 PHP, 2 Perl */
	struct cp_pp_stack st;
};
_Static_assert(sizeof(struct cp_pp_event) == 8 + sizeof(struct cp_pp_stack), "cp_pp_event");

#endif
