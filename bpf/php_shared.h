/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for PHP (Zend engine, NTS builds): the offsets and addresses
 * user space finds at attach (struct cp_php_proc, the runtime layer's cp_rt_proc.data), the
 * frame kinds and walk ends of bpf/php_walk.bpf.h. Frames, stacks and names are the runtime
 * layer's (runtime_shared.h). Same rules as bpf/shared.h. Include it after vmlinux.h (BPF) or
 * <linux/types.h> (user space).
 *
 * Facts: ../shared/design/runtimes.md 0-1; every number and where it comes from is in
 * src/interp/php_detect.c (scripts/php-offsets-headers.sh checks them against the headers).
 */
#ifndef CPUPROF_PHP_SHARED_H
#define CPUPROF_PHP_SHARED_H
#include "runtime_shared.h"

#define CP_PHP_VER(maj, min, patch) (((__u32)(maj) << 16) | ((__u32)(min) << 8) | (__u32)(patch))

/* Offsets of one PHP version (bytes). */
struct cp_php_offsets {
	__u32 version;		       /* CP_PHP_VER(8, 2, 36) */
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

_Static_assert(sizeof(struct cp_php_proc) <= CP_RT_PROC_DATA, "cp_php_proc fits cp_rt_proc.data");

/* Frame kinds (cp_rt_frame.kind); pos is the line running in the frame (0: unknown). */
#define CP_PHP_FRAME_USER     1 /* a PHP function or method: ptr its zend_function */
#define CP_PHP_FRAME_INTERNAL 2 /* a function written in C (str_repeat) */
#define CP_PHP_FRAME_CODE     3 /* file-level code: the script ({main}, entered from C), an include */
#define CP_PHP_FRAME_EVAL     4 /* eval()'d code */

/* Frames a walk records at most: the runtime layer's. */
#define CP_PHP_MAX_FRAMES CP_RT_MAX_FRAMES

/* How a PHP walk ended (cp_rt_stack.end), counted per reason. */
enum cp_php_end {
	CP_PHP_END_OK = 0,    /* the outermost frame was reached */
	CP_PHP_END_NO_PROC,   /* not a known PHP process (yet) */
	CP_PHP_END_NO_STATE,  /* no execute_data: not running a script (yet, any more) */
	CP_PHP_END_TRUNCATED, /* more than CP_PHP_MAX_FRAMES frames */
	CP_PHP_END_READ,      /* a frame could not be read */
	CP_PHP_END_MAX,
};
_Static_assert(CP_PHP_END_MAX <= CP_RT_END_MAX, "the PHP ends fit an rt_stats row");

#endif
