/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping tables of --unwind dwarf, for inclusion by profile.bpf.c only (after its maps,
 * cp_ustate and stat_inc): the lookup in a table user space published (cp_find_map), and the
 * tables BPF makes itself from a process's VMAs (vtables) for the processes user space has not
 * read yet: at exec, and at the exit of each mmap or mprotect asking for executable memory.
 * objtab gives the rows of each file by (device, inode); each file mapping found this way is
 * sent to user space once (vmasent), so its frames are named even if the process is gone.
 */
#ifndef CP_VMA_TABLE_BPF_H
#define CP_VMA_TABLE_BPF_H

/* tables by file, for pcs the mapping table does not hold (see cp_obj_table) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct cp_obj_key);
	__type(value, struct cp_obj_table);
	__uint(max_entries, CP_DEF_OBJTAB_ENTRIES);
} objtab SEC(".maps");

/* mappings sent to user space (cp_map_event) once each */
struct cp_vmasent_key {
	__u64 start;
	__u32 pid, gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct cp_vmasent_key);
	__type(value, __u32);
	__uint(max_entries, CP_VMASENT_ENTRIES);
} vmasent SEC(".maps");

/* a process without a mapping table of its generation yet: no mapping (all from vtables) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_unwind_proc);
	__uint(max_entries, 1);
} noproc SEC(".maps");

/*
 * Mapping tables made in BPF from the VMAs of processes that exec'd during the recording, at
 * their exec and at each mmap or mprotect since that made executable memory (cp_vma_table):
 * tgid -> table.
 */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, struct cp_unwind_proc);
	__uint(max_entries, CP_VTABLE_ENTRIES);
} vtables SEC(".maps");

/* where one is made before it goes into vtables */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_unwind_proc);
	__uint(max_entries, 1);
} vtscratch SEC(".maps");

/*
 * Index of the mapping of up that holds pc, or -1. The maps are sorted and disjoint: the last
 * one starting at or below pc, found in steps without a branch (cp_ge), is the only one that
 * can. Global: verified once, not per frame.
 */
__noinline int cp_find_map(const struct cp_unwind_proc *up, __u64 pc)
{
	const struct cp_unwind_map *m;
	__u32 base = 0, len, half;

	if (!up)
		return -1;
	len = up->n_maps;
	if (len > CP_MAX_UNWIND_MAPS)
		len = CP_MAX_UNWIND_MAPS;
	if (!len)
		return -1;
	/* ceil(len / 2) a step */
	for (int i = 0; i < CP_UNWIND_MAP_STEPS && len > 1; i++) {
		half = len / 2;
		m = &up->maps[(base + half) & (CP_MAX_UNWIND_MAPS - 1)];
		base += half & (__u32)-cp_ge(pc, m->start);
		len -= half;
	}
	m = &up->maps[base & (CP_MAX_UNWIND_MAPS - 1)];
	if (pc < m->start || pc >= m->end)
		return -1;
	return (int)base;
}

/* What cp_vma_table reads of a VMA. */
struct cp_vma {
	__u64 start, end, pgoff, dev, ino;
	__u32 exec, file;
};

static long vma_read(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct cp_vma *v = data;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	/* VM_EXEC (include/linux/mm.h) */
	v->exec = (BPF_CORE_READ(vma, vm_flags) & 0x4) != 0;
	if (f) {
		v->file = 1;
		v->ino = BPF_CORE_READ(f, f_inode, i_ino);
		v->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	}
	return 0;
}

/* Tell user space of a file mapping of (pid, gen) it may not have read, once. */
static __always_inline void send_mapping(__u32 pid, __u32 gen, const struct cp_vma *v)
{
	struct cp_vmasent_key k = {.start = v->start, .pid = pid, .gen = gen};
	struct cp_map_event *ev;
	__u32 one = 1;

	if (bpf_map_lookup_elem(&vmasent, &k))
		return;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		stat_inc(CP_STAT_REFRESH_LOST);
		return;
	}
	ev->ev.type = CP_EV_MAPPING;
	ev->ev.pid = pid;
	ev->ev.gen = gen;
	ev->ev.pad = 0;
	ev->start = v->start;
	ev->end = v->end;
	ev->pgoff = v->pgoff;
	ev->dev = v->dev;
	ev->ino = v->ino;
	bpf_ringbuf_submit(ev, BPF_RB_FORCE_WAKEUP);
	bpf_map_update_elem(&vmasent, &k, &one, BPF_ANY);
}

/* m's rows and bias from objtab, for file v mapped at v->start (n_rows 0: none). */
static __always_inline void vma_rows(const struct cp_vma *v, struct cp_unwind_map *m)
{
	struct cp_obj_key k = {.dev = v->dev, .ino = v->ino};
	struct cp_obj_table *t;
	__u64 off;

	m->start = v->start;
	m->end = v->end;
	m->bias = 0;
	m->first_row = 0;
	m->n_rows = 0;
	if (!v->file)
		return;
	t = bpf_map_lookup_elem(&objtab, &k);
	if (!t)
		return;
	off = v->pgoff << 12;
	for (int i = 0; i < CP_OBJ_SEGS; i++) {
		if (i >= t->n_segs)
			break;
		if (off >= t->segs[i].start && off < t->segs[i].end) {
			/* runtime pc - bias = vaddr - base, as cp_unwind_map.bias */
			m->bias = v->start - (off + t->segs[i].delta) + t->base;
			m->first_row = t->first_row;
			m->n_rows = t->n_rows;
			break;
		}
	}
}

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

/*
 * The mapping table of the current process, (pid, gen), made from its VMAs: the executable
 * ones, in address order, each file mapping told to user space. Process context only (exec,
 * mmap): in the sampling interrupt the mmap lock is released by an irq_work that stays busy
 * until the interrupt returns, so there one VMA at most could be read per sample. 0, or -1
 * (no VMA iterator in this kernel, the mmap lock is taken).
 */
__noinline int cp_vma_table(__u32 pid, __u32 gen, struct cp_unwind_proc *up)
{
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	struct cp_vma v;
	int err;

	if (!up || !bpf_iter_task_vma_new)
		return -1;
	up->gen = gen;
	up->n_maps = 0;
	err = bpf_iter_task_vma_new(&it, bpf_get_current_task_btf(), 0);
	while (!err && (vma = bpf_iter_task_vma_next(&it))) {
		__u32 n = up->n_maps;

		if (n >= CP_MAX_UNWIND_MAPS)
			break;
		/* VM_EXEC (include/linux/mm.h) */
		if (!(BPF_CORE_READ(vma, vm_flags) & 0x4))
			continue;
		__builtin_memset(&v, 0, sizeof(v));
		vma_read(NULL, vma, &v);
		if (v.file)
			send_mapping(pid, gen, &v);
		vma_rows(&v, &up->maps[n & (CP_MAX_UNWIND_MAPS - 1)]);
		up->n_maps = n + 1;
	}
	bpf_iter_task_vma_destroy(&it);
	return err ? -1 : 0;
}

/* Make (tgid, gen)'s table from its VMAs into vtables (process context only). */
static __always_inline void vt_build(__u32 tgid, __u32 gen)
{
	struct cp_unwind_proc *fresh;
	__u32 zero = 0;

	fresh = bpf_map_lookup_elem(&vtscratch, &zero);
	if (!fresh || cp_vma_table(tgid, gen, fresh))
		return;
	bpf_map_update_elem(&vtables, &tgid, fresh, BPF_ANY);
}

/*
 * The mapping that holds pc when the process's mapping table does not (a program's first
 * milliseconds, code mapped since its mappings were read), into s->vm: from the table made
 * from its VMAs at its exec and executable mmaps since, else from pc's VMA itself (one per
 * sample can be read: the mmap lock's release is an irq_work that stays busy until the
 * sampling interrupt returns). 0, or -1: pc is in no executable mapping, or it cannot be told.
 */
__noinline int cp_vt_find(struct cp_ustate *s, __u64 pc)
{
	struct cp_unwind_proc *vt;
	struct cp_vma v = {};
	int mi;

	if (!s)
		return -1;
	vt = bpf_map_lookup_elem(&vtables, &s->key.pid);
	if (vt && vt->gen == s->key.gen) {
		mi = cp_find_map(vt, pc);
		if (mi >= 0) {
			s->vm = vt->maps[mi & (CP_MAX_UNWIND_MAPS - 1)];
			/*
			 * No rows when the table was made: user space may have placed the file's
			 * table in objtab since (a big library takes it a second), so its VMA is
			 * read again below, once per sample.
			 */
			if (s->vm.n_rows || s->vma_tried)
				return 0;
		}
	}
	if (s->vma_tried || !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return -1;
	s->vma_tried = 1;
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_read, &v, 0) || !v.exec)
		return s->vm.start <= pc && pc < s->vm.end ? 0 : -1;
	if (v.file)
		send_mapping(s->key.pid, s->key.gen, &v);
	vma_rows(&v, &s->vm);
	return 0;
}

/* x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl) */
#define CP_NR_MMAP	    9
#define CP_NR_MPROTECT	    10
#define CP_NR_PKEY_MPROTECT 329

/*
 * An mmap, mprotect or pkey_mprotect that asked for executable memory and succeeded, by a
 * process that exec'd during the recording: its table is made from the VMAs again. (mm->exec_vm
 * cannot tell: it leaves out writable executable memory, which JIT compilers map.) node 20
 * running a script makes 67 mprotect and 69 mmap calls in 1.5 s.
 *
 * The raw sys_exit tracepoint, not syscalls/sys_{enter,exit}_mmap: libbpf finds those
 * tracepoints' ids in tracefs, which a machine may not have mounted (a fresh Debian 12 VM does
 * not), and then no executable mmap was seen; a BTF tracepoint needs only BTF. fexit and
 * kprobes on the syscall functions would run only for these calls, but some kernels refuse
 * both (this project's VM: EPERM loading fexit, no kprobe PMU). Cost: any syscall tracepoint
 * puts every syscall on the kernel's slow path; this one program per syscall exit measured the
 * same as the four syscalls/ programs it replaces (getppid: 90 ns bare, 125 and 137 ns).
 * The arguments are still in the saved user registers at exit.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(cp_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	__u32 tgid;
	struct cp_proc *p;

	if (nr != CP_NR_MMAP && nr != CP_NR_MPROTECT && nr != CP_NR_PKEY_MPROTECT)
		return 0;
	/* a 32-bit syscall numbers them otherwise (9 is link): only __USER_CS, 0x33 (segment.h) */
	if (regs->cs != 0x33)
		return 0;
	/* prot is the third argument of all three (rdx); PROT_EXEC, asm-generic/mman-common.h */
	if (!(regs->dx & 0x4) || (ret < 0 && ret > -4096))
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&vtables, &tgid))
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p)
		vt_build(tgid, p->gen);
	return 0;
}

#endif /* CP_VMA_TABLE_BPF_H */
