/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF <-> user-space contract of the runtime layer (interpreters: Python, Ruby, PHP, Perl):
 * one id per runtime, one per-process record (rt_procs: tgid -> struct cp_rt_proc, the
 * runtime's own values inside), one frame format every walker writes (struct cp_rt_frame), one
 * store of interpreter stacks (rtstacks0/1: cp_count_key.istack -> struct cp_rt_stored, the
 * runtime in cp_count_key.istack_kind), one names map BPF fills while the process lives
 * (rt_names), one counter array (rt_stats: a row of CP_RT_STAT_ROW per runtime).
 *
 * Dispatch: the profiler's start of walk looks the sampled process up in rt_procs and
 * tail-calls unwind_progs[CP_RT_WALKER(runtime)]; the walker fills the stack, stores it
 * (rt_store in runtime_walk.bpf.h) and tail-calls the native walk (slot CP_RT_WALKER(0)).
 * A runtime's own contract (offsets, per-process values, end reasons, frame kinds) is in its
 * header (python_shared.h, ruby_shared.h...), which asserts that its per-process record fits
 * CP_RT_PROC_DATA. Same rules as shared.h. Include it after vmlinux.h or <linux/types.h>.
 * User space: src/interp/runtime.h (the descriptor table), src/interp/README.md.
 */
#ifndef CPUPROF_RUNTIME_SHARED_H
#define CPUPROF_RUNTIME_SHARED_H

/* Runtime ids: cp_rt_proc.runtime, cp_count_key.istack_kind, the row of rt_stats. */
#define CP_RT_NONE   0
#define CP_RT_PYTHON 1
#define CP_RT_RUBY   2
#define CP_RT_PHP    3
#define CP_RT_PERL   4
#define CP_RT_JAVA   5 /* HotSpot: frames recorded by the JIT hook (jit_hook.bpf.h) */
#define CP_RT_V8     6 /* V8 (node): frames recorded by the JIT hook */
#define CP_RT_MAX    7

/* unwind_progs: slot 0 the native walk, slot CP_RT_WALKER(id) runtime id's walker. */
#define CP_RT_WALKER(id) (id)
#define CP_RT_PROGS	 CP_RT_MAX

/* Bytes of a runtime's own per-process record (struct cp_py_proc...) at most. */
#define CP_RT_PROC_DATA 256

/*
 * The JIT code range hook (bpf/jit_hook.bpf.h): code a runtime generates at run time (HotSpot's
 * CodeCache...) has no unwind table. When the native walk meets a pc in one of its process's
 * ranges, the runtime's step function (cp_jit_step) records that frame as runtime frames
 * (cp_rt_frame, the last flagged CP_RT_FF_ENTRY: one native frame, one activation) and gives
 * the caller's pc, sp and fp; the native walk goes on from there. The runtime's descriptor
 * fills the ranges (src/interp/runtime.h: jit), its program stores the frames (RT_JIT_PROG).
 */
#define CP_RT_JIT_RANGES 4
struct cp_rt_jit_range {
	__u64 start, end; /* [start, end) runtime addresses */
};

/* What the walkers know of one process (rt_procs, keyed by tgid, filled by user space). */
struct cp_rt_proc {
	__u32 runtime; /* CP_RT_* */
	__u32 gen;     /* cp_proc.gen this is for: the profiler walks no other generation */
	__u32 jit_n;   /* ranges of jit[] used: the JIT code range hook's */
	__u32 pad;
	struct cp_rt_jit_range jit[CP_RT_JIT_RANGES];
	__u8 data[CP_RT_PROC_DATA] __attribute__((aligned(8))); /* the runtime's record */
};
_Static_assert(sizeof(struct cp_rt_proc) == 16 + 16 * CP_RT_JIT_RANGES + CP_RT_PROC_DATA,
	       "cp_rt_proc layout");
/* Processes with a runtime the walkers know at once. */
#define CP_RT_DEF_PROCS 1024

/* Interpreter frames recorded per sample at most (interpreters.md 5.4). */
#define CP_RT_MAX_FRAMES 128
_Static_assert((CP_RT_MAX_FRAMES & (CP_RT_MAX_FRAMES - 1)) == 0, "a mask bounds the index");

/* One interpreter frame as recorded. */
struct cp_rt_frame {
	__u64 ptr;  /* what identifies the code: a code object, iseq body, op_array... */
	__u32 pos;  /* where in it (instruction index, bytecode offset...); ~0: unknown */
	__u8 kind;  /* the runtime's frame kind (CP_PY_FRAME_*, CP_RB_FRAME_*...) */
	__u8 flags; /* CP_RT_FF_* */
	__u16 pad;
};
_Static_assert(sizeof(struct cp_rt_frame) == 16, "cp_rt_frame layout");
/*
 * The outermost frame of one activation of the interpreter's loop (the frame native code
 * called into): native frames of the loop consume interpreter frames up to the next flagged.
 */
#define CP_RT_FF_ENTRY 1
/* Inlined into the next frame's (its caller's) code: shown as an inlined frame */
#define CP_RT_FF_INLINED 2

/* The interpreter frames of one sample, innermost first. */
struct cp_rt_stack {
	__u32 len;   /* frames used */
	__u16 end;   /* how the walk ended: the runtime's enum, 0 = complete, < CP_RT_END_MAX */
	__u16 flags; /* the runtime's CP_*_ST_* */
	__u64 ctx;   /* the thread's interpreter state walked (tstate, EC...); 0 when none */
	struct cp_rt_frame frames[CP_RT_MAX_FRAMES];
};
_Static_assert(sizeof(struct cp_rt_stack) == 16 + 16 * CP_RT_MAX_FRAMES, "cp_rt_stack layout");

/*
 * rtstacks0/1: a sample's frames and process under a 64-bit hash of them (the count key's
 * istack), check a second hash (collision check, as cp_dstack.check).
 */
struct cp_rt_stored {
	__u64 check;
	__u32 pid, gen; /* the process the frames belong to (part of the hash) */
	struct cp_rt_stack st;
};
_Static_assert(sizeof(struct cp_rt_stored) == 16 + sizeof(struct cp_rt_stack), "cp_rt_stored");
#define CP_RT_DEF_STACKS 8192

/*
 * rt_names: what BPF copied of a frame's code the first time a stack holding it was stored,
 * so that a process gone before user space named it still has names (no exit hook can read
 * its memory: sched_process_exit runs after the address space is freed). Strings are copied
 * bounded and NUL-terminated; user space treats them as hostile (escapes, caps).
 */
struct cp_rt_name_key {
	__u32 pid, gen;
	__u64 ptr; /* cp_rt_frame.ptr */
};
_Static_assert(sizeof(struct cp_rt_name_key) == 16, "cp_rt_name_key layout");
#define CP_RT_NAME_LEN 128 /* powers of two: a mask bounds an index */
#define CP_RT_FILE_LEN 256
struct cp_rt_name {
	__u64 stamp;	 /* the runtime's stamp of the code when copied: an address reused by other
			    code (a module's code freed, a function's made there) is copied again */
	__u32 firstline; /* 0: unknown */
	__u16 flags;	 /* CP_RT_NAME_* */
	__u16 runtime;	 /* CP_RT_* */
	__u32 column;	 /* CP_RT_NAME_LINE: the column of firstline (from 1); 0: unknown */
	__u32 resv;
	char name[CP_RT_NAME_LEN];
	char file[CP_RT_FILE_LEN];
};
_Static_assert(sizeof(struct cp_rt_name) == 24 + CP_RT_NAME_LEN + CP_RT_FILE_LEN, "cp_rt_name");
#define CP_RT_NAME_OK  1 /* name[] holds the function's name */
#define CP_RT_FILE_OK  2 /* file[] holds its file */
#define CP_RT_NAME_CUT 4 /* the name was longer than its field: its head is kept */
#define CP_RT_FILE_CUT 8 /* the file was longer than its field: its tail is kept */
/* firstline is not a line: 1 + the character position where the code starts in its file
   (V8), made a line and column by user space from the file (interp/src_pos.h), unless BPF
   made it one (CP_RT_NAME_LINE) */
#define CP_RT_NAME_POS 16
/* with CP_RT_NAME_POS: BPF made the position a line (firstline) and column (column) from
   what the runtime keeps in memory (V8: the script's line ends), no file read */
#define CP_RT_NAME_LINE 32
/* the code is one of the runtime's builtins, with no source (V8: Array.prototype.forEach...) */
#define CP_RT_NAME_BUILTIN 64
#define CP_RT_DEF_NAMES	   16384
/* Names a sample copies at most (the rest wait for a later sample holding the frame). */
#define CP_RT_NAMES_PER_SAMPLE 32

/*
 * rt_stats: per-CPU, CP_RT_STAT_ROW counters per runtime id (row 0 unused): the walk ends
 * (the runtime's enum, index = reason, < CP_RT_END_MAX), then these.
 */
#define CP_RT_END_MAX 10
enum cp_rt_stat {
	CP_RT_STAT_FULL = CP_RT_END_MAX, /* frames lost: rtstacks full */
	CP_RT_STAT_COLLISION,		 /* frames lost: two stacks with one hash */
	CP_RT_STAT_TAILCALL,		 /* the native walk after it could not start */
	CP_RT_STAT_NAMES_FULL,		 /* a name not copied: rt_names full */
	CP_RT_STAT_NAMES_BUDGET,	 /* a name left for a later sample (per-sample budget) */
	CP_RT_STAT_NAMES_COPIED,	 /* names copied */
	CP_RT_STAT_ROW,
};
#define CP_RT_STATS (CP_RT_MAX * CP_RT_STAT_ROW)

/* The walkers' test harness (bpf/rtwalk.bpf.c): one ring-buffer record per sample. */
struct cp_rt_event {
	__u32 tid;
	__u32 runtime;
	struct cp_rt_stack st;
};
_Static_assert(sizeof(struct cp_rt_event) == 8 + sizeof(struct cp_rt_stack), "cp_rt_event");

/*
 * glibc 2.36 x86_64, from the thread pointer (fsbase == pthread_self()): thread-specific data
 * keys < 32 in struct pthread's specific_1stblock {seq, data} pairs at 0x310, the data of key
 * k at 0x310 + 16k + 8, larger keys through the second-level array at 0x510
 * (pthread_getspecific disassembled; Parca's glibc table and OTel agree; interpreters.md 1.1);
 * tcbhead_t.dtv at fsbase + 8, a DTV entry 16 bytes {pointer val, to_free} indexed by module
 * id, TLS_DTV_UNALLOCATED (-1) while not allocated (glibc sysdeps/x86_64/nptl/tls.h, dl-tls.h).
 */
#define CP_RT_GLIBC_TSD_FIRST	0x310
#define CP_RT_GLIBC_TSD_SECOND	0x510
#define CP_RT_GLIBC_TSD_BLOCK	32
#define CP_RT_GLIBC_TCB_DTV	8
#define CP_RT_GLIBC_DTV_ENTRY	16
#define CP_RT_GLIBC_DTV_UNALLOC (~0ull)

#endif
