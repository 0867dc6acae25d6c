// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling side of cpuprof: one perf_event program runs on every CPU at each cpu-clock tick,
 * filters the task, takes its kernel stack (bpf_get_stackid) and its user stack, and counts
 * (pid, tid, gen, user stack, kernel stack, names) in a hash map. The user stack is walked
 * here with the unwind tables user space built from each object's .eh_frame (--unwind auto
 * and dwarf: a tail-called walker, CP_UNWIND_FRAMES_PER_PROG frames a run, frame pointers for
 * code without a table), or by the kernel through frame pointers (--unwind fp). Pcs of code
 * with no table yet become requests on the ring buffer. Two BTF tracepoints keep the
 * per-process generation in step with exec and fork. Every sample dropped or damaged bumps a
 * per-CPU counter (enum cp_stat in shared.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "shared.h"
#include "runtime_shared.h"
#include "runtime_walk.bpf.h"
/* the walkers of the runtimes (runtime_profile.bpf.h): rt_procs is their process map */
#include "python_shared.h"
#include "python_walk.bpf.h"
#include "ruby_shared.h"
#include "ruby_walk.bpf.h"
#include "php_shared.h"
#include "php_walk.bpf.h"
#include "perl_shared.h"
#include "perl_walk.bpf.h"
#include "v8_shared.h"
#include "v8_walk.bpf.h"
/* HotSpot: a step of the JIT hook (jit_hook.bpf.h), no walker */
#include "hotspot_shared.h"

/* errno values as the kernel returns them (include/uapi/asm-generic/errno-base.h, errno.h). */
#define CP_EFAULT 14
#define CP_EEXIST 17
#define CP_ENOMEM 12

const volatile struct cp_config cfg = {};
/* bumped by user space after each mapping table it publishes: the row caches are stale */
volatile __u32 tables_epoch;

/*
 * The aggregation maps, two sets (slot 0 and 1; see struct cp_slot_counters in shared.h): a
 * sample goes to the set of the slot active when it began, while user space drains the other.
 */
#define CP_STACK_MAP(name, entries)                                     \
	struct {                                                        \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                 \
		__uint(key_size, sizeof(__u32));                        \
		__uint(value_size, CP_MAX_STACK_DEPTH * sizeof(__u64)); \
		__uint(max_entries, entries);                           \
	} name SEC(".maps")
#define CP_COUNTS_MAP(name)                                \
	struct {                                           \
		__uint(type, BPF_MAP_TYPE_HASH);           \
		__type(key, struct cp_count_key);          \
		__type(value, __u64);                      \
		__uint(max_entries, CP_DEF_COUNT_ENTRIES); \
	} name SEC(".maps")

CP_STACK_MAP(ustacks0, CP_DEF_USTACK_ENTRIES);
CP_STACK_MAP(ustacks1, CP_DEF_USTACK_ENTRIES);
CP_STACK_MAP(kstacks0, CP_DEF_KSTACK_ENTRIES);
CP_STACK_MAP(kstacks1, CP_DEF_KSTACK_ENTRIES);
CP_COUNTS_MAP(counts0);
CP_COUNTS_MAP(counts1);

/* the slot new samples go to; flipped by user space to drain the other set */
volatile __u32 active_slot;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_slot_counters);
	__uint(max_entries, 1);
} slot_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_proc);
	__uint(max_entries, CP_DEF_PROC_ENTRIES);
} procs SEC(".maps");

/* processes --comm rejected: tgid -> 1; inserted by user space, deleted here at exec */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, CP_REQ_ENTRIES);
} excluded SEC(".maps");

/* refresh requests not yet answered: tgid -> gen; deleted by user space before it reads */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, CP_REQ_ENTRIES);
} refresh SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CP_RINGBUF_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_STAT_MAX);
} stats SEC(".maps");

/* requests sent in the current window, per CPU */
struct cp_ratelimit {
	__u64 window; /* start, ns */
	__u32 sent;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_ratelimit);
	__uint(max_entries, 1);
} ratelimit SEC(".maps");

/* ---- --unwind dwarf ---------------------------------------------------------------------- */

/*
 * The rows of every object's table: chunks of CP_ROW_CHUNK_ROWS rows that user space creates
 * as tables are loaded and fills through mmap (shared.h, CP_ROW_CHUNK_SHIFT).
 */
struct cp_row_chunk_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	/* sizes, not types: clang gives the types of an inner map only as declarations */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct cp_row_chunk));
	__uint(max_entries, 1);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, CP_MAX_ROW_CHUNKS);
	__array(values, struct cp_row_chunk_map);
} unwind_chunks SEC(".maps");

/* Chunk c of the row store, or NULL. */
static __always_inline struct cp_row_chunk *row_chunk(__u32 c)
{
	__u32 zero = 0;
	void *m = bpf_map_lookup_elem(&unwind_chunks, &c);

	return m ? bpf_map_lookup_elem(m, &zero) : NULL;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_unwind_proc);
	__uint(max_entries, CP_DEF_UPROC_ENTRIES);
} uprocs SEC(".maps");

#define CP_DSTACK_MAP(name)                                 \
	struct {                                            \
		__uint(type, BPF_MAP_TYPE_HASH);            \
		__type(key, __u64);                         \
		__type(value, struct cp_dstack);            \
		__uint(max_entries, CP_DEF_DSTACK_ENTRIES); \
	} name SEC(".maps")

/* the walked stacks, one map per slot like counts */
CP_DSTACK_MAP(dstacks0);
CP_DSTACK_MAP(dstacks1);

/* the interpreters' processes: tgid -> struct cp_rt_proc, filled by user space at attach */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_rt_proc);
	__uint(max_entries, CP_RT_DEF_PROCS);
} rt_procs SEC(".maps");

/* the interpreter frames of samples, under a hash (cp_count_key.istack), one map per slot */
#define CP_RTSTACK_MAP(name)                           \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_HASH);       \
		__type(key, __u64);                    \
		__type(value, struct cp_rt_stored);    \
		__uint(max_entries, CP_RT_DEF_STACKS); \
	} name SEC(".maps")

CP_RTSTACK_MAP(rtstacks0);
CP_RTSTACK_MAP(rtstacks1);

/* what BPF copied of each frame's code while its process lived (runtime_shared.h) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct cp_rt_name_key);
	__type(value, struct cp_rt_name);
	__uint(max_entries, CP_RT_DEF_NAMES);
} rt_names SEC(".maps");

/* CP_RT_STAT_ROW counters per runtime (enum cp_rt_stat) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, CP_RT_STATS);
} rt_stats SEC(".maps");

static __always_inline void rt_stat(__u32 runtime, __u32 idx)
{
	__u32 i = runtime * CP_RT_STAT_ROW + idx;
	__u64 *v = bpf_map_lookup_elem(&rt_stats, &i);

	if (v)
		*v += 1;
}

/* The runtime of process (pid, gen) the walkers know, CP_RT_NONE when none. */
static __always_inline __u32 rt_of(__u32 pid, __u32 gen)
{
	struct cp_rt_proc *rp = bpf_map_lookup_elem(&rt_procs, &pid);

	/* user space may answer for an older generation late (a request before exec) */
	if (!rp || rp->gen != gen || rp->runtime >= CP_RT_MAX)
		return CP_RT_NONE;
	return rp->runtime;
}

/* slot 0: cp_unwind; CP_RT_WALKER(id): runtime id's walker; set by user space after load */
#define CP_PROG_UNWIND CP_RT_WALKER(CP_RT_NONE)
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, CP_RT_PROGS);
	__type(key, __u32);
	__type(value, __u32);
} unwind_progs SEC(".maps");

/* The row found for pc look of (pid, gen) under tables epoch (see CP_ROWCACHE_SLOTS). */
struct cp_rowcache {
	__u64 look;
	__u32 pid, gen;
	__u32 epoch, pad;
	struct cp_unwind_row row;
};

/* The walk in progress on this CPU, carried across tail calls (too big for the BPF stack). */
struct cp_ustate {
	__u64 pc, sp, bp; /* registers of the frame about to be pushed */
	__u64 h1, h2;	  /* two hashes of the frames pushed so far */
	__u32 exact;	  /* pc is not a return address: look it up as is */
	__u32 epoch;	  /* tables_epoch when this walk started */
	__u32 slot;	  /* the set of aggregation maps of this sample (slot_enter) */
	__u32 unknown;	  /* a pc outside the known mappings was met: ask to read them again */
	__u32 vma_tried;  /* cp_vt_find read a VMA in this sample: no other can be */
	__u32 runtime;	  /* the process's runtime (rt_procs): its walker runs after this walk */
	struct cp_unwind_map vm; /* the mapping cp_vt_find found last */
	struct cp_count_key key;
	struct cp_dstack st;
	struct cp_rt_stored rt; /* the sample's interpreter frames (its runtime's walker) */
	struct cp_rowcache cache[CP_ROWCACHE_SLOTS];
	__u32 go_jumped; /* went from a Go system stack to its goroutine (once a walk) */
	__u32 go_pad;
	__u64 r13; /* the sampled r13: HotSpot's interpreter keeps its bcp there (leaf frame) */
};
_Static_assert(sizeof(struct cp_ustate) <= CP_KLIMIT_PERCPU_VALUE,
	       "a per-CPU value the kernel takes");
_Static_assert(sizeof(struct cp_ratelimit) <= CP_KLIMIT_PERCPU_VALUE, "a per-CPU value");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_ustate);
	__uint(max_entries, 1);
} ustate SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	/* per-CPU slot: no other CPU writes it, and the program does not nest on one CPU */
	if (v)
		*v += 1;
}

/*
 * 1 when a >= b, else 0, computed without a branch: the borrow of a - b (Hacker's Delight,
 * 2-13). The binary searches below step by it, so that the verifier walks one path per step,
 * not a tree of them; the barrier keeps clang from making a branch of it again.
 */
static __always_inline __u64 cp_ge(__u64 a, __u64 b)
{
	__u64 ge = (((~a & b) | (~(a ^ b) & (a - b))) >> 63) ^ 1;

	barrier_var(ge);
	return ge;
}

/* The set of aggregation maps of a slot. */
static __always_inline void *counts_of(__u32 slot)
{
	return slot ? (void *)&counts1 : (void *)&counts0;
}

static __always_inline void *ustacks_of(__u32 slot)
{
	return slot ? (void *)&ustacks1 : (void *)&ustacks0;
}

static __always_inline void *kstacks_of(__u32 slot)
{
	return slot ? (void *)&kstacks1 : (void *)&kstacks0;
}

static __always_inline void *dstacks_of(__u32 slot)
{
	return slot ? (void *)&dstacks1 : (void *)&dstacks0;
}

static __always_inline struct cp_slot_counters *slot_ctr(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&slot_counters, &zero);
}

/*
 * Begin using the active slot's maps (shared.h, struct cp_slot_counters, says why this is
 * exact): announce the slot, then check that it is still the active one. 0 with *slot set, or
 * -1 when user space switched twice meanwhile (the sample is dropped, and counted).
 */
static __always_inline int slot_enter(__u32 *slot)
{
	struct cp_slot_counters *c = slot_ctr();
	__u32 s;

	if (!c)
		return -1;
	for (int i = 0; i < 2; i++) {
		s = active_slot & 1;
		/* an atomic read-modify-write: a full barrier before the second read */
		__sync_fetch_and_add(&c->enter[s], 1);
		if ((active_slot & 1) == s) {
			*slot = s;
			return 0;
		}
		__sync_fetch_and_add(&c->leave[s], 1);
	}
	stat_inc(CP_STAT_SLOT_BUSY);
	return -1;
}

/* Done with the maps of slot: every write to them is before this. */
static __always_inline void slot_leave(__u32 slot)
{
	struct cp_slot_counters *c = slot_ctr();

	if (c)
		__sync_fetch_and_add(&c->leave[slot & 1], 1);
}

/* One more key in the counts map of slot (its fill level); per CPU: no atomic needed. */
static __always_inline void slot_added(__u32 slot, const struct cp_count_key *key)
{
	struct cp_slot_counters *c = slot_ctr();

	if (!c)
		return;
	c->counts[slot & 1] += 1;
	if (key->ustack_id >= 0)
		c->ustacks[slot & 1] += 1;
}

/* One more stack in the dstacks map of slot. */
static __always_inline void slot_added_dstack(__u32 slot)
{
	struct cp_slot_counters *c = slot_ctr();

	if (c)
		c->dstacks[slot & 1] += 1;
}

/* True when this CPU may send one more request now (CP_REQ_PER_WINDOW per window). */
static __always_inline bool request_allowed(void)
{
	__u32 zero = 0;
	struct cp_ratelimit *rl = bpf_map_lookup_elem(&ratelimit, &zero);
	__u64 now = bpf_ktime_get_ns();

	if (!rl)
		return true;
	if (now - rl->window >= CP_REQ_WINDOW_NS) {
		rl->window = now;
		rl->sent = 0;
	}
	if (rl->sent >= CP_REQ_PER_WINDOW) {
		stat_inc(CP_STAT_REQ_THROTTLED);
		return false;
	}
	rl->sent++;
	return true;
}

/* Send one request of this type for (pid, gen) to user space. 0, or -1 when it was lost. */
static __always_inline int send_event(__u32 type, __u32 pid, __u32 gen)
{
	struct cp_event *ev;

	if (!request_allowed())
		return -1;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		stat_inc(type == CP_EV_NEW_PROC ? CP_STAT_EVENTS_LOST : CP_STAT_REFRESH_LOST);
		return -1;
	}
	ev->type = type;
	ev->pid = pid;
	ev->gen = gen;
	ev->pad = 0;
	bpf_ringbuf_submit(ev, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * Ask user space to read the mappings of (pid, gen) the first time (CP_PROC_REQUESTED), then
 * whenever its executable mappings have grown or shrunk since, one request at a time (the
 * refresh map holds the unanswered one). A lost request is retried at the next sample;
 * duplicates are harmless.
 */
static __always_inline void request_maps(__u32 pid, struct cp_proc *p, __u64 exec_vm)
{
	if (!(p->flags & CP_PROC_REQUESTED)) {
		if (send_event(CP_EV_NEW_PROC, pid, p->gen) == 0) {
			p->flags |= CP_PROC_REQUESTED;
			p->exec_vm = exec_vm;
		}
		return;
	}
	if (exec_vm == p->exec_vm)
		return;
	if (bpf_map_update_elem(&refresh, &pid, &p->gen, BPF_NOEXIST))
		return; /* one is pending (or the map is full): ask again later */
	if (send_event(CP_EV_MAPS_CHANGED, pid, p->gen) == 0)
		p->exec_vm = exec_vm;
	else
		bpf_map_delete_elem(&refresh, &pid);
}

/*
 * A walk of (pid, gen) met a pc outside its known mappings: ask user space to read them
 * again, at most once per CP_UNKNOWN_REFRESH_NS, and only while no refresh is pending.
 */
static __always_inline void request_unknown(__u32 pid, __u32 gen)
{
	struct cp_proc *p = bpf_map_lookup_elem(&procs, &pid);
	__u64 now;

	if (!p || p->gen != gen || !(p->flags & CP_PROC_REQUESTED))
		return;
	now = bpf_ktime_get_ns();
	if (now - p->unknown_ns < CP_UNKNOWN_REFRESH_NS)
		return;
	if (bpf_map_update_elem(&refresh, &pid, &gen, BPF_NOEXIST))
		return;
	if (send_event(CP_EV_MAPS_CHANGED, pid, gen) == 0)
		p->unknown_ns = now;
	else
		bpf_map_delete_elem(&refresh, &pid);
}

/*
 * Decide whether the sample of process tgid is kept, and find its generation.
 * Returns 0 to keep it, -1 to drop it (counted as filtered).
 */
static __always_inline int select_process(__u32 tgid, struct mm_struct *mm, __u32 *gen)
{
	__u64 exec_vm;
	struct cp_proc *p, fresh = {};
	long err;

	*gen = 0;
	if (tgid == 0)
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p) {
		if (cfg.filter_mode == CP_FILTER_PIDS)
			return -1;
		err = bpf_map_update_elem(&procs, &tgid, &fresh, BPF_NOEXIST);
		if (err && err != -CP_EEXIST)
			stat_inc(err == -CP_ENOMEM ? CP_STAT_PROCS_NOMEM : CP_STAT_PROCS_FULL);
		p = bpf_map_lookup_elem(&procs, &tgid);
		if (!p)
			return 0; /* keep the sample; its mappings cannot be tracked */
	}
	if (cfg.filter_mode == CP_FILTER_PIDS && !(p->flags & CP_PROC_TRACED))
		return -1;
	if (bpf_map_lookup_elem(&excluded, &tgid))
		return -1;
	*gen = p->gen;
	if (!mm)
		return 0;
	/* pages of executable mappings: the dynamic loader and dlopen change it */
	exec_vm = BPF_CORE_READ(mm, exec_vm);
	request_maps(tgid, p, exec_vm);
	return 0;
}

static __always_inline __s32 user_stack(struct bpf_perf_event_data *ctx, __u32 slot)
{
	long id = bpf_get_stackid(ctx, ustacks_of(slot), BPF_F_USER_STACK);

	if (id >= 0)
		return id;
	if (id == -CP_EEXIST)
		stat_inc(CP_STAT_USTACK_COLLISION);
	else if (id == -CP_ENOMEM)
		stat_inc(CP_STAT_USTACK_FULL);
	else if (id == -CP_EFAULT)
		stat_inc(CP_STAT_USTACK_FAULT);
	else
		stat_inc(CP_STAT_USTACK_ERROR);
	return id;
}

static __always_inline __s32 kernel_stack(struct bpf_perf_event_data *ctx, __u32 slot)
{
	long id = bpf_get_stackid(ctx, kstacks_of(slot), 0);

	if (id >= 0)
		return id;
	/* no kernel frames: the sample hit user mode */
	if (id == -CP_EFAULT)
		return CP_STACK_NONE;
	if (id == -CP_EEXIST)
		stat_inc(CP_STAT_KSTACK_COLLISION);
	else if (id == -CP_ENOMEM)
		stat_inc(CP_STAT_KSTACK_FULL);
	else
		stat_inc(CP_STAT_KSTACK_FAULT);
	return id;
}

/*
 * The task is in execve: its user registers are those of the program being replaced (whose
 * address space may be gone already), while its name may be the new program's. Such a sample
 * has no user stack of either.
 */
static __always_inline bool in_execve(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (!bpf_core_field_exists(t->in_execve))
		return false;
	return BPF_CORE_READ_BITFIELD(t, in_execve) != 0;
}

#define cp_go_stat(idx) stat_inc(idx)
#include "go_labels.bpf.h"

/* Count the sample of key in the counts map of slot, then leave the slot. */
static __always_inline void count_sample(struct cp_count_key *key, __u32 slot)
{
	void *counts = counts_of(slot);
	__u64 one = 1, *c;
	long err;

	/* the goroutine's labels: only once a Go process is known */
	if (cfg.go_labels && go_present && key->pid && !in_execve())
		key->labels = cp_go_labels(key->pid, key->gen);

	c = bpf_map_lookup_elem(counts, key);
	if (!c) {
		err = bpf_map_update_elem(counts, key, &one, BPF_NOEXIST);
		if (!err) {
			slot_added(slot, key);
			stat_inc(CP_STAT_RECORDED);
			goto out;
		}
		/* another CPU inserted the key meanwhile: add to it */
		c = bpf_map_lookup_elem(counts, key);
		if (!c) {
			/* E2BIG when full; ENOMEM: a map without preallocation had no element */
			stat_inc(err == -CP_ENOMEM ? CP_STAT_COUNTS_NOMEM : CP_STAT_COUNTS_FULL);
			goto out;
		}
	}
	__sync_fetch_and_add(c, 1);
	stat_inc(CP_STAT_RECORDED);
out:
	slot_leave(slot);
}

#include "vma_table.bpf.h"

/*
 * --unwind dwarf: set up the walk of the user stack from the user registers and tail-call the
 * walker, which counts the sample. Returns -1 when the sample is to be counted here with a
 * frame-pointer stack instead (tables not loaded yet, tail call failed).
 */
static __always_inline int dwarf_start(struct bpf_perf_event_data *ctx, struct cp_count_key *key,
				       __u32 slot)
{
	struct cp_unwind_proc *up;
	struct cp_unwind_proc *vt;
	struct cp_ustate *s;
	struct pt_regs *regs;
	__u32 zero = 0;

	up = bpf_map_lookup_elem(&uprocs, &key->pid);
	/* without a mapping table of this generation: the one made from its VMAs, if any */
	if (!up || up->gen != key->gen) {
		vt = bpf_map_lookup_elem(&vtables, &key->pid);
		if (!vt || vt->gen != key->gen) {
			stat_inc(CP_STAT_DWARF_NO_TABLE);
			return -1;
		}
	}
	s = bpf_map_lookup_elem(&ustate, &zero);
	if (!s)
		return -1;
	/* user addresses are in the lower half */
	if (!(ctx->regs.ip >> 63)) {
		s->pc = ctx->regs.ip;
		s->sp = ctx->regs.sp;
		s->bp = ctx->regs.bp;
		s->r13 = ctx->regs.r13;
	} else {
		/* sampled in the kernel: the registers saved at its entry from user mode */
		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		/* helper reads: clang must not merge them with the ctx loads above */
		s->pc = BPF_CORE_READ(regs, ip);
		s->sp = BPF_CORE_READ(regs, sp);
		s->bp = BPF_CORE_READ(regs, bp);
		s->r13 = BPF_CORE_READ(regs, r13);
	}
	s->h1 = 0xcbf29ce484222325ull;
	s->h2 = 0x9e3779b97f4a7c15ull;
	s->exact = 1;
	s->epoch = tables_epoch;
	s->unknown = 0;
	s->vma_tried = 0;
	s->go_jumped = 0;
	s->st.len = 0;
	s->st.end = CP_DEND_OK;
	/* the JIT hook records runtime frames during the native walk */
	s->rt.st.len = 0;
	s->rt.st.end = 0;
	s->rt.st.flags = 0;
	s->key = *key;
	s->slot = slot;
	s->runtime = rt_of(key->pid, key->gen);
	bpf_tail_call(ctx, &unwind_progs, CP_PROG_UNWIND);
	stat_inc(CP_STAT_DWARF_TAILCALL);
	return -1;
}

SEC("perf_event")
int cp_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	struct cp_count_key key = {};
	__u32 tgid = id >> 32, gen, slot;
	struct mm_struct *mm;

	stat_inc(CP_STAT_SAMPLES);
	/* idle is only ever part of a system-wide profile */
	if (tgid == 0 && (!cfg.include_idle || cfg.filter_mode != CP_FILTER_ALL)) {
		stat_inc(CP_STAT_IDLE);
		return 0;
	}
	mm = BPF_CORE_READ(task, mm);
	if (select_process(tgid, mm, &gen)) {
		stat_inc(CP_STAT_FILTERED);
		return 0;
	}

	key.pid = tgid;
	key.gen = gen;
	BPF_CORE_READ_STR_INTO(&key.comm, task, group_leader, comm);
	if (cfg.per_thread) {
		key.tid = (__u32)id;
		bpf_get_current_comm(&key.tcomm, sizeof(key.tcomm));
	}
	key.ustack_id = CP_STACK_NONE;
	key.kstack_id = CP_STACK_NONE;
	/* from here to count_sample (or the walker's), this sample writes the maps of slot */
	if (slot_enter(&slot))
		return 0;
	if (cfg.kernel_stacks)
		key.kstack_id = kernel_stack(ctx, slot);
	/* kernel threads have no user address space */
	if (cfg.user_stacks && mm && in_execve()) {
		stat_inc(CP_STAT_IN_EXECVE);
	} else if (cfg.user_stacks && mm) {
		/* the walker counts the sample and leaves the slot */
		if (cfg.unwind_dwarf && tgid && dwarf_start(ctx, &key, slot) == 0)
			return 0;
		key.ustack_id = user_stack(ctx, slot);
	}
	count_sample(&key, slot);
	return 0;
}

/*
 * Copy to *out the row of rows[first, first + n) of the store in force at row pc x (the last
 * with pc <= x; rows are sorted by pc): 0, or -1 when x is before the first row or a chunk is
 * missing. The range [base, base + len) holds that row; each step halves it without a branch
 * (cp_ge). The chunk of the last row read is kept: the search leaves it only while its range
 * spans chunks, so a step costs one lookup more than in a flat array only in a big table's
 * first steps.
 */
__noinline int cp_find_row(__u32 first, __u32 n, __u32 x, struct cp_unwind_row *out)
{
	__u32 base = first, len = n, half, ci, c;
	struct cp_row_chunk *chunk;
	struct cp_unwind_row *r;

	if (!out || !n || n > CP_MAX_UNWIND_ROWS || first >= CP_MAX_UNWIND_ROWS)
		return -1;
	ci = base >> CP_ROW_CHUNK_SHIFT;
	chunk = row_chunk(ci);
	if (!chunk)
		return -1;
	r = &chunk->rows[base & (CP_ROW_CHUNK_ROWS - 1)];
	if (r->pc > x)
		return -1;
	/* ceil(len / 2) a step: CP_UNWIND_ROW_STEPS steps take 2^24 rows to 1 */
	for (int i = 0; i < CP_UNWIND_ROW_STEPS && len > 1; i++) {
		half = len / 2;
		c = (base + half) >> CP_ROW_CHUNK_SHIFT;
		if (c != ci) {
			ci = c;
			chunk = row_chunk(ci);
			if (!chunk)
				return -1;
		}
		r = &chunk->rows[(base + half) & (CP_ROW_CHUNK_ROWS - 1)];
		base += half & (__u32)-cp_ge(x, r->pc);
		len -= half;
	}
	c = base >> CP_ROW_CHUNK_SHIFT;
	if (c != ci) {
		chunk = row_chunk(c);
		if (!chunk)
			return -1;
	}
	*out = chunk->rows[base & (CP_ROW_CHUNK_ROWS - 1)];
	return 0;
}

/* Result of one step of the walk: go on, or the stack ended (s->st.end says how). */
#define STEP_MORE 0
#define STEP_END  1

static __always_inline int step_end(struct cp_ustate *s, __u32 why)
{
	s->st.end = why;
	return STEP_END;
}

/*
 * The caller of a frame whose pc has no table (JIT code, code without CFI), or -1 when the
 * code at pc does not say. The code that runs next decides, when it is an epilogue:
 * "add $imm8, %rsp; ret", "pop %rbp; ret" or "ret" (CPython 3.12's perf trampolines return
 * through "add $8, %rsp; ret" and keep no frame pointer, Python/asm_trampoline.S). Emulating
 * it is exact, whatever rbp holds.
 */
static __always_inline int epilogue_step(struct cp_ustate *s, __u64 *ra)
{
	__u8 b[8];
	__u64 sp = s->sp, bp = s->bp;
	__u32 i = 0;

	if (bpf_probe_read_user(b, sizeof(b), (void *)s->pc))
		return -1;
	if (b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xc4) {
		/* add $imm8, %rsp: a positive multiple of 8 */
		if ((__s8)b[3] <= 0 || (b[3] & 7))
			return -1;
		sp += b[3];
		i = 4;
	}
	if (i == 0 && b[0] == 0x5d) {
		if (bpf_probe_read_user(&bp, sizeof(bp), (void *)sp))
			return -1;
		sp += 8;
		i = 1;
	}
	if (i == 4 ? b[4] != 0xc3 : i == 1 ? b[1] != 0xc3 : b[0] != 0xc3)
		return -1;
	if (bpf_probe_read_user(ra, sizeof(*ra), (void *)sp))
		return -1;
	s->sp = sp + 8;
	s->bp = bp;
	return 0;
}

/*
 * The caller of a frame whose pc has no table. An epilogue at pc says exactly where the
 * return address is; else the frame is taken by the x86-64 frame-pointer layout when it looks
 * like one: rbp above the stack pointer and within CP_FP_MAX_FRAME of it. The return address
 * found either way must lie in an executable mapping of the process, or the stack ends there.
 */
static __always_inline int fp_step(struct cp_ustate *s, const struct cp_unwind_proc *up)
{
	__u64 frame[2], sp, bp;

	sp = s->sp;
	bp = s->bp;
	if (epilogue_step(s, &frame[1]) == 0)
		goto found;
	/* the psABI marks the outermost frame with rbp 0 */
	if (!bp)
		return step_end(s, CP_DEND_OK);
	if (bp < sp || bp - sp > CP_FP_MAX_FRAME || (bp & 7))
		return step_end(s, CP_DEND_BAD_FP);
	if (bpf_probe_read_user(frame, sizeof(frame), (void *)bp))
		return step_end(s, CP_DEND_READ);
	s->sp = bp + 16;
	s->bp = frame[0];
found:
	if (!frame[1])
		return step_end(s, CP_DEND_OK);
	if (cp_find_map(up, frame[1] - 1) < 0 && cp_vt_find(s, frame[1] - 1) < 0) {
		s->unknown = 1;
		return step_end(s, CP_DEND_BAD_RA);
	}
	s->pc = frame[1];
	s->exact = 0;
	return STEP_MORE;
}

/*
 * A CP_CFA_GO_SWITCH frame on g0: the goroutine's frames go on from g.m.curg.sched. 0 when
 * the walk jumped there (s->pc 0: the stack ends, no goroutine), -1 when this is not g0 (the
 * function's own frame then).
 */
static __always_inline int go_switch(struct cp_ustate *s, const struct cp_unwind_row *r)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 fsbase = BPF_CORE_READ(t, thread.fsbase), g, m, g0, curg, sched[8], fr[2];
	__u32 off = (__u32)r->rbp_off;

	__u32 once = r->rbp_type == CP_GO_VDSO ? 2 : 1;

	if ((s->go_jumped & once) || !fsbase || !r->pad ||
	    bpf_probe_read_user(&g, sizeof(g), (void *)(fsbase - 8 * (__u64)r->pad)) || !g ||
	    bpf_probe_read_user(&m, sizeof(m), (void *)(g + CP_GO_GM(off))) || !m)
		return -1;
	if (r->rbp_type == CP_GO_VDSO) {
		/* m.vdsoSP, m.vdsoPC: the caller's sp and the return address */
		if (bpf_probe_read_user(sched, 16, (void *)(m + CP_GO_CURG(off))) || !sched[0] ||
		    !sched[1])
			return -1;
		s->go_jumped |= once;
		s->sp = sched[0];
		s->pc = sched[1];
		s->exact = 0;
		return 0;
	}
	if (bpf_probe_read_user(&g0, sizeof(g0), (void *)m) || g0 != g ||
	    bpf_probe_read_user(&curg, sizeof(curg), (void *)(m + CP_GO_CURG(off))) || curg == g)
		return -1;
	/* on g0 with no goroutine (it was descheduled from here): Go's traceback ends too */
	if (!curg) {
		s->pc = 0;
		return 0;
	}
	if (bpf_probe_read_user(sched, sizeof(sched), (void *)(curg + CP_GO_SCHED(off))))
		return -1;
	s->go_jumped |= once;
	s->bp = sched[(CP_GO_GOBUF_BP(off) / 8) & 7];
	if (r->rbp_type == CP_GO_MORESTACK) {
		s->pc = sched[CP_GOBUF_PC / 8];
		s->sp = sched[CP_GOBUF_SP / 8];
	} else if (CP_GO_FP(off)) {
		/* systemstack's frame: the caller's rbp, then the return address */
		if (bpf_probe_read_user(fr, sizeof(fr), (void *)sched[CP_GOBUF_SP / 8]))
			return -1;
		s->bp = fr[0];
		s->pc = fr[1];
		s->sp = sched[CP_GOBUF_SP / 8] + 16;
	} else {
		if (bpf_probe_read_user(&s->pc, sizeof(s->pc), (void *)sched[CP_GOBUF_SP / 8]))
			return -1;
		s->sp = sched[CP_GOBUF_SP / 8] + 8;
	}
	s->exact = 0;
	return 0;
}

#include "jit_hook.bpf.h"

/*
 * Push the current frame, then find its caller's pc, sp and bp from the row in force at its
 * pc (the exact pc for the leaf and after a signal frame, else the return address - 1, which
 * lies in the call instruction). With jit, a pc in a JIT range of rp (the process's runtime
 * record, may be NULL): the runtime's step instead (jit_hook.bpf.h). jit is a constant: the
 * step without it has no JIT code at all (cp_unwind_step, cp_unwind_step_jit below).
 */
static __always_inline int unwind_step(struct cp_ustate *s, const struct cp_unwind_proc *up,
				       const struct cp_rt_proc *rp, const bool jit)
{
	const struct cp_unwind_map *m;
	const struct cp_unwind_row *r;
	struct cp_rowcache *c;
	__u64 look, cfa, ra, bp, rel, ip;
	__u64 sig[3];
	__u32 len, slot;
	int mi, ji = -1;

	if (!s || !up)
		return STEP_END;
	len = s->st.len;
	if (len >= CP_MAX_USTACK_DEPTH)
		return step_end(s, CP_DEND_TRUNCATED);
	look = s->exact ? s->pc : s->pc - 1;
	if (jit && rp)
		ji = jit_range(rp, look);
	/* a pc after a signal is named as it is; the leaf always is */
	ip = s->pc | (s->exact && len ? CP_IP_EXACT : 0);
	s->st.ips[len & (CP_MAX_USTACK_DEPTH - 1)] = ip;
	s->st.len = len + 1;
	/*
	 * generated code: the runtime's step (it sees this frame pushed: st.len counts it); a
	 * frame it records gets one pseudo pc per range (its frames are the runtime's), one it
	 * leaves (STEP_NATIVE: a stub, an entry frame) keeps its pc and the native rules
	 */
	mi = STEP_NATIVE;
	if (jit && ji >= 0 && rp) {
		mi = cp_jit_step(s, rp, look);
		if (mi != STEP_NATIVE) {
			ip = rp->jit[ji & (CP_RT_JIT_RANGES - 1)].start + 1;
			s->st.ips[len & (CP_MAX_USTACK_DEPTH - 1)] = ip;
		}
	}
	s->h1 = (s->h1 ^ ip) * 0x100000001b3ull;
	s->h2 = ((s->h2 + ip) << 29 | (s->h2 + ip) >> 35) * 0x9e3779b97f4a7c15ull;
	if (mi != STEP_NATIVE)
		return mi;

	slot = (__u32)(((look ^ (look >> 21)) + s->key.pid) * 0x9e3779b97f4a7c15ull >> 56);
	c = &s->cache[slot & (CP_ROWCACHE_SLOTS - 1)];
	if (c->look == look && c->pid == s->key.pid && c->gen == s->key.gen &&
	    c->epoch == s->epoch) {
		r = &c->row;
	} else {
		mi = cp_find_map(up, look);
		if (mi >= 0) {
			m = &up->maps[mi & (CP_MAX_UNWIND_MAPS - 1)];
		} else if (cp_vt_find(s, look) == 0) {
			/* mapped since the table was read, or no table yet: the VMA says */
			s->unknown = 1;
			m = &s->vm;
		} else {
			/* mapped since the table was read: ask for it again */
			s->unknown = 1;
			/* the leaf's pc is where the thread runs, in executable memory for sure */
			return len ? step_end(s, CP_DEND_NO_MAPPING) : fp_step(s, up);
		}
		/* no table (vDSO, JIT code, no CFI): frame pointers */
		if (!m->n_rows)
			return fp_step(s, up);
		rel = look - m->bias;
		if (rel > 0xffffffffull)
			return fp_step(s, up);
		/* before the first function: code without CFI (V8's embedded builtins) */
		if (cp_find_row(m->first_row, m->n_rows, (__u32)rel, &c->row) < 0)
			return fp_step(s, up);
		r = &c->row;
		c->look = look;
		c->pid = s->key.pid;
		c->gen = s->key.gen;
		c->epoch = s->epoch;
	}

	switch (r->cfa_type) {
	case CP_CFA_RSP:
		cfa = s->sp + (__s64)r->cfa_off;
		break;
	case CP_CFA_RBP:
		cfa = s->bp + (__s64)r->cfa_off;
		break;
	case CP_CFA_PLT1:
	case CP_CFA_PLT2:
		/* the entry's push has happened once the pc is at or past cfa_off in it */
		cfa = s->sp + 8 + ((s->pc & 15) >= (__u64)r->cfa_off ? 8 : 0);
		break;
	case CP_CFA_END_STACK:
		return step_end(s, CP_DEND_OK);
	case CP_CFA_GO_SWITCH:
		if (!go_switch(s, r))
			return s->pc ? STEP_MORE : step_end(s, CP_DEND_OK);
		cfa = s->sp + (__s64)r->cfa_off;
		break;
	case CP_CFA_END_FUNC:
		/* between functions: code without CFI, walked by frame pointers if it has them */
		return fp_step(s, up);
	case CP_CFA_SIGNAL:
		/* the kernel's ucontext at rsp: the interrupted rsp, rbp and (exact) rip */
		if (bpf_probe_read_user(&sig[0], 8, (void *)(s->sp + (__s64)r->cfa_off)) ||
		    bpf_probe_read_user(&sig[1], 8, (void *)(s->sp + (__s64)r->rbp_off)) ||
		    bpf_probe_read_user(&sig[2], 8, (void *)(s->sp + CP_SIGFRAME_RIP_OFF)))
			return step_end(s, CP_DEND_READ);
		if (!sig[2])
			return step_end(s, CP_DEND_OK);
		/* the trampoline: a return address that does not follow a call */
		s->st.ips[len & (CP_MAX_USTACK_DEPTH - 1)] = s->pc | (len ? CP_IP_EXACT : 0);
		s->h1 = (s->h1 ^ CP_IP_EXACT) * 0x100000001b3ull;
		s->sp = sig[0];
		s->bp = sig[1];
		s->pc = sig[2];
		s->exact = 1;
		return STEP_MORE;
	default:
		return step_end(s, CP_DEND_UNSUPPORTED);
	}
	/* the caller's frame is above this one: anything else would walk in circles */
	if (cfa <= s->sp)
		return step_end(s, CP_DEND_LOOP);
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return step_end(s, CP_DEND_READ);
	bp = s->bp;
	if (r->rbp_type == CP_RBP_CFA_OFF &&
	    bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + (__s64)r->rbp_off)))
		return step_end(s, CP_DEND_READ);
	if (!ra)
		return step_end(s, CP_DEND_OK);
	s->pc = ra;
	s->sp = cfa;
	s->bp = bp;
	s->exact = 0;
	return STEP_MORE;
}

/*
 * The step of the walk without the JIT hook (cp_unwind) and with it (cp_unwind_jit). Global,
 * so that the verifier checks each once per program, not once per frame of the walk.
 */
__noinline int cp_unwind_step(struct cp_ustate *s, const struct cp_unwind_proc *up)
{
	return unwind_step(s, up, NULL, false);
}

__noinline int cp_unwind_step_jit(struct cp_ustate *s, const struct cp_unwind_proc *up,
				  const struct cp_rt_proc *rp)
{
	return unwind_step(s, up, rp, true);
}

/* Store the walked stack in the dstacks map of its slot and count the sample under it. */
static __always_inline void dwarf_finish(struct cp_ustate *s)
{
	void *dstacks = dstacks_of(s->slot);
	struct cp_dstack *old;
	__u32 end = s->st.end;
	long err;

	if (end >= CP_DEND_MAX)
		end = CP_DEND_MAX - 1;
	stat_inc(CP_STAT_DWARF_OK + end);
	/* the end reason is part of the stack: a truncated stack is not a complete one */
	s->st.check = (s->h2 ^ end) * 0x9e3779b97f4a7c15ull;
	s->key.ustack_id = CP_STACK_DWARF;
	s->key.dstack = (s->h1 ^ ((__u64)end << 56)) * 0x100000001b3ull;
	/* most stacks were seen before: look up (no lock, no copy) before inserting */
	old = bpf_map_lookup_elem(dstacks, &s->key.dstack);
	if (!old) {
		err = bpf_map_update_elem(dstacks, &s->key.dstack, &s->st, BPF_NOEXIST);
		if (!err)
			slot_added_dstack(s->slot);
		else if (err == -CP_EEXIST)
			old = bpf_map_lookup_elem(dstacks, &s->key.dstack);
		else if (err) {
			stat_inc(CP_STAT_DWARF_FULL);
			s->key.ustack_id = -CP_ENOMEM;
		}
	}
	if (old && old->check != s->st.check) {
		stat_inc(CP_STAT_DWARF_COLLISION);
		s->key.ustack_id = -CP_EEXIST;
	}
	if (s->key.ustack_id != CP_STACK_DWARF)
		s->key.dstack = 0;
	count_sample(&s->key, s->slot);
}

/*
 * The walker: CP_UNWIND_FRAMES_PER_PROG frames per run, then a tail call to the program in
 * unwind_progs[CP_PROG_UNWIND] (itself, or cp_unwind_jit once loaded). Two programs from one
 * body: cp_unwind has no JIT hook, so that the verifier's time for the hook (HotSpot's and
 * V8's steps, most of the walk's) is spent only once a process of such a runtime is found
 * (src/session/bpf_loader.c: cp_unwind_jit then replaces it in the slot).
 */
static __always_inline int unwind_run(struct bpf_perf_event_data *ctx, const bool jit)
{
	struct cp_unwind_proc *up;
	struct cp_rt_proc *rp = NULL;
	struct cp_ustate *s;
	__u32 zero = 0;
	int ret;

	s = bpf_map_lookup_elem(&ustate, &zero);
	if (!s)
		return 0;
	up = bpf_map_lookup_elem(&uprocs, &s->key.pid);
	/* no table of this generation yet: every pc from the one made from the VMAs */
	if (!up || up->gen != s->key.gen)
		up = bpf_map_lookup_elem(&noproc, &zero);
	if (!up) {
		s->st.end = CP_DEND_NO_MAPPING;
		goto done;
	}
	/* a runtime with generated code: its JIT ranges (jit_hook.bpf.h) */
	if (jit && s->runtime) {
		rp = bpf_map_lookup_elem(&rt_procs, &s->key.pid);
		if (rp && (rp->gen != s->key.gen || !rp->jit_n))
			rp = NULL;
	}
	for (int i = 0; i < CP_UNWIND_FRAMES_PER_PROG; i++) {
		ret = jit ? cp_unwind_step_jit(s, up, rp) : cp_unwind_step(s, up);
		if (ret != STEP_MORE)
			goto done;
	}
	bpf_tail_call(ctx, &unwind_progs, CP_PROG_UNWIND);
	/* the chain is exhausted (or the call failed): keep what was walked */
	s->st.end = CP_DEND_TRUNCATED;
done:
	if (s->unknown)
		request_unknown(s->key.pid, s->key.gen);
	/* an interpreter's process: its walker adds its frames, then finishes (dwarf_finish) */
	if (s->runtime) {
		bpf_tail_call(ctx, &unwind_progs, CP_RT_WALKER(s->runtime));
		rt_stat(s->runtime, CP_RT_STAT_TAILCALL);
	}
	dwarf_finish(s);
	return 0;
}

SEC("perf_event")
int cp_unwind(struct bpf_perf_event_data *ctx)
{
	return unwind_run(ctx, false);
}

SEC("perf_event")
int cp_unwind_jit(struct bpf_perf_event_data *ctx)
{
	return unwind_run(ctx, true);
}

/* the walkers of the runtimes: cp_py, cp_rb... */
#include "runtime_profile.bpf.h"

/* A new process (not a thread): start a new generation; follow children of traced ones. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(cp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctgid = child->tgid, ptgid = parent->tgid;
	struct cp_proc *pp, *cp, np = {};
	long err;

	if (child->pid != child->tgid)
		return 0;
	pp = bpf_map_lookup_elem(&procs, &ptgid);
	cp = bpf_map_lookup_elem(&procs, &ctgid);
	if (cp)
		np.gen = cp->gen + 1; /* pid reused within this recording */
	if (cfg.follow_children && pp && (pp->flags & CP_PROC_TRACED))
		np.flags = CP_PROC_TRACED;
	if (!cp && !np.flags)
		return 0;
	err = bpf_map_update_elem(&procs, &ctgid, &np, BPF_ANY);
	if (err)
		stat_inc(err == -CP_ENOMEM ? CP_STAT_PROCS_NOMEM : CP_STAT_PROCS_FULL);
	return 0;
}

/*
 * exec replaces the address space (and the name): new generation, new snapshot, new verdict.
 * The executable and the dynamic loader are mapped by now, so the request for the mappings
 * goes out here rather than at the first sample: their tables can be in before it.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(cp_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	struct cp_proc *cp = bpf_map_lookup_elem(&procs, &tgid), fresh = {};
	struct cp_go_proc *gp;

	bpf_map_delete_elem(&excluded, &tgid);
	bpf_map_delete_elem(&refresh, &tgid);
	/* another program: user space looks for a runtime in it again */
	bpf_map_delete_elem(&rt_procs, &tgid);
	if (cp) {
		cp->gen += 1;
		cp->flags &= ~CP_PROC_REQUESTED;
	} else {
		/* only -p targets and their children are traced: they have an entry */
		if (cfg.filter_mode == CP_FILTER_PIDS)
			return 0;
		if (bpf_map_update_elem(&procs, &tgid, &fresh, BPF_NOEXIST))
			return 0; /* full: counted at its samples */
		cp = bpf_map_lookup_elem(&procs, &tgid);
		if (!cp)
			return 0;
	}
	/* the Go offsets of the program replaced (a command's, set before its exec, stay) */
	gp = bpf_map_lookup_elem(&go_procs, &tgid);
	if (gp && gp->gen < cp->gen)
		bpf_map_delete_elem(&go_procs, &tgid);
	if (cfg.filter_mode == CP_FILTER_PIDS && !(cp->flags & CP_PROC_TRACED))
		return 0;
	if (cfg.user_stacks)
		request_maps(tgid, cp, BPF_CORE_READ(p, mm, exec_vm));
	/* its executable and loader are mapped: their tables can serve its first samples */
	if (cfg.user_stacks && cfg.unwind_dwarf)
		vt_build(tgid, cp->gen);
	return 0;
}

/*
 * The last thread of a process has exited: drop its mapping table, so that the table map
 * holds live processes only (pids are reused with a new generation anyway).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(cp_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;

	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	bpf_map_delete_elem(&uprocs, &tgid);
	bpf_map_delete_elem(&vtables, &tgid);
	bpf_map_delete_elem(&rt_procs, &tgid);
	bpf_map_delete_elem(&go_procs, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
