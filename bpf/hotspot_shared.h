/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for HotSpot (OpenJDK's JVM, x86-64): what the JIT hook's step
 * (bpf/hotspot_step.bpf.h) needs of one process (struct cp_hs_proc, the runtime layer's
 * cp_rt_proc.data): where the CodeCache's heaps and their segment maps are, and the offsets of
 * the VM's structures, all read at attach from the JVM's own description of itself
 * (gHotSpotVMStructs, gHotSpotVMTypes in libjvm.so; src/interp/hs_detect.c). Frames, stacks
 * and names are the runtime layer's (runtime_shared.h). Same rules as bpf/shared.h.
 *
 * Facts: ../shared/design/runtimes.md 3 (OTel eBPF profiler, interpreter/hotspot/ and
 * support/ebpf/hotspot_tracer.ebpf.c; values read from Debian's OpenJDK 17.0.15).
 */
#ifndef CPUPROF_HOTSPOT_SHARED_H
#define CPUPROF_HOTSPOT_SHARED_H
#include "runtime_shared.h"

#define CP_HS_VER(maj, min, sec) (((__u32)(maj) << 16) | ((__u32)(min) << 8) | (__u32)(sec))

/* CodeCache heaps a process has at most (JDK 9+ segmented: non-nmethods, profiled, non-profiled) */
#define CP_HS_HEAPS 4

/* One CodeHeap: its code [low, high) and its segment map (one byte per segment). */
struct cp_hs_heap {
	__u64 low, high; /* CodeHeap._memory: VirtualSpace _low_boundary, _high_boundary */
	__u64 segmap;	 /* CodeHeap._segmap's _low_boundary */
};

/* Offsets (bytes) of the VM's structures, from gHotSpotVMStructs/gHotSpotVMTypes. */
struct cp_hs_offsets {
	__u16 cb_name;		 /* CodeBlob._name: const char* */
	__u16 cb_frame_complete; /* CodeBlob._frame_complete_offset: int, from _code_begin */
	__u16 cb_frame_size;	 /* CodeBlob._frame_size: int, in words */
	__u16 cb_code_begin;	 /* CodeBlob._code_begin */
	__u16 cm_method;	 /* CompiledMethod._method: Method* */
	__u16 method_const;	 /* Method._constMethod */
	__u16 cmethod_constants; /* ConstMethod._constants: ConstantPool* */
	__u16 cmethod_name;	 /* ConstMethod._name_index: u16 */
	__u16 cmethod_size;	 /* sizeof(ConstMethod): the bytecodes follow */
	__u16 cpool_holder;	 /* ConstantPool._pool_holder: InstanceKlass* */
	__u16 cpool_size;	 /* sizeof(ConstantPool): the entries follow, 8 bytes each */
	__u16 cpool_source;	 /* ConstantPool._source_file_name_index: u16 */
	__u16 klass_name;	 /* Klass._name: Symbol* */
	__u16 sym_length;	 /* Symbol._length: u16 */
	__u16 sym_body;		 /* Symbol._body: the bytes */
	__u16 heapblock_size;	 /* sizeof(HeapBlock): the CodeBlob follows its block's header */
	/* a compiled method's debug information (inlined methods, bcis); scopes 0: not read */
	__u16 nm_metadata;    /* nmethod._metadata_offset: int, from the nmethod (Metadata*[]) */
	__u16 nm_scopes_pcs;  /* nmethod._scopes_pcs_offset: int (PcDesc[]) */
	__u16 nm_deps;	      /* nmethod._dependencies_offset: int, the end of the PcDescs */
	__u16 cm_scopes_data; /* CompiledMethod._scopes_data_begin: u8* */
	__u16 pcdesc_size;    /* sizeof(PcDesc) */
	__u16 pcdesc_pc;      /* PcDesc._pc_offset: int, from the code's start */
	__u16 pcdesc_scope;   /* PcDesc._scope_decode_offset: int, into the scopes data */
	__u8 scopes;	      /* 1: the fields above are there */
	__u8 u5_excluded;     /* UNSIGNED5's excluded bytes: 0 up to JDK 20, 1 from 21 */
};
_Static_assert(sizeof(struct cp_hs_offsets) == 48, "cp_hs_offsets layout");

/* What the HotSpot step knows of one process. */
struct cp_hs_proc {
	struct cp_hs_offsets off;
	__u32 version; /* CP_HS_VER(17, 0, 15) */
	__u32 gen;
	__u32 n_heaps;
	__u32 seg_shift;       /* CodeHeap._log2_segment_size */
	__u64 cc_low, cc_high; /* CodeCache::_low_bound, _high_bound: every heap */
	struct cp_hs_heap heaps[CP_HS_HEAPS];
};
_Static_assert(sizeof(struct cp_hs_proc) == 48 + 16 + 16 + 24 * CP_HS_HEAPS, "cp_hs_proc layout");
_Static_assert(sizeof(struct cp_hs_proc) <= CP_RT_PROC_DATA, "cp_hs_proc fits cp_rt_proc.data");

/*
 * x86-64 interpreter frame slots from its frame pointer, in words (HotSpot frame_x86.hpp,
 * JDK 9+: the mirror slot moved the bcp to -8; ABI constants, not in VMStructs; OTel's
 * hotspot_tracer.ebpf.c uses the same): the caller's fp at 0, the return address at +1, the
 * sender's sp at -1, the Method* at -3, the saved bcp at -8.
 */
#define CP_HS_IFRAME_SENDER_SP (-1)
#define CP_HS_IFRAME_METHOD    (-3)
#define CP_HS_IFRAME_BCP       (-8)
/* an interpreter frame's fp lies this close above its sp (OTel's bound) */
#define CP_HS_IFRAME_MAX 0x1000
/* a CodeBlob's fields the step reads (and an nmethod's Method*) lie in its first bytes */
#define CP_HS_BLOB_HEAD 128
/* segment map hops at most from a pc's segment to its block's first (0xff: a free segment) */
#define CP_HS_SEGMAP_HOPS 16
#define CP_HS_SEG_FREE	  0xff

/*
 * A compiled frame's debug information (HotSpot debugInfoRec.hpp, scopeDesc.cpp; OTel's
 * method.go): the PcDesc of the pc (the last with _pc_offset <= the pc's offset; a return
 * address has its own) gives the innermost scope's offset in the scopes data; a scope is three
 * compressed ints, the sender's offset (0: none), the method's index in the metadata array
 * (from 1) and the bci + 1. Searched and followed at most this far.
 */
#define CP_HS_PCDESC_STEPS 20 /* a binary search over 1M PcDescs */
#define CP_HS_SCOPES	   8  /* methods inlined into one another at one pc */
/* compressed ints (JDK 17 CompressedStream, JDK 21 UNSIGNED5): 5 bytes at most, 6 bits more
 * each, a byte below 192 (+ excluded) ends one */
#define CP_HS_U5_LOW 192

/* Frame kinds (cp_rt_frame.kind). */
#define CP_HS_FRAME_INTERP 1 /* interpreted: ptr its Method*, pos the bci (~0: unknown) */
#define CP_HS_FRAME_COMPILED                                                               \
	2		     /* JIT-compiled (C1/C2 nmethod): ptr its Method*, pos the bci \
				(~0: unknown); inlined methods flagged CP_RT_FF_INLINED */
#define CP_HS_FRAME_NATIVE 3 /* a native method's wrapper: ptr its Method* */
#define CP_HS_FRAME_STUB   4 /* VM-generated code (call stub, adapters...): ptr its CodeBlob */

/* How the HotSpot frames of a sample ended (cp_rt_stack.end), counted per reason. */
enum cp_hs_end {
	CP_HS_END_OK = 0,    /* the native walk went on below the Java frames */
	CP_HS_END_NO_PROC,   /* not a known JVM (any more) */
	CP_HS_END_NO_FRAMES, /* no Java frame in the sample (a VM thread, native code) */
	CP_HS_END_NO_BLOB,   /* a pc in the CodeCache but in no code blob */
	CP_HS_END_BAD_FP,    /* an interpreter frame whose frame pointer is not one */
	CP_HS_END_READ,	     /* a frame or blob could not be read */
	CP_HS_END_MAX,
};
_Static_assert(CP_HS_END_MAX <= CP_RT_END_MAX, "the HotSpot ends fit an rt_stats row");

#endif
