// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling side of cpuprof: one perf_event program runs on every CPU at each cpu-clock tick,
 * filters the task, collects its kernel and user (frame-pointer) stacks and counts
 * (pid, tid, gen, user stack, kernel stack, names) in a hash map. Two BTF tracepoints keep the
 * per-process generation in step with exec and fork. Every sample dropped or damaged bumps a
 * per-CPU counter (enum cp_stat in shared.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "shared.h"

/* errno values as the kernel returns them (include/uapi/asm-generic/errno-base.h, errno.h). */
#define CP_EFAULT 14
#define CP_EEXIST 17
#define CP_ENOMEM 12

const volatile struct cp_config cfg = {};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, CP_MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, CP_DEF_USTACK_ENTRIES);
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, CP_MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, CP_DEF_KSTACK_ENTRIES);
} kstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct cp_count_key);
	__type(value, __u64);
	__uint(max_entries, CP_DEF_COUNT_ENTRIES);
} counts SEC(".maps");

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

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	/* per-CPU slot: no other CPU writes it, and the program does not nest on one CPU */
	if (v)
		*v += 1;
}

/* Send one request of this type for (pid, gen) to user space. 0, or -1 when it was lost. */
static __always_inline int send_event(__u32 type, __u32 pid, __u32 gen)
{
	struct cp_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

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
			stat_inc(CP_STAT_PROCS_FULL);
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

static __always_inline __s32 user_stack(struct bpf_perf_event_data *ctx)
{
	long id = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);

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

static __always_inline __s32 kernel_stack(struct bpf_perf_event_data *ctx)
{
	long id = bpf_get_stackid(ctx, &kstacks, 0);

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

static __always_inline void count_sample(struct cp_count_key *key)
{
	__u64 one = 1, *c;
	long err;

	c = bpf_map_lookup_elem(&counts, key);
	if (!c) {
		err = bpf_map_update_elem(&counts, key, &one, BPF_NOEXIST);
		if (!err) {
			stat_inc(CP_STAT_RECORDED);
			return;
		}
		/* another CPU inserted the key meanwhile: add to it */
		c = bpf_map_lookup_elem(&counts, key);
		if (!c) {
			stat_inc(CP_STAT_COUNTS_FULL);
			return;
		}
	}
	__sync_fetch_and_add(c, 1);
	stat_inc(CP_STAT_RECORDED);
}

SEC("perf_event")
int cp_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	struct cp_count_key key = {};
	__u32 tgid = id >> 32, gen;
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
	if (cfg.kernel_stacks)
		key.kstack_id = kernel_stack(ctx);
	/* kernel threads have no user address space */
	if (cfg.user_stacks && mm)
		key.ustack_id = user_stack(ctx);
	count_sample(&key);
	return 0;
}

/* A new process (not a thread): start a new generation; follow children of traced ones. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(cp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctgid = child->tgid, ptgid = parent->tgid;
	struct cp_proc *pp, *cp, np = {};

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
	if (bpf_map_update_elem(&procs, &ctgid, &np, BPF_ANY))
		stat_inc(CP_STAT_PROCS_FULL);
	return 0;
}

/* exec replaces the address space (and the name): new generation, new snapshot, new verdict. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(cp_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	struct cp_proc *cp = bpf_map_lookup_elem(&procs, &tgid);

	bpf_map_delete_elem(&excluded, &tgid);
	bpf_map_delete_elem(&refresh, &tgid);
	if (!cp)
		return 0;
	cp->gen += 1;
	cp->flags &= ~CP_PROC_REQUESTED;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
