/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for V8 (node): the frame-slot offsets, instance types and
 * field offsets user space reads from the binary's postmortem metadata (the v8dbg_* symbols)
 * at attach (struct cp_v8_proc, the runtime layer's cp_rt_proc.data), the frame kinds and
 * walk ends of bpf/v8_walk.bpf.h. Frames, stacks and names are the runtime layer's
 * (runtime_shared.h). Same rules as bpf/shared.h. Include it after vmlinux.h (BPF) or
 * <linux/types.h> (user space).
 *
 * Facts: ../shared/design/runtimes.md 0, 4, 7; where each number comes from is in
 * src/interp/v8_detect.c (tests/unit/test_v8_detect.c checks them on the machine's node).
 */
#ifndef CPUPROF_V8_SHARED_H
#define CPUPROF_V8_SHARED_H
#include "runtime_shared.h"

#define CP_V8_VER(maj, min, build) (((__u32)(maj) << 24) | ((__u32)(min) << 16) | (__u32)(build))

/* What the walker and the namer read of V8's objects (bytes, from the v8dbg_* metadata). */
struct cp_v8_offsets {
	__u32 version; /* CP_V8_VER */
	/* frame slots, relative to the frame pointer (v8dbg_off_fp_*) */
	__s16 fp_marker;	  /* the context, or a SMI frame-type marker: off_fp_context */
	__s16 fp_function;	  /* the JSFunction: off_fp_function */
	__s16 fp_bytecode_offset; /* an interpreted frame's bytecode offset (a SMI: from the
				     BytecodeArray's tagged address) */
	__s16 fp_bytecode_array;  /* an interpreted or baseline frame's BytecodeArray */
	__u16 map;		  /* HeapObject.map */
	__u16 map_instance_type;  /* Map.instance_type: u16 */
	__u16 jsfunc_shared;	  /* JSFunction.shared */
	__u16 sfi_name;		  /* SharedFunctionInfo.name_or_scope_info */
	__u16 sfi_script;	  /* SharedFunctionInfo.script_or_debug_info */
	__u16 script_name;	  /* Script.name */
	__u16 string_length;	  /* String.length: i32 */
	__u16 seq_chars;	  /* SeqOneByteString.chars (two-byte: the same) */
	__u16 cons_first;	  /* ConsString.first */
	__u16 cons_second;	  /* ConsString.second */
	__u16 thin_actual;	  /* ThinString.actual */
	__u16 type_jsfunc_first;  /* JSFunction instance types [first, last] */
	__u16 type_jsfunc_last;
	__u16 type_sfi;		    /* SHARED_FUNCTION_INFO_TYPE */
	__u16 type_script;	    /* SCRIPT_TYPE */
	__u16 type_bytecode;	    /* BYTECODE_ARRAY_TYPE */
	__u16 type_scope_info;	    /* SCOPE_INFO_TYPE */
	__u16 first_nonstring;	    /* FirstNonstringType: strings are below */
	__u16 script_line_ends;	    /* Script.line_ends: a FixedArray of SMIs, or undefined */
	__u16 fixed_length;	    /* FixedArrayBase.length: a SMI */
	__u16 fixed_data;	    /* FixedArray.data: the first element */
	__u16 type_fixed_array;	    /* FIXED_ARRAY_TYPE */
	__u16 script_source;	    /* Script.source: a String */
	__u16 ext_resource;	    /* ExternalString.resource; its cached data pointer follows */
	__u16 type_ext_one_byte;    /* EXTERNAL_ONE_BYTE_STRING_TYPE (cached: its data kept) */
	__u16 sfi_function_data;    /* SharedFunctionInfo.function_data: a SMI for a builtin */
	__u16 bytecode_data;	    /* BytecodeArray.data: its first bytecode */
	__u16 bytecode_spt;	    /* BytecodeArray.source_position_table (a ByteArray, or
				       undefined until V8 collects it); 0: not known, no lines */
	__u16 type_byte_array;	    /* BYTE_ARRAY_TYPE (its bytes at fixed_data, FixedArray's) */
	__u16 jsfunc_code;	    /* JSFunction.code: its Code; 0: optimized code not read */
	__u8 string_enc_mask;	    /* StringEncodingMask */
	__u8 string_repr_mask;	    /* StringRepresentationMask */
	__u8 one_byte_tag;	    /* OneByteStringTag (the encoding bit set: one byte a char) */
	__u8 seq_tag;		    /* SeqStringTag */
	__u8 cons_tag;		    /* ConsStringTag */
	__u8 thin_tag;		    /* ThinStringTag */
	__u8 scope_first_vars;	    /* scopeinfo_idx_first_vars: slots before the context locals */
	__u8 scope_ncontext;	    /* scopeinfo_idx_ncontextlocals: the slot of their count */
	__u8 heap_tag;		    /* HeapObjectTag */
	__u8 heap_tag_mask;	    /* HeapObjectTagMask */
	__u8 smi_shift;		    /* SmiShiftSize + kSmiTagSize: a SMI's value is word >> this */
	__u8 frame_entry;	    /* frametype_EntryFrame */
	__u8 frame_construct_entry; /* frametype_ConstructEntryFrame */
	/* optimized code (Maglev, TurboFan): its Code's kind, source positions and deoptimization
	   data, for the line running and the functions inlined (used when jsfunc_code is set) */
	__u8 kind_mask;	       /* CodeKindFieldMask (of Code.flags) */
	__u8 kind_shift;       /* CodeKindFieldShift */
	__u8 kind_baseline;    /* CodeKindBaseline: kinds above it are optimized code */
	__u16 type_code;       /* CODE_TYPE */
	__u16 type_weak_fixed; /* WEAK_FIXED_ARRAY_TYPE (the deoptimization literals) */
	__u16 code_deopt;      /* Code.deoptimization_data: a FixedArray (DeoptimizationData) */
	__u16 code_spt;	       /* Code.source_position_table: a ByteArray (pc offsets) */
	__u16 code_start;      /* Code.instruction_start: the address of its first instruction */
	__u16 code_flags;      /* Code.flags: u32, its kind in kind_mask */
	__u16 code_size;       /* Code.instruction_size: i32 */
	__u8 deopt_count;      /* DeoptimizationDataInlinedFunctionCountIndex */
	__u8 deopt_literals;   /* DeoptimizationDataLiteralArrayIndex */
	__u8 deopt_inlining;   /* DeoptimizationDataInliningPositionsIndex */
	__u8 pad[3];
};
_Static_assert(sizeof(struct cp_v8_offsets) == 108, "cp_v8_offsets layout");

/* V8's code ranges in a process at most (an isolate each: the main thread's, workers'). */
#define CP_V8_CODE_RANGES 3

/*
 * What the V8 frame reader knows of one process (a map value keyed by tgid). Its code, the
 * JIT code range hook's ranges: node's embedded builtins (Builtins_* in its .text), then
 * each code range (the anonymous executable memory an isolate compiles into and the
 * reservation it grows in).
 */
struct cp_v8_proc {
	struct cp_v8_offsets off;
	__u32 gen;
	__u32 n_code;  /* code[] used */
	__u64 obj_ino; /* the inode of the object V8 is in (user space: its copies' mappings) */
	struct cp_rt_jit_range builtins;
	struct cp_rt_jit_range code[CP_V8_CODE_RANGES];
};
_Static_assert(sizeof(struct cp_v8_proc) == 128 + 16 * (1 + CP_V8_CODE_RANGES),
	       "cp_v8_proc layout");
_Static_assert(1 + CP_V8_CODE_RANGES <= CP_RT_JIT_RANGES, "V8's ranges fit the hook's");
_Static_assert(sizeof(struct cp_v8_proc) <= CP_RT_PROC_DATA, "cp_v8_proc fits cp_rt_proc.data");

/*
 * Frame kinds (cp_rt_frame.kind). CP_V8_FRAME_JS: a JS function, ptr its SharedFunctionInfo
 * (tagged), pos 1 + the script position (UTF-16 units) of the bytecode an interpreted frame
 * runs (its BytecodeArray's source position table at its bytecode offset) or of the code an
 * optimized frame runs at its pc (its Code's table; the functions inlined there are frames of
 * their own, CP_RT_FF_INLINED), ~0 when not known (baseline frames, a table V8 has not
 * collected, longer than CP_V8_SPT_MAX).
 */
#define CP_V8_FRAME_JS 1

/* Characters of a name BPF follows through cons strings at most (first, then second). */
#define CP_V8_CONS_DEPTH 4
/* ScopeInfo slots the namer looks at for the function's name (as OTel's analyzeScopeInfo). */
#define CP_V8_SCOPE_SLOTS 16
/* Halvings of the binary search of a position in a script's line ends (2^24 lines). */
#define CP_V8_LINE_STEPS 24
/* Bytes of a script's source BPF reads at most to count the lines before a position (when
   the script has no line ends), CP_V8_SRC_CHUNK at a time. */
#define CP_V8_SRC_MAX	(256u << 10)
#define CP_V8_SRC_CHUNK 256
/* Bytes of a source position table BPF decodes at most, CP_V8_SPT_CHUNK at a time. */
#define CP_V8_SPT_MAX	(16u << 10)
#define CP_V8_SPT_CHUNK 256
/* Functions inlined into one another a frame of optimized code shows at most (deeper: the
   outer ones are left out, the frame's own function kept) */
#define CP_V8_INLINE_MAX 8
/* Bytes of a Code object's header BPF reads at once (its fields read lie in them) */
#define CP_V8_CODE_READ 64
/* Bytes of one InliningPosition (V8's deoptimization-data.h, OTel v8.go symbolizeCode): its
   SourcePosition (u64: bit 0 external, bits 1-30 the script offset + 1, bits 31-46 the
   inlining id: 0 the frame's own function, else 1 + the index of its InliningPosition), then
   the inlined function's index in the deoptimization literals (i32) */
#define CP_V8_INLINING_POS 16
/* Context locals of a ScopeInfo the namer skips at most (a function with more is unnamed). */
#define CP_V8_SCOPE_LOCALS 4096

/* How a V8 walk ended (cp_rt_stack.end), counted per reason. */
enum cp_v8_end {
	CP_V8_END_OK = 0,    /* every V8 frame of the native walk was read */
	CP_V8_END_NO_FRAMES, /* the native walk met no JS frame */
	CP_V8_END_TRUNCATED, /* more frames than a stack holds */
	CP_V8_END_READ,	     /* a frame's slots could not be read */
	CP_V8_END_MAX,
};
_Static_assert(CP_V8_END_MAX <= CP_RT_END_MAX, "the V8 ends fit an rt_stats row");

#endif
