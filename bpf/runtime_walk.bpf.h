/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every interpreter walker shares (include after vmlinux.h, the libbpf helpers and
 * runtime_shared.h): reading a pointer of the process, the thread's pthread-specific data and
 * TLS blocks through glibc's layout, pushing a frame in the one frame format.
 */
#ifndef CPUPROF_RUNTIME_WALK_BPF_H
#define CPUPROF_RUNTIME_WALK_BPF_H

/* The 8 bytes at addr of the current process; 0 when addr is 0 or unreadable. */
static __always_inline __u64 rt_ptr(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* The value bound to pthread key `key` of the thread whose thread pointer is fsbase. */
static __always_inline __u64 rt_tsd(__u64 fsbase, __s32 key)
{
	__u64 block;

	if (key < 0 || key >= 1024)
		return 0;
	if (key < CP_RT_GLIBC_TSD_BLOCK)
		return rt_ptr(fsbase + CP_RT_GLIBC_TSD_FIRST + 16 * (__u64)key + 8);
	block = rt_ptr(fsbase + CP_RT_GLIBC_TSD_SECOND + 8 * (__u64)(key / CP_RT_GLIBC_TSD_BLOCK));
	if (!block)
		return 0;
	return rt_ptr(block + 16 * (__u64)(key % CP_RT_GLIBC_TSD_BLOCK) + 8);
}

/* The TLS block of module modid of the thread whose thread pointer is fsbase; 0 when none. */
static __always_inline __u64 rt_tls_block(__u64 fsbase, __u32 modid)
{
	__u64 dtv = rt_ptr(fsbase + CP_RT_GLIBC_TCB_DTV), block;

	if (!dtv || modid == 0 || modid > 4096)
		return 0;
	block = rt_ptr(dtv + CP_RT_GLIBC_DTV_ENTRY * (__u64)modid);
	return block == CP_RT_GLIBC_DTV_UNALLOC ? 0 : block;
}

/*
 * A little-endian field of n bytes at off of buf (size bytes); 0 when it lies outside. Byte
 * loads: the verifier refuses wider loads from the stack at an offset not known to be aligned.
 */
static __always_inline __u64 rt_buf_le(const __u64 *buf, __u32 size, __u32 off, __u32 n)
{
	const __u8 *b = (const __u8 *)buf;
	__u64 v = 0;

	if (off > size - n)
		return 0;
#pragma unroll
	for (int i = 0; i < 8; i++)
		if (i < (int)n)
			v |= (__u64)b[off + i] << (8 * i);
	return v;
}

/* Append a frame (innermost first); a full stack takes no more. */
static __always_inline void rt_push(struct cp_rt_stack *st, __u64 ptr, __u32 pos, __u8 kind,
				    __u8 flags)
{
	__u32 n = st->len;
	struct cp_rt_frame *f;

	if (n >= CP_RT_MAX_FRAMES)
		return;
	f = &st->frames[n & (CP_RT_MAX_FRAMES - 1)];
	f->ptr = ptr;
	f->pos = pos;
	f->kind = kind;
	f->flags = flags;
	f->pad = 0;
	st->len = n + 1;
}

/* Mark the last frame pushed as the entry of its activation of the interpreter loop. */
static __always_inline void rt_mark_entry(struct cp_rt_stack *st)
{
	__u32 n = st->len;

	if (n && n <= CP_RT_MAX_FRAMES)
		st->frames[(n - 1) & (CP_RT_MAX_FRAMES - 1)].flags |= CP_RT_FF_ENTRY;
}

/*
 * Copy string data of len bytes into buf (size bytes, a power of two, zeroed): its head, or
 * (tail) its tail, when it is longer; *cut set then. 0, or -1 when unreadable.
 */
static __always_inline int rt_copy_str(char *buf, __u32 size, __u64 data, __u64 len, int tail,
				       int *cut)
{
	if (len >= size) {
		*cut = 1;
		if (tail)
			data += len - (size - 1);
		len = size - 1;
	}
	if (!data || bpf_probe_read_user(buf, (__u32)len & (size - 1), (void *)data))
		return -1;
	return 0;
}

/* The 4 bytes at addr of the current process; 0 when unreadable. */
static __always_inline __u32 rt_u32(__u64 addr)
{
	__u32 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* End a walk for reason why (the runtime's enum); returns it. */
static __always_inline __u32 rt_set_end(struct cp_rt_stack *st, __u32 why)
{
	st->end = (__u16)why;
	return why;
}

/* The parts of a composed name (rt_join): the scope's first bytes, "::", the function's. */
#define CP_RT_SCOPE_MAX 62
#define CP_RT_FUNC_MAX	64
_Static_assert(CP_RT_SCOPE_MAX + 2 <= CP_RT_NAME_LEN / 2 &&
		       CP_RT_NAME_LEN / 2 + CP_RT_FUNC_MAX <= CP_RT_NAME_LEN,
	       "a composed name fits cp_rt_name.name");

/*
 * name: the C string at scope (its first CP_RT_SCOPE_MAX - 1 bytes), "::", then the C string at
 * func; only func when scope is 0 or empty. name is CP_RT_NAME_LEN bytes, zeroed. 0, or -1
 * when func is unreadable.
 */
static __always_inline int rt_join(char *name, __u64 scope, __u64 func)
{
	__u32 off = 0;
	long l;

	if (scope) {
		l = bpf_probe_read_user_str(name, CP_RT_SCOPE_MAX, (void *)scope);
		if (l > 1) {
			off = (__u32)(l - 1) & (CP_RT_NAME_LEN / 2 - 1);
			name[off] = ':';
			name[(off + 1) & (CP_RT_NAME_LEN - 1)] = ':';
			off += 2;
		} else {
			name[0] = 0;
		}
	}
	off &= CP_RT_NAME_LEN / 2 - 1;
	if (!func || bpf_probe_read_user_str(name + off, CP_RT_FUNC_MAX, (void *)func) < 0)
		return -1;
	return 0;
}

/* A literal name ("{main}", "<main>") into name. */
#define RT_LITERAL(name, lit) __builtin_memcpy((name), (lit), sizeof(lit))

#endif
