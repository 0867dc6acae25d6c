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

/*
 * glibc x86_64: tcbhead_t.dtv at fsbase + 8; a DTV entry is 16 bytes {pointer val, to_free},
 * indexed by module id; an entry not allocated yet holds TLS_DTV_UNALLOCATED (-1)
 * (interpreters.md 1.1; glibc sysdeps/x86_64/nptl/tls.h, dl-tls.h).
 */
#define CP_RB_GLIBC_TCB_DTV	8
#define CP_RB_GLIBC_DTV_ENTRY	16
#define CP_RB_GLIBC_DTV_UNALLOC (~0ull)

/* What the walker knows of one process's Ruby (a map value keyed by tgid, filled at attach). */
struct cp_rb_proc {
	struct cp_rb_offsets off;
	__u8 ec_mode; /* CP_RB_EC_* */
	__u8 pad0[3];
	__u32 tls_modid; /* CP_RB_EC_TLS_DTV: the module id of the object holding the EC */
	__s64 tls_off;	 /* DTV: ruby_current_ec's offset in the block; TP: from fsbase */
	__u64 ec_global; /* CP_RB_EC_GLOBAL / CP_RB_EC_RACTOR: the variable's address */
	__u64 vm_exec_start, vm_exec_end; /* rb_vm_exec, for interleaving with native frames */
	__u32 gen; /* the generation of the process this is for (cp_proc.gen) */
	__u32 pad1;
};
_Static_assert(sizeof(struct cp_rb_proc) == 72 + 8 + 8 + 8 + 16 + 8, "cp_rb_proc layout");

/* Ruby frames the walker records per sample at most (interpreters.md 5.4). */
#define CP_RB_MAX_FRAMES 128

/* One Ruby frame as recorded. */
struct cp_rb_frame {
	__u64 ptr;  /* ISEQ: the rb_iseq_constant_body; CFUNC: ep[-2], the method entry (or 0) */
	__u32 pos;  /* ISEQ: pc's index in iseq_encoded (words); ~0: unknown */
	__u8 kind;  /* CP_RB_FRAME_* */
	__u8 flags; /* CP_RB_FF_* */
	__u16 pad;
};
_Static_assert(sizeof(struct cp_rb_frame) == 16, "cp_rb_frame layout");
#define CP_RB_FRAME_ISEQ  1 /* a Ruby method, block, class body or top level */
#define CP_RB_FRAME_CFUNC 2 /* a method written in C (Kernel#loop, Integer#times...) */
/* The frame C code entered the VM with (VM_FRAME_FLAG_FINISH): an rb_vm_exec activation's
 * outermost frame; native frames of rb_vm_exec consume Ruby frames up to the next one. */
#define CP_RB_FF_FINISH 1

/* How a Ruby walk ended (cp_rb_stack.end); counted per reason. */
enum cp_rb_end {
	CP_RB_END_OK = 0,    /* the outermost frame was reached */
	CP_RB_END_NO_PROC,   /* the process is not a known Ruby (yet) */
	CP_RB_END_NO_EC,     /* no execution context for this thread: not a Ruby thread (yet) */
	CP_RB_END_TRUNCATED, /* more than CP_RB_MAX_FRAMES frames */
	CP_RB_END_READ,	     /* the EC, a frame or its environment could not be read */
	CP_RB_END_BAD_STACK, /* cfp outside the EC's VM stack */
	CP_RB_END_MAX,
};

/* cp_rb_stack.flags */
#define CP_RB_ST_GVL 1 /* the EC is the GVL holder's (fallback modes), maybe another thread's */

/* The Ruby frames of one sample, innermost first. */
struct cp_rb_stack {
	__u32 len;   /* frames used */
	__u16 end;   /* enum cp_rb_end */
	__u16 flags; /* CP_RB_ST_* */
	__u64 ec;    /* the execution context walked, 0 when none */
	struct cp_rb_frame frames[CP_RB_MAX_FRAMES];
};
_Static_assert(sizeof(struct cp_rb_stack) == 16 + 16 * CP_RB_MAX_FRAMES, "cp_rb_stack layout");
_Static_assert((CP_RB_MAX_FRAMES & (CP_RB_MAX_FRAMES - 1)) == 0, "a mask bounds the index");

/*
 * The profiler's Ruby stacks (rbstacks map: cp_count_key.istack -> this, istack_kind
 * CP_ISTACK_RUBY): a sample's frames and process under a 64-bit hash of them, check a second
 * hash (collision check, as cp_dstack.check).
 */
struct cp_rb_stored {
	__u64 check;
	__u32 pid, gen; /* the process the iseqs belong to (part of the hash) */
	struct cp_rb_stack st;
};
_Static_assert(sizeof(struct cp_rb_stored) == 16 + sizeof(struct cp_rb_stack), "cp_rb_stored");
#define CP_RB_DEF_STACKS 8192

/*
 * The profiler's Ruby counters (per-CPU array rb_stats): one per walk end (enum cp_rb_end,
 * same index), then these.
 */
enum cp_rb_stat {
	CP_RB_STAT_FULL = CP_RB_END_MAX, /* Ruby frames lost: rbstacks map full */
	CP_RB_STAT_COLLISION,		 /* Ruby frames lost: two stacks with one hash */
	CP_RB_STAT_TAILCALL,		 /* the native walk after it could not start */
	CP_RB_STAT_MAX,
};

/* The walker's test harness (bpf/rbwalk.bpf.c): one ring-buffer record per sample. */
struct cp_rb_event {
	__u32 tid;
	__u32 pad;
	struct cp_rb_stack st;
};
_Static_assert(sizeof(struct cp_rb_event) == 8 + sizeof(struct cp_rb_stack), "cp_rb_event");

/* Processes with Ruby the walker knows at once. */
#define CP_RB_DEF_PROCS 1024

#endif
