/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole contract between the BPF programs (bpf/NAME.bpf.c) and user space (src/).
 *
 * Both sides include this header and nothing else of each other's. Only fixed-width
 * __u8..__u64 / __s32 types appear here: the BPF side gets them from vmlinux.h, user space
 * from <linux/types.h>. Layouts are pinned with _Static_assert so clang (-target bpf) and gcc
 * check the same numbers. Map definitions live in the .bpf.c file, not here.
 */
#ifndef CPUPROF_SHARED_H
#define CPUPROF_SHARED_H

/* ---- limits the kernel and the verifier set (checked against the layouts below) ------- */

/*
 * Largest value of a per-CPU array or hash map: PCPU_MIN_UNIT_SIZE, 32 KiB
 * (include/linux/percpu.h; array_map_alloc_check() and htab_map_alloc_check() refuse larger
 * values with E2BIG).
 */
#define CP_KLIMIT_PERCPU_VALUE 32768
/* Largest BPF stack frame, and so of a hash key (MAX_BPF_STACK, include/linux/filter.h; keys
 * are built on the stack, htab_map_alloc_check() refuses larger ones). */
#define CP_KLIMIT_BPF_STACK 512
/* Frames a STACK_TRACE map value may hold: kernel.perf_event_max_stack, 127 by default
 * (PERF_MAX_STACK_DEPTH; stack_map_alloc() refuses more with EINVAL). */
#define CP_KLIMIT_STACK_FRAMES 127
/*
 * Largest value of an array map: KMALLOC_MAX_SIZE, 4 MiB on x86-64 (array_map_alloc_check()
 * refuses larger values with E2BIG).
 */
#define CP_KLIMIT_ARRAY_VALUE (4u << 20)
/* A ring buffer's size is a power of two and a multiple of the page size (ringbuf_map_alloc). */
#define CP_KLIMIT_PAGE_SIZE 4096

/* ---- capacities ------------------------------------------------------------------------ */

/* Frames kept per stack in the STACK_TRACE maps (the kernel's perf_event_max_stack default). */
#define CP_MAX_STACK_DEPTH 127
/*
 * --unwind dwarf: user frames per stack walked in BPF. The walker does CP_UNWIND_FRAMES_PER_PROG
 * frames per program run and chains at most CP_UNWIND_TAIL_CALLS tail calls (the kernel allows
 * 33 in a chain; the first run is the sampling program's own tail call).
 */
#define CP_MAX_USTACK_DEPTH	  256
#define CP_UNWIND_FRAMES_PER_PROG 16
#define CP_UNWIND_TAIL_CALLS	  (CP_MAX_USTACK_DEPTH / CP_UNWIND_FRAMES_PER_PROG)
_Static_assert(CP_UNWIND_FRAMES_PER_PROG *CP_UNWIND_TAIL_CALLS >= CP_MAX_USTACK_DEPTH,
	       "the tail-call chain walks a whole stack");
_Static_assert(CP_UNWIND_TAIL_CALLS <= 32, "within the kernel's tail-call limit");
_Static_assert((CP_MAX_USTACK_DEPTH & (CP_MAX_USTACK_DEPTH - 1)) == 0, "a mask bounds the index");
/*
 * Rows in the unwind row store at most (--max-unwind-memory 256): the BPF row search takes
 * CP_UNWIND_ROW_STEPS steps. The store is a set of chunks of CP_ROW_CHUNK_ROWS rows (1 MiB),
 * array maps that user space creates as tables are loaded and enters in the array of maps
 * unwind_chunks (at index row >> CP_ROW_CHUNK_SHIFT): kernel memory grows with the tables, and
 * a table loaded mid-recording is never left out for a store sized when sampling started.
 * Row r of the store is row r & (CP_ROW_CHUNK_ROWS - 1) of chunk r >> CP_ROW_CHUNK_SHIFT. A
 * chunk is an array of one element, all its rows (struct cp_row_chunk): the walker looks a
 * chunk up once (a helper call: lookups in an inner map are not inlined) and reads rows
 * within it directly; the element's bytes are those of CP_ROW_CHUNK_ROWS rows in a row, as
 * user space writes them through mmap.
 */
#define CP_UNWIND_ROW_STEPS 24
#define CP_MAX_UNWIND_ROWS  (1u << CP_UNWIND_ROW_STEPS)
#define CP_ROW_CHUNK_SHIFT  16
#define CP_ROW_CHUNK_ROWS   (1u << CP_ROW_CHUNK_SHIFT)
#define CP_MAX_ROW_CHUNKS   (CP_MAX_UNWIND_ROWS / CP_ROW_CHUNK_ROWS)
_Static_assert(CP_ROW_CHUNK_SHIFT < CP_UNWIND_ROW_STEPS, "a store holds several chunks");
_Static_assert(CP_MAX_ROW_CHUNKS <= 4096, "an array of maps the loader sizes at once");
/* Default sizes of the maps; user space may resize them between open and load. */
#define CP_DEF_USTACK_ENTRIES 32768
#define CP_DEF_KSTACK_ENTRIES 8192
#define CP_DEF_COUNT_ENTRIES  65536
#define CP_DEF_PROC_ENTRIES   32768
#define CP_REQ_ENTRIES	      4096 /* excluded and refresh-pending processes */
#define CP_RINGBUF_BYTES      (256 * 1024)
#define CP_COMM_LEN	      16
/* --unwind dwarf: distinct DWARF-walked user stacks; processes with tables */
#define CP_DEF_DSTACK_ENTRIES 16384
#define CP_DEF_UPROC_ENTRIES  1024
_Static_assert(CP_MAX_STACK_DEPTH <= CP_KLIMIT_STACK_FRAMES, "STACK_TRACE values the kernel takes");
_Static_assert((CP_RINGBUF_BYTES & (CP_RINGBUF_BYTES - 1)) == 0 &&
		       CP_RINGBUF_BYTES % CP_KLIMIT_PAGE_SIZE == 0,
	       "a ring buffer the kernel takes");

/* ---- configuration (const volatile rodata, set between open and load) ------------------ */

enum cp_filter_mode {
	CP_FILTER_ALL = 0,  /* system-wide */
	CP_FILTER_PIDS = 1, /* only processes marked CP_PROC_TRACED in the procs map */
	CP_FILTER_COMM = 2, /* record everything not excluded; user space decides by name */
};

struct cp_config {
	__u32 filter_mode;    /* enum cp_filter_mode */
	__u8 user_stacks;     /* collect user stacks */
	__u8 kernel_stacks;   /* collect kernel stacks */
	__u8 include_idle;    /* keep samples of the idle task (pid 0) */
	__u8 per_thread;      /* keep tid and thread name in the count key */
	__u8 follow_children; /* processes forked by a traced process are traced too */
	__u8 unwind_dwarf;    /* user stacks from unwind tables (--unwind dwarf) */
	__u8 runtimes;	      /* bit 1 << CP_RT_* (runtime_shared.h): walk that runtime's frames
				 (--no-python...: clear; needs unwind_dwarf); read by user space */
	__u8 go_labels;	      /* read the running goroutine's labels (off: --no-go-labels) */
	__u8 runtimes_now;    /* bits of runtimes: walkers loaded with the programs, the others
				 when a process of theirs is first found; read by user space */
	__u8 pad0[3];
};
_Static_assert(sizeof(struct cp_config) == 16, "cp_config layout");

/* ---- per-process state (procs map: tgid -> cp_proc) ------------------------------------ */

/*
 * At run time only BPF writes cp_proc; user space writes it before sampling starts. Requests
 * that user space answers at run time live in maps of their own (excluded, refresh) that user
 * space only inserts into or deletes from, so no read-modify-write races the BPF side.
 */
#define CP_PROC_TRACED	  (1u << 0) /* selected by --pid / COMMAND (or followed child) */
#define CP_PROC_REQUESTED (1u << 2) /* user space was asked to snapshot this generation */

struct cp_proc {
	__u32 gen;	  /* bumped on exec and on pid reuse: (tgid, gen) names one address space */
	__u32 flags;	  /* CP_PROC_* */
	__u64 exec_vm;	  /* mm->exec_vm when the mappings were last requested */
	__u64 unknown_ns; /* when a pc outside the known mappings last asked for a refresh */
};
_Static_assert(sizeof(struct cp_proc) == 24, "cp_proc layout");

/*
 * A walk that met a pc outside the process's known mappings asks user space to read them
 * again (code mapped writable and executable, as JIT compilers do, does not change
 * mm->exec_vm), at most once per this interval per process: a pc that is garbage keeps
 * asking.
 */
#define CP_UNKNOWN_REFRESH_NS 50000000ull /* 50 ms */

/* ---- in-kernel aggregation (counts map: cp_count_key -> __u64 samples) ----------------- */

/*
 * A stack id >= 0 indexes the ustacks/kstacks STACK_TRACE map. A negative id says why there is
 * no stack: CP_STACK_NONE (not collected: kernel thread, --no-kernel, sample in user mode...)
 * or a negative errno from bpf_get_stackid (-EEXIST collision, -ENOMEM map full, -EFAULT
 * unreadable), which user space renders as a pseudo-frame so totals stay honest.
 */
#define CP_STACK_NONE (-1000)
/* ustack_id when the user stack is in the dstacks map under cp_count_key.dstack */
#define CP_STACK_DWARF (-1001)

struct cp_count_key {
	__u32 pid; /* tgid; 0 for the idle task */
	__u32 tid; /* 0 unless per_thread */
	__u32 gen; /* cp_proc.gen at sample time */
	__s32 ustack_id;
	__s32 kstack_id;
	__u8 istack_kind; /* CP_RT_*: which runtime's frames istack names */
	__u8 pad[3];
	char comm[CP_COMM_LEN];	 /* process name (thread group leader's comm) */
	char tcomm[CP_COMM_LEN]; /* thread name; empty unless per_thread */
	__u64 dstack;		 /* ustack_id CP_STACK_DWARF: key of the stack in dstacks */
	__u64 istack;		 /* key of the sample's interpreter frames (rtstacks); 0: none */
	__u64 labels;		 /* key of the goroutine's labels in golabels; 0: none */
};
_Static_assert(sizeof(struct cp_count_key) == 80, "cp_count_key layout");
_Static_assert(__builtin_offsetof(struct cp_count_key, labels) == 72, "cp_count_key.labels");
_Static_assert(__builtin_offsetof(struct cp_count_key, istack_kind) == 20, "cp_count_key.kind");
/*
 * cp_count_key.istack_kind: the runtime whose frames the sample carries (one a process), a
 * CP_RT_* id of runtime_shared.h; istack keys rtstacks0/1 then.
 */
_Static_assert(__builtin_offsetof(struct cp_count_key, comm) == 24, "cp_count_key.comm");
_Static_assert(sizeof(struct cp_count_key) <= CP_KLIMIT_BPF_STACK, "a hash key the kernel takes");

/* ---- Go goroutine labels (go_procs: tgid -> cp_go_proc; golabels: key -> cp_go_labels) ---- */

/*
 * A sample of a Go process (one user space entered in go_procs, for its generation) carries
 * the labels of the goroutine running (runtime/pprof's pprof.Do, SetGoroutineLabels): g from
 * the thread's TLS slot (fsbase - 8 * tls_slot), g.m, m.curg (the user goroutine also when the
 * sample is on g0 or gsignal; 0 in the scheduler: no labels), curg.labels, which points at
 * runtime/pprof's labelMap:
 * - CP_GO_LAYOUT_MAP (Go up to 1.23): a map[string]string, so a pointer to a runtime hmap
 *   (runtime/map.go:
 *   count at 0, B at 9, buckets at 16; unchanged from Go 1.4 to 1.23, and so in the DWARF of
 *   Go 1.19.8, 1.21.13, 1.22.12 and 1.23.5 programs), whose buckets are
 *   bmap{tophash [8]u8; keys [8]string; values [8]string; overflow *bmap}, 272 bytes, a slot
 *   in use when its tophash is >= 5 (minTopHash). Buckets 0 to 2^min(B, 3) - 1 are read, not
 *   their overflow buckets nor an unfinished growth's old buckets: a labelMap is built once by
 *   WithLabels, and up to 8 labels stay in bucket 0.
 * - CP_GO_LAYOUT_SLICE (Go 1.24 and later: runtime/pprof label.go, labelMap{LabelSet{list
 *   []label}}, label{key, value string}): the slice header at 0, 32 bytes a label. From the
 *   Go sources and the OTel profiler's go_labels.ebpf.c; checked on hand-made memory of that
 *   layout (tests/unit/test_go_labels.c), not on a Go 1.24 program (none installable here).
 * At most CP_GO_LABELS labels, keys and values cut to their fields (NUL-terminated), the cut
 * ones flagged. The set goes to golabels under a 64-bit hash of its labels, order-independent
 * (the map's order is not the labels' identity), which the count key carries.
 */
#define CP_GO_LABELS	       8
#define CP_GO_LABEL_KEY	       32
#define CP_GO_LABEL_VAL	       64
#define CP_GO_MIN_TOPHASH      5
#define CP_GO_HMAP_B	       9
#define CP_GO_HMAP_BUCKETS     16
#define CP_GO_BUCKET_SIZE      272
#define CP_GO_BUCKET_KEYS      8
#define CP_GO_BUCKET_VALS      136
#define CP_GO_MAX_B	       3
#define CP_DEF_GOLABEL_ENTRIES 16384
enum cp_go_layout {
	CP_GO_LAYOUT_MAP = 1,
	CP_GO_LAYOUT_SLICE = 2,
};

struct cp_go_proc {
	__u32 gen;	/* cp_proc.gen this is for */
	__u8 layout;	/* enum cp_go_layout */
	__u8 tls_slot;	/* g at fsbase - 8 * tls_slot */
	__u16 g_m;	/* offsetof(runtime.g, m) */
	__u16 m_curg;	/* offsetof(runtime.m, curg) */
	__u16 g_labels; /* offsetof(runtime.g, labels) */
	__u32 pad;
};
_Static_assert(sizeof(struct cp_go_proc) == 16, "cp_go_proc layout");

struct cp_go_label {
	char key[CP_GO_LABEL_KEY]; /* NUL-terminated, cut */
	char val[CP_GO_LABEL_VAL];
};
struct cp_go_labels {
	__u32 n;   /* labels in l */
	__u32 cut; /* bit i: label i's key or value was longer than its field */
	struct cp_go_label l[CP_GO_LABELS];
};
_Static_assert(sizeof(struct cp_go_labels) == 8 + 96 * CP_GO_LABELS, "cp_go_labels layout");
_Static_assert((CP_GO_LABELS & (CP_GO_LABELS - 1)) == 0 && CP_GO_LABELS <= 32,
	       "a mask bounds the index; cut holds a bit per label");
_Static_assert((CP_GO_LABEL_KEY & (CP_GO_LABEL_KEY - 1)) == 0 &&
		       (CP_GO_LABEL_VAL & (CP_GO_LABEL_VAL - 1)) == 0,
	       "masks bound the copies");
_Static_assert(sizeof(struct cp_go_labels) <= CP_KLIMIT_PERCPU_VALUE, "a per-CPU value");

/* ---- two sets of aggregation maps, drained while recording --------------------------- */

/*
 * counts, ustacks, kstacks and dstacks exist twice: slot 0 and slot 1. A sample reads the
 * active slot (the BPF global active_slot) once at its start and writes only that slot's maps,
 * the tail-called walker included (it carries the slot in its per-CPU state). To drain, user
 * space makes the other slot active, waits until no program still uses the old one, reads the
 * old set whole, and clears it. Nothing is lost, and a sample lands whole in one set.
 *
 * The wait is exact, by per-CPU counters (the per-CPU array slot_counters, one element): a
 * program adds 1 to enter[s] with an atomic instruction (a full barrier), reads active_slot
 * again and uses slot s only if it is still active; otherwise it adds 1 to leave[s] and tries
 * the new slot (a sample is dropped, CP_STAT_SLOT_BUSY, only if the slot changed twice in
 * between). When done with the maps it adds 1 to leave[s]. User space stores the new slot
 * (sequentially consistent) and then waits until leave[old] == enter[old], summed over the
 * CPUs. Either it saw a program's enter and waits for its leave, or that program reads the new
 * slot and backs out: the two sides store, fence, then load what the other stores.
 *
 * counts[s] and dstacks[s] count the keys added to those maps, ustacks[s] the counts keys
 * with a user stack id: their fill level since the set was last cleared (user space keeps
 * the values of that moment). A stack map holds at most as many stacks as counts has keys
 * naming one, plus the samples dropped because counts was full.
 */
#define CP_SLOTS 2
struct cp_slot_counters {
	__u64 enter[CP_SLOTS];
	__u64 leave[CP_SLOTS];
	__u64 counts[CP_SLOTS];	 /* keys added to counts */
	__u64 ustacks[CP_SLOTS]; /* of which with a ustacks id (ustack_id >= 0) */
	__u64 dstacks[CP_SLOTS]; /* stacks added to dstacks */
};
_Static_assert(sizeof(struct cp_slot_counters) == 80, "cp_slot_counters layout");
_Static_assert(sizeof(struct cp_slot_counters) <= CP_KLIMIT_PERCPU_VALUE, "a per-CPU value");

/* ---- --unwind dwarf: stacks walked with the unwind tables ------------------------------ */

/* How a DWARF-walked user stack ended (cp_dstack.end). */
enum cp_dstack_end {
	CP_DEND_OK = 0,		 /* an outermost frame: return address undefined, rbp 0 or RA 0 */
	CP_DEND_TRUNCATED = 1,	 /* CP_MAX_USTACK_DEPTH frames and more */
	CP_DEND_NO_MAPPING = 2,	 /* a pc in no mapping of the process's table */
	CP_DEND_NOT_COVERED = 3, /* a pc between functions (CP_CFA_END_FUNC) with rbp != 0 */
	CP_DEND_UNSUPPORTED = 4, /* a CP_CFA_UNSUPPORTED row */
	CP_DEND_READ = 5,	 /* the return address or saved rbp could not be read */
	CP_DEND_LOOP = 6,	 /* the stack pointer did not grow: the walk would loop */
	/*
	 * Code without a table (JIT code, functions without CFI) is walked by frame pointers
	 * when its frame looks valid; these say why it did not.
	 */
	CP_DEND_BAD_FP = 7, /* rbp not within CP_FP_MAX_FRAME above the stack pointer */
	CP_DEND_BAD_RA = 8, /* the return address is in no executable mapping of the process */
	CP_DEND_MAX,
};

/* dstacks: key (64-bit hash of the frames) -> the frames. */
struct cp_dstack {
	__u32 len;			/* frames in ips */
	__u32 end;			/* enum cp_dstack_end */
	__u64 check;			/* a second hash of the frames: collision check */
	__u64 ips[CP_MAX_USTACK_DEPTH]; /* leaf (exact pc) first, then return addresses */
};
/*
 * Set in an ips entry (user addresses are below 2^47) that is to be named as it is, not as a
 * return address (minus one): the pc a signal interrupted, and the signal trampoline the
 * handler returns to (glibc's __restore_rt, whose first byte is not after a call).
 */
#define CP_IP_EXACT (1ull << 63)
/* Frame-pointer steps: the caller's frame (rbp) lies at most this far above the stack pointer. */
#define CP_FP_MAX_FRAME (8u << 20)
_Static_assert(sizeof(struct cp_dstack) == 16 + 8 * CP_MAX_USTACK_DEPTH, "cp_dstack layout");

/*
 * uprocs: tgid -> the executable mappings of one address space with the rows of their
 * objects, written by user space whenever it has read the mappings. A mapping without a table
 * (n_rows 0: vDSO, JIT code, objects without CFI) is walked with frame pointers.
 */
#define CP_MAX_UNWIND_MAPS  128
#define CP_UNWIND_MAP_STEPS 8 /* binary search steps over CP_MAX_UNWIND_MAPS */
_Static_assert((1 << CP_UNWIND_MAP_STEPS) >= CP_MAX_UNWIND_MAPS + 1, "map search bound");
_Static_assert((CP_MAX_UNWIND_MAPS & (CP_MAX_UNWIND_MAPS - 1)) == 0, "a mask bounds the index");

struct cp_unwind_map {
	__u64 start, end; /* runtime addresses [start, end) */
	__u64 bias;	  /* runtime pc - bias = row pc (load bias + the table's base) */
	__u32 first_row;  /* the object's rows: rows [first_row, first_row + n_rows) of the store */
	__u32 n_rows;
};
_Static_assert(sizeof(struct cp_unwind_map) == 32, "cp_unwind_map layout");

/*
 * objtab: a file's table found from the VMA of a pc (bpf_find_vma) rather than the process's
 * mapping table, so the walker needs no help from user space for the objects it has built a
 * table for: a program's first milliseconds (its executable, ld.so, libc), libraries mapped
 * since the mappings were read. Key: the file's device in the kernel's encoding
 * (MKDEV: major << 20 | minor, include/linux/kdev_t.h) and inode. A mapping of the file at
 * vm_start with file offset off = vm_pgoff * 4096 in segment i (segs[i].start <= off <
 * segs[i].end: the pages of an executable PT_LOAD) holds vaddr pc - vm_start + off +
 * segs[i].delta, and row pcs count from base.
 */
#define CP_OBJ_SEGS	      4
#define CP_DEF_OBJTAB_ENTRIES 4096
#define CP_VMASENT_ENTRIES    8192
#define CP_VTABLE_ENTRIES     512 /* processes with a mapping table made from their VMAs */
#define CP_KDEV_MINOR_BITS    20

struct cp_obj_key {
	__u64 dev, ino;
};

struct cp_obj_seg {
	__u64 start, end; /* file offsets: [pagedown(p_offset), p_offset + p_filesz) */
	__s64 delta;	  /* p_vaddr - p_offset */
};

struct cp_obj_table {
	__u64 base;	 /* vaddr the row pcs are relative to */
	__u32 first_row; /* rows [first_row, first_row + n_rows) of the row store */
	__u32 n_rows;
	__u32 n_segs; /* executable PT_LOADs in segs */
	__u32 pad;
	struct cp_obj_seg segs[CP_OBJ_SEGS];
};
_Static_assert(sizeof(struct cp_obj_table) == 24 + 24 * CP_OBJ_SEGS, "cp_obj_table layout");

struct cp_unwind_proc {
	__u32 gen;    /* cp_proc.gen these mappings belong to */
	__u32 n_maps; /* sorted by start, disjoint */
	struct cp_unwind_map maps[CP_MAX_UNWIND_MAPS];
};
_Static_assert(sizeof(struct cp_unwind_proc) == 8 + 32 * CP_MAX_UNWIND_MAPS, "cp_unwind_proc");

/* ---- ring buffer: requests from BPF to user space -------------------------------------- */

enum cp_event_type {
	CP_EV_NEW_PROC = 1,	/* first sample of (pid, gen): snapshot its mappings now */
	CP_EV_MAPS_CHANGED = 2, /* (pid, gen)'s executable mappings changed: read them again */
	CP_EV_MAPPING = 3,	/* struct cp_map_event: a file mapping the walker found itself */
};

struct cp_event {
	__u32 type; /* enum cp_event_type */
	__u32 pid;
	__u32 gen;
	__u32 pad;
};
_Static_assert(sizeof(struct cp_event) == 16, "cp_event layout");

/*
 * A file mapping of (pid, gen) that a walk met before user space had read it (a program's
 * first milliseconds, a library just mapped), as the kernel's VMA says it: user space adds it
 * to the process's snapshot, so its frames are named even when the process is gone before
 * its mappings could be read. Sent once per (pid, gen, start), not rate-limited.
 */
struct cp_map_event {
	struct cp_event ev; /* type CP_EV_MAPPING */
	__u64 start, end;   /* vm_start, vm_end */
	__u64 pgoff;	    /* vm_pgoff: file offset of start in pages */
	__u64 dev, ino;	    /* the file: s_dev in the kernel's encoding (see cp_obj_key) */
};
_Static_assert(sizeof(struct cp_map_event) == 56, "cp_map_event layout");

/*
 * Requests to user space (new process, mappings changed) are rate-limited per CPU: each one
 * costs user space a read of /proc/PID/maps and possibly building tables, and a burst of
 * short-lived processes must not flood it. A request over the limit is asked again at a later
 * sample of that process.
 */
#define CP_REQ_WINDOW_NS  100000000ull /* 100 ms */
#define CP_REQ_PER_WINDOW 20

/*
 * The walker keeps, per CPU, the rows it found for the last pcs (direct-mapped by pc and
 * process): a stack seen again skips both binary searches. An entry is good while its
 * process, generation and the tables epoch (bumped by user space at every mapping table it
 * publishes) are those it was filled with.
 */
#define CP_ROWCACHE_SLOTS 256

/* ---- counters (per-CPU array indexed by enum cp_stat) ---------------------------------- */

enum cp_stat {
	CP_STAT_SAMPLES = 0,	  /* program invocations */
	CP_STAT_RECORDED,	  /* samples added to the counts map */
	CP_STAT_IDLE,		  /* dropped: idle task (without --include-idle) */
	CP_STAT_FILTERED,	  /* dropped: not a target process */
	CP_STAT_USTACK_COLLISION, /* user stack lost: STACK_TRACE bucket collision */
	CP_STAT_USTACK_FULL,	  /* user stack lost: stack map full */
	CP_STAT_USTACK_FAULT,	  /* user stack lost: unreadable (no frames) */
	CP_STAT_USTACK_ERROR,	  /* user stack lost: other error */
	CP_STAT_KSTACK_COLLISION, /* kernel stack lost: bucket collision */
	CP_STAT_KSTACK_FULL,	  /* kernel stack lost: stack map full */
	CP_STAT_KSTACK_FAULT,	  /* kernel stack lost: other error */
	CP_STAT_COUNTS_FULL,	  /* dropped: counts map full */
	CP_STAT_PROCS_FULL,	  /* process not tracked (procs map full): mappings not saved */
	CP_STAT_EVENTS_LOST,	  /* snapshot request lost: ring buffer full */
	CP_STAT_REFRESH_LOST,	  /* mapping refresh request lost: ring buffer full */
	/* --unwind dwarf */
	CP_STAT_DWARF_OK,	   /* user stack walked to an outermost frame; then one per
				      enum cp_dstack_end, in its order */
	CP_STAT_DWARF_TRUNCATED,   /* ended at CP_MAX_USTACK_DEPTH */
	CP_STAT_DWARF_NO_MAPPING,  /* ended: pc outside the known mappings */
	CP_STAT_DWARF_NOT_COVERED, /* ended: pc without CFI */
	CP_STAT_DWARF_UNSUPPORTED, /* ended: unsupported unwind rule */
	CP_STAT_DWARF_READ,	   /* ended: stack memory unreadable */
	CP_STAT_DWARF_LOOP,	   /* ended: stack pointer went backwards */
	CP_STAT_DWARF_BAD_FP,	   /* ended: no table, and rbp is no frame pointer */
	CP_STAT_DWARF_BAD_RA,	   /* ended: return address outside the mappings */
	CP_STAT_DWARF_NO_TABLE,	   /* tables not loaded yet: frame pointers instead */
	CP_STAT_DWARF_COLLISION,   /* user stack lost: two stacks with one hash */
	CP_STAT_DWARF_FULL,	   /* user stack lost: dstacks map full */
	CP_STAT_DWARF_TAILCALL,	   /* walk not started: tail call failed (frame pointers) */
	CP_STAT_REQ_THROTTLED,	   /* mapping request put off: over the rate limit */
	CP_STAT_SLOT_BUSY,	   /* dropped: the aggregation maps switched twice meanwhile */
	CP_STAT_IN_EXECVE,	   /* user stack left out: sampled in execve, whose user
				      registers are the replaced program's */
	CP_STAT_GO_OLD_GEN,	   /* goroutine labels not read: the Go offsets in go_procs
				      are of an earlier generation of the process */
	CP_STAT_GO_UNREAD,	   /* goroutine labels lost: the goroutine has labels, but
				      their memory could not be read (bpf_probe_read_user
				      takes no page fault) */
	CP_STAT_GO_NEW_GEN,	   /* goroutine labels not read: the Go offsets in go_procs
				      are of a later generation than the sample's */
	CP_STAT_COUNTS_NOMEM,	   /* dropped: the counts map (not preallocated) had no
				      element ready (ENOMEM), not full */
	CP_STAT_PROCS_NOMEM,	   /* process not tracked: the procs map (not preallocated)
				      had no element ready (ENOMEM), not full */
	CP_STAT_MAX,
};
_Static_assert(CP_STAT_DWARF_BAD_RA - CP_STAT_DWARF_OK == CP_DEND_BAD_RA &&
		       CP_DEND_BAD_RA + 1 == CP_DEND_MAX,
	       "end reasons and their counters in step");
_Static_assert(CP_STAT_MAX <= 40, "cp_stat fits the stats map");

/* ---- unwind tables (user space builds them from .eh_frame / .debug_frame) -------------- */

/*
 * One row per PC where the x86-64 unwind rule of an object changes; a row holds from its pc
 * up to the next row's pc, so a lookup is "the last row with pc <= x" (x = the leaf's PC, or
 * a return address - 1 for callers). Rows of one object are sorted by pc, pcs are unique,
 * two consecutive rows never carry the same rule, and every function ends with a
 * CP_CFA_END_FUNC row unless the next function starts right there.
 *
 * pc is a 32-bit offset from the table's base: the lowest PT_LOAD p_vaddr of the object (0 for
 * PIE and shared objects, e.g. 0x400000 for a non-PIE executable). So the BPF side computes
 * row_pc = runtime_pc - load_bias - base with the same load bias as symbolization. Objects
 * whose executable code spans 4 GiB or more get no table (builder: -EFBIG).
 *
 * 16 bytes: the two offsets must be 32-bit (CFA offsets beyond +-32 KiB exist: a 40000-byte
 * local array, large C++/Rust frames; Parca's s16 wraps there), which with a 32-bit pc leaves
 * no room for the type bytes in 12. 16 keeps every field naturally aligned and a row index a
 * shift; a 4 MiB map value holds 262144 rows. The return address is not stored: it is at
 * CFA - 8 in every supported row (anything else is CP_UNW_RA).
 */
enum cp_cfa_type {
	CP_CFA_UNSUPPORTED = 0, /* rule not representable, see reason; counted, never guessed */
	CP_CFA_RSP = 1,		/* CFA = rsp + cfa_off */
	CP_CFA_RBP = 2,		/* CFA = rbp + cfa_off */
	/*
	 * The two CFA expressions binutils emits for a lazy .plt (elf64-x86-64.c), 16-byte
	 * entries that push once: CFA = rsp + 8, plus 8 once (rip & 15) >= cfa_off, the entry
	 * offset after the push. PLT1: the classic PLT, cfa_off 11. PLT2: the IBT PLT
	 * (endbr64 first), cfa_off 10 in older binutils, 9 in 2.40's x32-style layout.
	 */
	CP_CFA_PLT1 = 3,
	CP_CFA_PLT2 = 4,
	CP_CFA_END_FUNC = 5,  /* no CFI from here on: gap between functions or end of the table */
	CP_CFA_END_STACK = 6, /* return address undefined (_start, thread start): outermost frame */
	/*
	 * glibc's __restore_rt (CIE augmentation "S"): rsp points at the kernel's ucontext; the
	 * interrupted rsp is at [rsp + cfa_off], rbp at [rsp + rbp_off] and rip at
	 * [rsp + CP_SIGFRAME_RIP_OFF], and that rip is an exact PC (no - 1 for its lookup).
	 */
	CP_CFA_SIGNAL = 7,
	/*
	 * Go's runtime.systemstack and runtime.morestack: on the thread's system stack (g0) the
	 * goroutine they serve goes on at g.m.curg.sched (the gobuf saved at the switch), as Go's
	 * own traceback jumps there (runtime/traceback.go, _TraceJumpStack). g is read at
	 * fsbase - 8 * pad (Go's TLS slot, -8 on amd64), g.m at CP_GO_GM(rbp_off), m.g0 at 0,
	 * m.curg at CP_GO_CURG(rbp_off), g.sched at CP_GO_SCHED(rbp_off) (the Go version's
	 * runtime2.go). rbp_type: enum cp_go_switch. Anywhere but on g0 the function's own frame:
	 * CFA = rsp + cfa_off, rbp unchanged.
	 */
	CP_CFA_GO_SWITCH = 8,
};

/* CP_CFA_GO_SWITCH: where the goroutine's next frame is. */
enum cp_go_switch {
	CP_GO_SYSTEMSTACK = 0, /* sched.pc is a pretend pc: the return address is at sched.sp */
	CP_GO_MORESTACK = 1,   /* sched.pc is the return address into the growing function */
	/*
	 * runtime.nanotime1 and walltime around their vDSO call (possibly on g0): the caller's
	 * sp and pc are in m.vdsoSP and m.vdsoPC (at CP_GO_CURG(rbp_off) and 8 after it), on g0
	 * or not; 0 there: the function's own frame
	 */
	CP_GO_VDSO = 2,
};
/*
 * rbp_off of a CP_CFA_GO_SWITCH row: m.curg (or m.vdsoSP) in bits 0-11, gobuf.bp / 8 in 12-14,
 * bit 15 (CP_GO_SYSTEMSTACK) set when runtime.systemstack keeps a frame pointer (Go 1.21 and
 * later: the caller's rbp at sched.sp, the return address after it), g.m / 8 in 16-23, g.sched / 8
 * in 24-31.
 */
#define CP_GO_PACK(gm, curg, sched, bp, fp)                                                    \
	((__s32)(((__u32)(curg)&0xfff) | ((__u32)(bp) / 8 & 7) << 12 | ((__u32)(fp)&1) << 15 | \
		 ((__u32)(gm) / 8) << 16 | ((__u32)(sched) / 8) << 24))
#define CP_GO_CURG(off)	    ((__u32)(off)&0xfff)
#define CP_GO_GOBUF_BP(off) (((__u32)(off) >> 12 & 7) * 8)
#define CP_GO_FP(off)	    ((__u32)(off) >> 15 & 1)
#define CP_GO_GM(off)	    (((__u32)(off) >> 16 & 0xff) * 8)
#define CP_GO_SCHED(off)    (((__u32)(off) >> 24 & 0xff) * 8)
#define CP_GO_MAX_OFF	    0xfff /* the largest m.curg or m.vdsoSP a row holds */
/* runtime/runtime2.go gobuf: sp, pc first (since Go 1.4); bp's place is in the row */
#define CP_GOBUF_SP 0
#define CP_GOBUF_PC 8

enum cp_rbp_type {
	CP_RBP_UNCHANGED = 0,	/* the caller's rbp is the current rbp (unset or same value) */
	CP_RBP_CFA_OFF = 1,	/* the caller's rbp is saved at CFA + rbp_off */
	CP_RBP_UNSUPPORTED = 2, /* in a register, an expression, undefined: reason CP_UNW_RBP */
};

/* Why a row is CP_CFA_UNSUPPORTED (or its rbp CP_RBP_UNSUPPORTED). */
enum cp_unwind_reason {
	CP_UNW_OK = 0,
	CP_UNW_CFA_REG = 1,  /* CFA based on a register other than rsp/rbp */
	CP_UNW_CFA_EXPR = 2, /* a CFA expression other than the PLT ones */
	CP_UNW_RA = 3,	     /* return address not saved at CFA - 8 */
	CP_UNW_RBP = 4,	     /* rbp rule other than unchanged / CFA + off (row still usable) */
	CP_UNW_SIGNAL = 5,   /* signal frame whose expressions are not glibc's */
	CP_UNW_RANGE = 6,    /* offset outside __s32 */
	CP_UNW_BAD_CFI = 7,  /* malformed or unknown CFA instructions in this function */
	CP_UNW_MAX,
};

/* __restore_rt: rip in the ucontext at rsp (uc_mcontext at +40, rip at +0x80 in it) */
#define CP_SIGFRAME_RIP_OFF 168

struct cp_unwind_row {
	__u32 pc;      /* start, as offset from the object's base vaddr (see above) */
	__s32 cfa_off; /* CP_CFA_RSP/RBP: added to the register; PLT, SIGNAL: see there */
	__s32 rbp_off; /* CP_RBP_CFA_OFF: from the CFA; CP_CFA_SIGNAL: see there */
	__u8 cfa_type; /* enum cp_cfa_type */
	__u8 rbp_type; /* enum cp_rbp_type */
	__u8 reason;   /* enum cp_unwind_reason */
	__u8 pad;      /* CP_CFA_GO_SWITCH: see there; else 0 */
};
_Static_assert(sizeof(struct cp_unwind_row) == 16, "cp_unwind_row layout");
_Static_assert(__builtin_offsetof(struct cp_unwind_row, cfa_off) == 4, "cp_unwind_row.cfa_off");
_Static_assert(__builtin_offsetof(struct cp_unwind_row, rbp_off) == 8, "cp_unwind_row.rbp_off");
_Static_assert(__builtin_offsetof(struct cp_unwind_row, cfa_type) == 12, "cp_unwind_row.cfa_type");
_Static_assert(CP_UNW_MAX <= 255, "cp_unwind_reason fits a __u8");
struct cp_row_chunk {
	struct cp_unwind_row rows[CP_ROW_CHUNK_ROWS];
};
_Static_assert(sizeof(struct cp_row_chunk) == 1u << 20, "1 MiB chunks");
_Static_assert(sizeof(struct cp_row_chunk) <= CP_KLIMIT_ARRAY_VALUE, "an array value");
_Static_assert((CP_ROW_CHUNK_ROWS * sizeof(struct cp_unwind_row)) % CP_KLIMIT_PAGE_SIZE == 0,
	       "a chunk is whole pages: user space writes it through mmap");

#endif /* CPUPROF_SHARED_H */
