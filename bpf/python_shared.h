/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract for CPython frames: the per-version struct offsets user space
 * gives the walker, the per-process values it finds at attach, the frame record the walker
 * writes. Same rules as bpf/shared.h (fixed-width types only, layouts pinned with
 * _Static_assert, no map definitions); it is a header of its own because the Python walker is
 * developed apart from the native one (bpf/shared.h changes with every native-walker change,
 * this one only with CPython) and only the Python walker and src/interp/ need it. Include it
 * after vmlinux.h (BPF) or <linux/types.h> (user space).
 *
 * Facts: ../shared/design/interpreters.md 1.1-1.4, each number checked against the DWARF of the
 * interpreters (scripts/py-offsets-dwarf.py; tests/unit/test_py_offsets.c compares them).
 */
#ifndef CPUPROF_PYTHON_SHARED_H
#define CPUPROF_PYTHON_SHARED_H
#include "runtime_shared.h"

/* An offset the version does not have. */
#define CP_PY_NONE 0xffff

/* How frames are chained (cp_py_offsets.frame_model). */
#define CP_PY_FRAMES_OBJECT 1 /* <= 3.10: tstate->frame, PyFrameObject.f_back */
#define CP_PY_FRAMES_INTERP 2 /* 3.11+: _PyInterpreterFrame.previous */
/* Where one C activation of the eval loop stops consuming Python frames (entry_model). */
#define CP_PY_ENTRY_ONE	   0 /* <= 3.10: one frame per activation */
#define CP_PY_ENTRY_FLAG   1 /* 3.11: the frame with is_entry set is the activation's first */
#define CP_PY_ENTRY_SHIM   2 /* 3.12+: a shim frame (owner CP_PY_OWNER_CSTACK) precedes it */
#define CP_PY_OWNER_CSTACK 3 /* FRAME_OWNED_BY_CSTACK (3.12+): a shim, not a Python call */
/* Units of the instruction position (cp_py_offsets.instr_unit): bytes per unit. */
#define CP_PY_INSTR_BYTES     1 /* f_lasti counts bytes (<= 3.9) */
#define CP_PY_INSTR_CODEUNITS 2 /* f_lasti / instruction index counts 2-byte code units */

/*
 * Offsets of one CPython version, bytes, CP_PY_NONE when absent. tstate_frame is the
 * PyThreadState field the frame chain starts from: frame (<= 3.10), cframe (3.11, 3.12: then
 * cframe_current_frame inside it), current_frame (3.13).
 */
struct cp_py_offsets {
	__u32 version; /* PY_VERSION_HEX the numbers are for */
	__u8 frame_model;
	__u8 entry_model;
	__u8 instr_unit;
	__u8 pad0;
	/* _PyRuntimeState (3.7+) */
	__u16 runtime_tstate_current; /* gilstate.tstate_current: the GIL holder; never used */
	__u16 runtime_autotss_key;    /* Py_tss_t {int initialized; pthread_key_t key @4} */
	__u16 runtime_interpreters_head;
	/* PyInterpreterState */
	__u16 interp_tstate_head;
	/* PyThreadState */
	__u16 tstate_next;
	__u16 tstate_interp;
	__u16 tstate_thread_id; /* pthread_self(), == fsbase on glibc x86_64 */
	__u16 tstate_native_thread_id;
	__u16 tstate_frame;
	__u16 cframe_current_frame;
	/* PyFrameObject (<= 3.10) */
	__u16 frame_back;
	__u16 frame_code;
	__u16 frame_lasti; /* int */
	/* _PyInterpreterFrame (3.11+) */
	__u16 iframe_code; /* f_code, f_executable (3.13: may be None in a shim) */
	__u16 iframe_previous;
	__u16 iframe_instr; /* prev_instr (3.11, 3.12), instr_ptr (3.13) */
	__u16 iframe_is_entry;
	__u16 iframe_owner;
	/* PyCodeObject */
	__u16 code_argcount;
	__u16 code_kwonlyargcount;
	__u16 code_flags;
	__u16 code_firstlineno;
	__u16 code_filename;
	__u16 code_name;
	__u16 code_qualname;
	__u16 code_linetable; /* co_lnotab (<= 3.9), co_linetable (3.10+) */
	__u16 code_code;      /* the co_code bytes object (<= 3.10), inline co_code_adaptive */
	/* strings */
	__u16 bytes_sval;     /* PyBytesObject.ob_sval (2.7: PyStringObject) */
	__u16 str_ascii_data; /* compact ASCII str data = sizeof(PyASCIIObject) (2.7: ob_sval) */
	__u16 pad1[3];
};
_Static_assert(sizeof(struct cp_py_offsets) == 72, "cp_py_offsets layout");
_Static_assert(__builtin_offsetof(struct cp_py_offsets, runtime_tstate_current) == 8,
	       "cp_py_offsets header");
_Static_assert(__builtin_offsetof(struct cp_py_offsets, str_ascii_data) == 64,
	       "cp_py_offsets.str_ascii_data");

/*
 * What the walker knows of one process's CPython (a map value keyed by tgid, filled at attach).
 * Addresses are runtime addresses; 0 when absent.
 */
struct cp_py_proc {
	struct cp_py_offsets off;
	__u64 interp_head; /* where the first PyInterpreterState* is: &_PyRuntime + interpreters
			      .head (3.7+), &interp_head (2.7, 3.6 with .symtab); 0 if unknown */
	__u64 interp;	   /* else that interpreter, read at attach (2.7/3.6 stripped) */
	__u64 code_type;   /* &PyCode_Type: a frame's code object has this ob_type */
	__u64 none;	   /* &_Py_NoneStruct: 3.13 shim frames' f_executable */
	__u64 eval_start, eval_end; /* the eval loop, for interleaving with native frames */
	__u64 eval_cold_start, eval_cold_end;
	__s32 tss_key; /* pthread key holding each thread's tstate: autoTSSkey (3.7+), autoTLSkey
			  (3.6); -1: none (2.7 keeps its own key list), walk the thread list */
	__u32 gen;     /* cp_proc.gen these values belong to (the profiler walks no other) */
};
_Static_assert(sizeof(struct cp_py_proc) == 72 + 8 * 8 + 8, "cp_py_proc layout");
_Static_assert(sizeof(struct cp_py_proc) <= CP_RT_PROC_DATA, "cp_py_proc fits cp_rt_proc.data");

#define CP_PY_FRAME_CODE 1 /* a Python function's frame */
/*
 * CP_RT_FF_ENTRY (runtime_shared.h): <= 3.10 every frame; 3.11 the is_entry frame; 3.12+ the
 * frame right below a shim. cp_rt_frame.ptr is the PyCodeObject, .pos f_lasti (units:
 * instr_unit) or the instruction index (3.11+), ~0 when unknown; cp_rt_stack.ctx the
 * thread's PyThreadState.
 */

/* How a Python walk ended (cp_rt_stack.end); counted per reason (rt_stats). */
enum cp_py_end {
	CP_PY_END_OK = 0,    /* the outermost frame was reached */
	CP_PY_END_NO_PROC,   /* the process is not a known CPython (yet) */
	CP_PY_END_NO_TSTATE, /* no thread state for this thread: not a Python thread */
	CP_PY_END_TRUNCATED, /* more than CP_PY_MAX_FRAMES frames */
	CP_PY_END_READ,	     /* a frame could not be read, or the chain loops */
	CP_PY_END_BAD_CODE,  /* a frame's code is not a code object */
	CP_PY_END_MAX,
};
_Static_assert(CP_PY_END_MAX <= CP_RT_END_MAX, "the Python ends fit an rt_stats row");

/* Threads of one interpreter the thread-list walk looks at, at most. */
#define CP_PY_MAX_THREADS 64
#endif
