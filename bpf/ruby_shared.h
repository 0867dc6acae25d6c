/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for Ruby (MRI) frames: the per-version struct offsets user
 * space gives the walker, the per-process values it finds at attach (how the sampled thread's
 * execution context is reached), the frame record the walker writes. Same rules as
 * bpf/shared.h and bpf/python_shared.h (fixed-width types, layouts pinned with _Static_assert,
 * no map definitions). Include it after vmlinux.h (BPF) or <linux/types.h> (user space).
 *
 * Facts: ../shared/design/interpreters.md 2.1-2.4; the numbers and where each comes from are
 * in src/interp/rb_offsets.c.
 */
#ifndef CPUPROF_RUBY_SHARED_H
#define CPUPROF_RUBY_SHARED_H
#include "runtime_shared.h"

/* An offset the version does not have. */
#define CP_RB_NONE 0xffff

/*
 * Offsets of one Ruby version, bytes, CP_RB_NONE when absent. The walker uses the ec_, cfp_,
 * iseq_ and body_ head fields; the rest serve user space (naming frames).
 */
struct cp_rb_offsets {
	__u32 version; /* CP_RB_VER(major, minor, teeny) the numbers are for */
	/* rb_execution_context_t */
	__u16 ec_vm_stack;	/* VALUE *vm_stack */
	__u16 ec_vm_stack_size; /* size_t, in VALUE words */
	__u16 ec_cfp;		/* the innermost rb_control_frame_t */
	/* rb_control_frame_t */
	__u16 cfp_pc;
	__u16 cfp_iseq;
	__u16 cfp_ep;
	__u16 cfp_size; /* sizeof: frames are an array growing down from the stack's top */
	/* rb_iseq_t, rb_iseq_constant_body */
	__u16 iseq_body;
	__u16 body_iseq_size;	 /* unsigned int, in VALUE words */
	__u16 body_iseq_encoded; /* VALUE *: the instructions */
	__u16 body_location;	 /* rb_iseq_location_t, inline */
	__u16 body_insns_info;	 /* insns_info.body: iseq_insn_info_entry[] */
	__u16 body_insns_size;	 /* insns_info.size: unsigned int */
	__u16 body_succ_index;	 /* insns_info.succ_index_table */
	__u16 loc_pathobj;	 /* String, or Array [path, realpath] */
	__u16 loc_base_label;	 /* String: "spin" */
	__u16 loc_label;	 /* String: "block in spin" */
	__u16 loc_first_lineno;	 /* Fixnum VALUE */
	__u16 insn_info_size;	 /* sizeof(struct iseq_insn_info_entry); line_no (int) at 0 */
	/* RString, RArray */
	__u16 rstring_len;	/* heap strings (and every string from 3.2): long len */
	__u16 rstring_heap_ptr; /* char *ptr of a heap (RSTRING_NOEMBED) string */
	__u16 rstring_embed;	/* the characters of an embedded string */
	__u16 rarray_embed;	/* the elements of an embedded (RARRAY_EMBED_FLAG) array */
	__u16 rarray_heap_ptr;	/* const VALUE *ptr of a heap array */
	/* rb_callable_method_entry_t, rb_method_definition_t */
	__u16 me_def;
	__u16 me_called_id;
	__u16 def_original_id;
	/* rb_symbols_t (ruby_global_symbols), ID -> String */
	__u16 symbols_last_id; /* rb_id_serial_t */
	__u16 symbols_ids;     /* Array of Arrays of ID_ENTRY_UNIT * ID_ENTRY_SIZE VALUEs */
	__u16 last_op_id;      /* tLAST_OP_ID: ids up to it are operators, their own serial */
	/* rb_ractor_t (3.0+) */
	__u16 ractor_running_ec; /* the GVL holder's EC: only the fallback uses it */
	__u16 pad0[3];
};
_Static_assert(sizeof(struct cp_rb_offsets) == 72, "cp_rb_offsets layout");
_Static_assert(__builtin_offsetof(struct cp_rb_offsets, ec_vm_stack) == 4, "cp_rb_offsets head");
_Static_assert(__builtin_offsetof(struct cp_rb_offsets, ractor_running_ec) == 64,
	       "cp_rb_offsets.ractor_running_ec");

/* Object type tags and flags (ruby/internal/value_type.h, fl_type.h; the same 2.6-3.3). */
#define CP_RB_T_MASK	 0x1f
#define CP_RB_T_STRING	 0x05
#define CP_RB_T_ARRAY	 0x07
#define CP_RB_FL_USHIFT	 12
#define CP_RB_FL_USER1	 (1u << (CP_RB_FL_USHIFT + 1)) /* RSTRING_NOEMBED, RARRAY_EMBED_FLAG */
#define CP_RB_T_IMEMO	 0x1a
#define CP_RB_IMEMO_MENT 6 /* imemo_type of a method entry: (flags >> FL_USHIFT) & 0xf */
/* IDs (symbol.c): the serial above tLAST_OP_ID, ID_ENTRY_UNIT ids a sub-array of the
 * symbols table, {String, Symbol} per id */
#define CP_RB_ID_SCOPE_SHIFT	   4 /* RUBY_ID_SCOPE_SHIFT */
#define CP_RB_ID_ENTRY_UNIT	   512
#define CP_RB_ID_ENTRY_SIZE	   2

#define CP_RB_VER(maj, min, teeny) (((__u32)(maj) << 16) | ((__u32)(min) << 8) | (__u32)(teeny))

/*
 * Frame flags in ep[0] (VM_ENV_DATA_INDEX_FLAGS), the same from 2.6 to 3.3 (vm_core.h; checked
 * against Debian 3.1's rb_mjit_min_header). The callable method entry of a C function's frame
 * is ep[-2] (VM_ENV_DATA_INDEX_ME_CREF).
 */
#define CP_RB_FRAME_MAGIC_MASK	0x7fff0001u
#define CP_RB_FRAME_MAGIC_CFUNC 0x55550001u
#define CP_RB_FRAME_FLAG_FINISH 0x0020u /* the frame C code entered the VM with (vm_exec) */
#define CP_RB_FRAME_FLAG_CFRAME 0x0080u /* a C frame: CFUNC, IFUNC, or a dummy */

/* How the walker finds the sampled thread's execution context (cp_rb_proc.ec_mode). */
#define CP_RB_EC_NONE	 0
#define CP_RB_EC_TLS_DTV 1 /* ruby_current_ec through the DTV: *(*(fsbase+8) + 16*modid) + off */
#define CP_RB_EC_TLS_TP	 2 /* ruby_current_ec at fsbase + tls_off (static TLS, tls_off < 0) */
#define CP_RB_EC_GLOBAL	 3 /* *ec_global: 2.6/2.7's ruby_current_execution_context_ptr (GVL) */
#define CP_RB_EC_RACTOR	 4 /* *(*ec_global + running_ec): ruby_single_main_ractor's (GVL) */

/* What the walker knows of one process's Ruby (a map value keyed by tgid, filled at attach). */
struct cp_rb_proc {
	struct cp_rb_offsets off;
	__u8 ec_mode; /* CP_RB_EC_* */
	__u8 pad0[3];
	__u32 tls_modid; /* CP_RB_EC_TLS_DTV: the module id of the object holding the EC */
	__s64 tls_off;	 /* DTV: ruby_current_ec's offset in the block; TP: from fsbase */
	__u64 ec_global; /* CP_RB_EC_GLOBAL / CP_RB_EC_RACTOR: the variable's address */
	__u64 vm_exec_start, vm_exec_end; /* rb_vm_exec, for interleaving with native frames */
	__u32 gen;	  /* the generation of the process this is for (cp_proc.gen) */
	__u32 last_op_id; /* tLAST_OP_ID: ids up to it are their own serial */
	__u64 symbols;	  /* ruby_global_symbols (ID -> name: C methods' names); 0: unknown */
};
_Static_assert(sizeof(struct cp_rb_proc) == 72 + 8 + 8 + 8 + 16 + 8 + 8, "cp_rb_proc layout");
_Static_assert(sizeof(struct cp_rb_proc) <= CP_RT_PROC_DATA, "cp_rb_proc fits cp_rt_proc.data");

#define CP_RB_FRAME_ISEQ  1 /* a Ruby method, block, class body or top level */
#define CP_RB_FRAME_CFUNC 2 /* a method written in C (Kernel#loop, Integer#times...) */
/*
 * cp_rt_frame (runtime_shared.h): ptr the rb_iseq_constant_body (ISEQ) or ep[-2], the method
 * entry (CFUNC, or 0); pos pc's index in iseq_encoded (words), ~0 when unknown; flags
 * CP_RT_FF_ENTRY on the frame C code entered the VM with (VM_FRAME_FLAG_FINISH): an
 * rb_vm_exec activation's outermost frame. cp_rt_stack.ctx: the execution context walked.
 */

/* How a Ruby walk ended (cp_rt_stack.end); counted per reason (rt_stats). */
enum cp_rb_end {
	CP_RB_END_OK = 0,    /* the outermost frame was reached */
	CP_RB_END_NO_PROC,   /* the process is not a known Ruby (yet) */
	CP_RB_END_NO_EC,     /* no execution context for this thread: not a Ruby thread (yet) */
	CP_RB_END_TRUNCATED, /* more than CP_RB_MAX_FRAMES frames */
	CP_RB_END_READ,	     /* the EC, a frame or its environment could not be read */
	CP_RB_END_BAD_STACK, /* cfp outside the EC's VM stack */
	CP_RB_END_MAX,
};
_Static_assert(CP_RB_END_MAX <= CP_RT_END_MAX, "the Ruby ends fit an rt_stats row");

/* cp_rt_stack.flags */
#define CP_RB_ST_GVL 1 /* the EC is the GVL holder's (fallback modes), maybe another thread's */

#endif
