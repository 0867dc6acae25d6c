/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Ruby (MRI) frame walker, for inclusion by a BPF program (after vmlinux.h, the libbpf
 * helpers and ruby_shared.h). It finds the execution context of the SAMPLED thread, not the
 * GVL holder's (interpreters.md 2.1): the thread-local ruby_current_ec, through the DTV of the
 * task's thread pointer (fsbase) and the module id of libruby, or at a fixed offset from the
 * thread pointer (static TLS). Only when neither is known does it fall back to the GVL
 * holder's EC, and it flags those stacks. Then it records, innermost first, each control
 * frame: a Ruby frame's iseq body and instruction index, a C function's method entry; C
 * frames without a method (IFUNC, the dummy frames) are skipped.
 *
 * The includer defines the rb_procs map (tgid -> struct cp_rb_proc) before including this, or
 * uses the one here; cp_rb_walk() fills a struct cp_rb_stack (in map memory: it is 2 KiB).
 */
#ifndef CPUPROF_RUBY_WALK_BPF_H
#define CPUPROF_RUBY_WALK_BPF_H

#ifndef CP_RB_NO_PROCS_MAP
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_rb_proc);
	__uint(max_entries, CP_RB_DEF_PROCS);
} rb_procs SEC(".maps");
#endif

static __always_inline __u64 rb_ptr(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* The execution context of the thread whose thread pointer is fsbase; 0 when none. */
static __always_inline __u64 rb_find_ec(const struct cp_rb_proc *rp, __u64 fsbase, __u16 *flags)
{
	__u64 dtv, block;

	switch (rp->ec_mode) {
	case CP_RB_EC_TLS_DTV:
		dtv = rb_ptr(fsbase + CP_RB_GLIBC_TCB_DTV);
		if (!dtv || rp->tls_modid == 0 || rp->tls_modid > 4096)
			return 0;
		block = rb_ptr(dtv + CP_RB_GLIBC_DTV_ENTRY * (__u64)rp->tls_modid);
		if (!block || block == CP_RB_GLIBC_DTV_UNALLOC)
			return 0;
		return rb_ptr(block + (__u64)rp->tls_off);
	case CP_RB_EC_TLS_TP:
		return rb_ptr(fsbase + (__u64)rp->tls_off);
	case CP_RB_EC_GLOBAL:
		*flags |= CP_RB_ST_GVL;
		return rb_ptr(rp->ec_global);
	case CP_RB_EC_RACTOR:
		*flags |= CP_RB_ST_GVL;
		block = rb_ptr(rp->ec_global);
		if (!block || rp->off.ractor_running_ec == CP_RB_NONE)
			return 0;
		return rb_ptr(block + rp->off.ractor_running_ec);
	}
	return 0;
}

/* Bytes of the EC's head, a control frame and an iseq body's head read at once (the fields
 * used lie below). */
#define RB_EC_READ   24
#define RB_CFP_READ  40
#define RB_BODY_READ 16

/*
 * A little-endian field of n bytes at off of buf (size bytes); 0 when it lies outside. Byte
 * loads: the verifier refuses wider loads from the stack at an offset not known to be aligned.
 */
static __always_inline __u64 rb_buf_le(const __u64 *buf, __u32 size, __u32 off, __u32 n)
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

static __always_inline void rb_push(struct cp_rb_stack *st, __u64 ptr, __u32 pos, __u8 kind,
				    __u8 flags)
{
	__u32 n = st->len;
	struct cp_rb_frame *f;

	if (n >= CP_RB_MAX_FRAMES)
		return;
	f = &st->frames[n & (CP_RB_MAX_FRAMES - 1)];
	f->ptr = ptr;
	f->pos = pos;
	f->kind = kind;
	f->flags = flags;
	f->pad = 0;
	st->len = n + 1;
}

static __always_inline __u32 rb_end(struct cp_rb_stack *st, __u32 why)
{
	st->end = (__u16)why;
	return why;
}

/*
 * Walk the Ruby control frames of the current thread, whose thread pointer is fsbase, in
 * process rp. Returns st->end.
 */
static __always_inline __u32 cp_rb_walk(const struct cp_rb_proc *rp, __u64 fsbase,
					struct cp_rb_stack *st)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 ec, cfp, stack, top, last, size;
	__u64 buf[RB_CFP_READ / 8], env[3], body_head[RB_BODY_READ / 8];
	__u16 flags = 0;
	int i;

	st->len = 0;
	st->end = CP_RB_END_OK;
	ec = rb_find_ec(rp, fsbase, &flags);
	st->flags = flags;
	st->ec = ec;
	if (!ec)
		return rb_end(st, CP_RB_END_NO_EC);
	/* the EC's head in one read: vm_stack, vm_stack_size, cfp (the same 2.6-3.3) */
	if (bpf_probe_read_user(buf, RB_EC_READ, (void *)ec))
		return rb_end(st, CP_RB_END_READ);
	stack = rb_buf_le(buf, RB_EC_READ, o->ec_vm_stack, 8);
	size = rb_buf_le(buf, RB_EC_READ, o->ec_vm_stack_size, 8);
	cfp = rb_buf_le(buf, RB_EC_READ, o->ec_cfp, 8);
	if (!stack || !cfp || !size || size > (1ull << 28))
		return rb_end(st, CP_RB_END_READ);
	/*
	 * Control frames are an array growing down from the VM stack's top; the first one pushed
	 * (at the top) is a dummy frame, the last real one is right below it (interpreters.md 2.2).
	 */
	top = stack + 8 * size;
	last = top - 2 * (__u64)o->cfp_size;
	if (cfp < stack || cfp > top - o->cfp_size)
		return rb_end(st, CP_RB_END_BAD_STACK);

	for (i = 0; i < CP_RB_MAX_FRAMES + 1; i++) {
		__u64 pc, iseq, ep, body, encoded;
		__u32 ep_flags, pos = ~0u, n_words;
		__u8 ff;

		if (cfp > last)
			return st->end;
		if (bpf_probe_read_user(buf, RB_CFP_READ, (void *)cfp))
			return rb_end(st, CP_RB_END_READ);
		cfp += o->cfp_size;
		pc = rb_buf_le(buf, RB_CFP_READ, o->cfp_pc, 8);
		iseq = rb_buf_le(buf, RB_CFP_READ, o->cfp_iseq, 8);
		ep = rb_buf_le(buf, RB_CFP_READ, o->cfp_ep, 8);
		/* ep[-2] method entry or cref, ep[-1] block handler, ep[0] frame flags */
		if (!ep || bpf_probe_read_user(env, sizeof(env), (void *)(ep - 16)))
			return rb_end(st, CP_RB_END_READ);
		ep_flags = (__u32)env[2];
		ff = ep_flags & CP_RB_FRAME_FLAG_FINISH ? CP_RB_FF_FINISH : 0;
		if ((ep_flags & CP_RB_FRAME_MAGIC_MASK) == CP_RB_FRAME_MAGIC_CFUNC) {
			if (st->len >= CP_RB_MAX_FRAMES)
				return rb_end(st, CP_RB_END_TRUNCATED);
			rb_push(st, env[0], ~0u, CP_RB_FRAME_CFUNC, ff);
			continue;
		}
		if ((ep_flags & CP_RB_FRAME_FLAG_CFRAME) || !iseq || !pc)
			continue; /* IFUNC, dummy frames */
		body = rb_ptr(iseq + o->iseq_body);
		if (!body || bpf_probe_read_user(body_head, RB_BODY_READ, (void *)body))
			return rb_end(st, CP_RB_END_READ);
		n_words = (__u32)rb_buf_le(body_head, RB_BODY_READ, o->body_iseq_size, 4);
		encoded = rb_buf_le(body_head, RB_BODY_READ, o->body_iseq_encoded, 8);
		/* pc points past the instruction running (or about to) */
		if (pc >= encoded && (pc - encoded) / 8 <= n_words)
			pos = (__u32)((pc - encoded) / 8);
		if (st->len >= CP_RB_MAX_FRAMES)
			return rb_end(st, CP_RB_END_TRUNCATED);
		rb_push(st, body, pos, CP_RB_FRAME_ISEQ, ff);
	}
	return rb_end(st, CP_RB_END_TRUNCATED);
}

#endif
