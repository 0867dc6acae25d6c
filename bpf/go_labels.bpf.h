/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The labels of the goroutine a sample of a Go process ran (shared.h, cp_go_labels): read from
 * the current g through the process's offsets in go_procs, stored in golabels under a hash of
 * them. Included by profile.bpf.c. Every read is of hostile memory: bounded, its failure ends
 * the set (a sample without labels, never a wrong one).
 */
#ifndef CPUPROF_GO_LABELS_BPF_H
#define CPUPROF_GO_LABELS_BPF_H

/* a counter of the includer's (profile.bpf.c: its stats map); none in the test harness */
#ifndef cp_go_stat
#define cp_go_stat(idx) \
	do {            \
	} while (0)
#endif

/* set by user space once a Go process is in go_procs: before that no sample looks there */
volatile __u32 go_present;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_go_proc);
	__uint(max_entries, CP_RT_DEF_PROCS);
} go_procs SEC(".maps");

/*
 * Label sets seen, by hash. LRU: a recording with a trace ID per request makes sets without end;
 * the drain reads a set while its counts are read, so only a set pushed out before the drain of
 * its counts is lost (the sample then shows "[labels lost]").
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct cp_go_labels);
	__uint(max_entries, CP_DEF_GOLABEL_ENTRIES);
} golabels SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cp_go_labels);
	__uint(max_entries, 1);
} golabel_buf SEC(".maps");

static __always_inline __u64 go_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/*
 * The next label of the per-CPU set (golabel_buf, label b->n, then counted) from the Go strings
 * whose headers {ptr, len} are at kaddr (the key) and vaddr (the value): 0, or -1 when unreadable
 * or the set is full. Global, with scalar arguments: verified once, not once per slot of the
 * loops below (each slot of a bucket, each label of a slice).
 */
__noinline int cp_go_label_read(__u64 kaddr, __u64 vaddr)
{
	struct cp_go_labels *b;
	struct cp_go_label *l;
	__u64 key[2], val[2], kn, vn, *w;
	__u32 zero = 0, i;

	b = bpf_map_lookup_elem(&golabel_buf, &zero);
	if (!b || b->n >= CP_GO_LABELS)
		return -1;
	if (bpf_probe_read_user(key, sizeof(key), (void *)kaddr) ||
	    bpf_probe_read_user(val, sizeof(val), (void *)vaddr))
		return -1;
	i = b->n & (CP_GO_LABELS - 1);
	l = &b->l[i];
	/* 8-byte stores (a label is at 8 + 96 i in the value): memset stores byte by byte */
	w = (__u64 *)l;
	for (__u32 k = 0; k < sizeof(*l) / 8; k++)
		w[k] = 0;
	kn = key[1];
	vn = val[1];
	if (kn > CP_GO_LABEL_KEY - 1) {
		kn = CP_GO_LABEL_KEY - 1;
		b->cut |= 1u << i;
	}
	if (vn > CP_GO_LABEL_VAL - 1) {
		vn = CP_GO_LABEL_VAL - 1;
		b->cut |= 1u << i;
	}
	if (!kn || bpf_probe_read_user(l->key, kn & (CP_GO_LABEL_KEY - 1), (void *)key[0]))
		return -1;
	if (vn && bpf_probe_read_user(l->val, vn & (CP_GO_LABEL_VAL - 1), (void *)val[0]))
		return -1;
	b->n = i + 1;
	return 0;
}

/*
 * The slots in use of the map bucket at bucket (8 tophash bytes, 8 keys, 8 values) into the
 * per-CPU set while it has room: 0, or -1 when unreadable. Global: verified once, not once per
 * bucket.
 */
__noinline int cp_go_bucket_read(__u64 bucket)
{
	struct cp_go_labels *b;
	__u64 tophash;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&golabel_buf, &zero);
	if (!b)
		return -1;
	/* the 8 tophash bytes as one word: little-endian, slot j at bits 8j */
	if (bpf_probe_read_user(&tophash, sizeof(tophash), (void *)bucket))
		return -1;
	for (__u32 j = 0; j < 8; j++) {
		if (b->n >= CP_GO_LABELS)
			break;
		if (((tophash >> (8 * j)) & 0xff) < CP_GO_MIN_TOPHASH)
			continue;
		if (cp_go_label_read(bucket + CP_GO_BUCKET_KEYS + 16 * j,
				     bucket + CP_GO_BUCKET_VALS + 16 * j))
			return -1;
	}
	return 0;
}

/*
 * A label map's labels, map layout: lm points at the labelMap, a map value, itself a pointer
 * to the runtime's hmap; the slots in use of its first buckets.
 */
static __always_inline int go_read_map(struct cp_go_labels *b, __u64 lm)
{
	__u64 hdr[3], buckets, hmap = go_ptr(lm);
	__u8 lb;

	if (!hmap || bpf_probe_read_user(hdr, sizeof(hdr), (void *)hmap))
		return -1;
	if (!hdr[0])
		return 0;
	lb = (__u8)(hdr[1] >> ((CP_GO_HMAP_B - 8) * 8));
	buckets = hdr[CP_GO_HMAP_BUCKETS / 8];
	if (!buckets)
		return 0;
	if (lb > CP_GO_MAX_B)
		lb = CP_GO_MAX_B;
	for (__u32 k = 0; k < (1u << CP_GO_MAX_B); k++) {
		if (k >= (1u << lb) || b->n >= CP_GO_LABELS)
			break;
		if (cp_go_bucket_read(buckets + (__u64)k * CP_GO_BUCKET_SIZE))
			return -1;
	}
	return 0;
}

/* The slice layout: labelMap{LabelSet{list []label}}, label{key, value string}. */
static __always_inline int go_read_slice(struct cp_go_labels *b, __u64 lm)
{
	__u64 hdr[2];

	if (bpf_probe_read_user(hdr, sizeof(hdr), (void *)lm))
		return -1;
	if (!hdr[0])
		return 0;
	for (__u32 i = 0; i < CP_GO_LABELS; i++) {
		if (i >= hdr[1])
			break;
		if (cp_go_label_read(hdr[0] + 32 * (__u64)i, hdr[0] + 32 * (__u64)i + 16))
			return -1;
	}
	return 0;
}

/*
 * The labels of the goroutine running in process (pid, gen), stored in golabels: their key, 0
 * when none (no Go process known, no goroutine, no labels, unreadable). Global: verified once.
 */
__noinline __u64 cp_go_labels(__u32 pid, __u32 gen)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 fsbase, g, m, curg, lm, h = 0, *w;
	struct cp_go_labels *b;
	struct cp_go_proc *gp;
	__u32 zero = 0;
	int err = 0;

	gp = bpf_map_lookup_elem(&go_procs, &pid);
	if (!gp)
		return 0;
	/*
	 * The offsets of the program before or after an exec: never read the wrong one's g.
	 * exec drops those of an earlier generation (cp_exec), so such offsets here were entered
	 * after it, from a stale read: counted. So are offsets of a later generation than the
	 * sample's: the command's, set for after its exec, sampled just before it (its execve's
	 * samples do not look), or a generation guessed wrong (all of its samples).
	 */
	if (gp->gen != gen) {
		cp_go_stat(gp->gen < gen ? CP_STAT_GO_OLD_GEN : CP_STAT_GO_NEW_GEN);
		return 0;
	}
	if (!gp->tls_slot)
		return 0;
	b = bpf_map_lookup_elem(&golabel_buf, &zero);
	fsbase = BPF_CORE_READ(t, thread.fsbase);
	if (!b || !fsbase)
		return 0;
	g = go_ptr(fsbase - 8 * (__u64)gp->tls_slot);
	m = g ? go_ptr(g + gp->g_m) : 0;
	curg = m ? go_ptr(m + gp->m_curg) : 0;
	lm = curg ? go_ptr(curg + gp->g_labels) : 0;
	if (!lm)
		return 0;
	b->n = 0;
	b->cut = 0;
	if (gp->layout == CP_GO_LAYOUT_MAP)
		err = go_read_map(b, lm);
	else if (gp->layout == CP_GO_LAYOUT_SLICE)
		err = go_read_slice(b, lm);
	/* none read of labels the goroutine has: memory that could not be read, counted */
	if (err && !b->n)
		cp_go_stat(CP_STAT_GO_UNREAD);
	if (!b->n)
		return 0;
	/* a sum of one hash per label: the same set in any order has one key */
	for (__u32 i = 0; i < CP_GO_LABELS; i++) {
		__u64 x = 0xcbf29ce484222325ull;

		if (i >= b->n)
			break;
		w = (__u64 *)&b->l[i];
		for (__u32 k = 0; k < sizeof(struct cp_go_label) / 8; k++)
			x = (x ^ w[k]) * 0x100000001b3ull;
		h += (x ^ (x >> 29)) * 0x9e3779b97f4a7c15ull;
	}
	h ^= ((__u64)b->cut << 1) * 0xff51afd7ed558ccdull;
	h = h ? h : 1;
	/* most sets were seen before: look up before inserting */
	if (!bpf_map_lookup_elem(&golabels, &h))
		bpf_map_update_elem(&golabels, &h, b, BPF_NOEXIST);
	return h;
}

#endif
