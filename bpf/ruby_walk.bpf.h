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
 * The includer finds the process's struct cp_rb_proc (in rt_procs: cp_rt_proc.data);
 * cp_rb_walk() fills a struct cp_rt_stack (in map memory: it is 2 KiB).
 */
#ifndef CPUPROF_RUBY_WALK_BPF_H
#define CPUPROF_RUBY_WALK_BPF_H
#include "runtime_walk.bpf.h"

/* The execution context of the thread whose thread pointer is fsbase; 0 when none. */
static __always_inline __u64 rb_find_ec(const struct cp_rb_proc *rp, __u64 fsbase, __u16 *flags)
{
	__u64 block;

	switch (rp->ec_mode) {
	case CP_RB_EC_TLS_DTV:
		block = rt_tls_block(fsbase, rp->tls_modid);
		return block ? rt_ptr(block + (__u64)rp->tls_off) : 0;
	case CP_RB_EC_TLS_TP:
		return rt_ptr(fsbase + (__u64)rp->tls_off);
	case CP_RB_EC_GLOBAL:
		*flags |= CP_RB_ST_GVL;
		return rt_ptr(rp->ec_global);
	case CP_RB_EC_RACTOR:
		*flags |= CP_RB_ST_GVL;
		block = rt_ptr(rp->ec_global);
		if (!block || rp->off.ractor_running_ec == CP_RB_NONE)
			return 0;
		return rt_ptr(block + rp->off.ractor_running_ec);
	}
	return 0;
}

/* Bytes of the EC's head, a control frame and an iseq body's head read at once (the fields
 * used lie below). */
#define RB_EC_READ   24
#define RB_CFP_READ  40
#define RB_BODY_READ 16

static __always_inline __u32 rb_end(struct cp_rt_stack *st, __u32 why)
{
	st->end = (__u16)why;
	return why;
}

/* cp_rb_frame: the walk goes on (not an enum cp_rb_end) */
#define RB_FRAME_MORE 0x7fff

/*
 * The walk's next control frame, at *cfp (then its caller's there; last: the outermost real
 * one): a frame of a method or a block pushed on st. RB_FRAME_MORE, or how the walk ended (set
 * in st). Global, verified once: not once per frame of the walk (its paths multiplied from one
 * frame to the next).
 */
__noinline __u32 cp_rb_frame(const struct cp_rb_proc *rp, __u64 *cfp, __u64 last,
			     struct cp_rt_stack *st)
{
	const struct cp_rb_offsets *o;
	__u64 buf[RB_CFP_READ / 8], env[3], body_head[RB_BODY_READ / 8];
	__u64 pc, iseq, ep, body, encoded;
	__u32 ep_flags, pos = ~0u, n_words;
	__u8 ff;

	if (!rp || !cfp || !st)
		return CP_RB_END_READ;
	o = &rp->off;
	if (*cfp > last)
		return st->end;
	if (bpf_probe_read_user(buf, RB_CFP_READ, (void *)*cfp))
		return rb_end(st, CP_RB_END_READ);
	*cfp += o->cfp_size;
	pc = rt_buf_le(buf, RB_CFP_READ, o->cfp_pc, 8);
	iseq = rt_buf_le(buf, RB_CFP_READ, o->cfp_iseq, 8);
	ep = rt_buf_le(buf, RB_CFP_READ, o->cfp_ep, 8);
	/* ep[-2] method entry or cref, ep[-1] block handler, ep[0] frame flags */
	if (!ep || bpf_probe_read_user(env, sizeof(env), (void *)(ep - 16)))
		return rb_end(st, CP_RB_END_READ);
	ep_flags = (__u32)env[2];
	ff = ep_flags & CP_RB_FRAME_FLAG_FINISH ? CP_RT_FF_ENTRY : 0;
	if ((ep_flags & CP_RB_FRAME_MAGIC_MASK) == CP_RB_FRAME_MAGIC_CFUNC) {
		if (st->len >= CP_RT_MAX_FRAMES)
			return rb_end(st, CP_RB_END_TRUNCATED);
		rt_push(st, env[0], ~0u, CP_RB_FRAME_CFUNC, ff);
		return RB_FRAME_MORE;
	}
	if ((ep_flags & CP_RB_FRAME_FLAG_CFRAME) || !iseq || !pc)
		return RB_FRAME_MORE; /* IFUNC, dummy frames */
	body = rt_ptr(iseq + o->iseq_body);
	if (!body || bpf_probe_read_user(body_head, RB_BODY_READ, (void *)body))
		return rb_end(st, CP_RB_END_READ);
	n_words = (__u32)rt_buf_le(body_head, RB_BODY_READ, o->body_iseq_size, 4);
	encoded = rt_buf_le(body_head, RB_BODY_READ, o->body_iseq_encoded, 8);
	/* pc points past the instruction running (or about to) */
	if (pc >= encoded && (pc - encoded) / 8 <= n_words)
		pos = (__u32)((pc - encoded) / 8);
	if (st->len >= CP_RT_MAX_FRAMES)
		return rb_end(st, CP_RB_END_TRUNCATED);
	rt_push(st, body, pos, CP_RB_FRAME_ISEQ, ff);
	return RB_FRAME_MORE;
}

/*
 * Walk the Ruby control frames of the current thread, whose thread pointer is fsbase, in
 * process rp. Returns st->end.
 */
static __always_inline __u32 cp_rb_walk(const struct cp_rb_proc *rp, __u64 fsbase,
					struct cp_rt_stack *st)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 ec, cfp, stack, top, last, size, buf[RB_EC_READ / 8];
	__u16 flags = 0;
	__u32 ret;

	st->len = 0;
	st->end = CP_RB_END_OK;
	ec = rb_find_ec(rp, fsbase, &flags);
	st->flags = flags;
	st->ctx = ec;
	if (!ec)
		return rb_end(st, CP_RB_END_NO_EC);
	/* the EC's head in one read: vm_stack, vm_stack_size, cfp (the same 2.6-3.3) */
	if (bpf_probe_read_user(buf, RB_EC_READ, (void *)ec))
		return rb_end(st, CP_RB_END_READ);
	stack = rt_buf_le(buf, RB_EC_READ, o->ec_vm_stack, 8);
	size = rt_buf_le(buf, RB_EC_READ, o->ec_vm_stack_size, 8);
	cfp = rt_buf_le(buf, RB_EC_READ, o->ec_cfp, 8);
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

	for (int i = 0; i < CP_RT_MAX_FRAMES + 1; i++) {
		ret = cp_rb_frame(rp, &cfp, last, st);
		if (ret != RB_FRAME_MORE)
			return ret;
	}
	return rb_end(st, CP_RB_END_TRUNCATED);
}

/* Where the characters of String s are and how many: 0, or -1 when s is no String. */
static __always_inline int rb_str(const struct cp_rb_proc *rp, __u64 s, __u64 *data, __u64 *len)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 flags;

	if (!s || (s & 7))
		return -1; /* an immediate (nil, a Fixnum...) */
	flags = rt_ptr(s);
	if ((flags & CP_RB_T_MASK) != CP_RB_T_STRING)
		return -1;
	if (flags & CP_RB_FL_USER1) { /* RSTRING_NOEMBED */
		*len = rt_ptr(s + o->rstring_len);
		*data = rt_ptr(s + o->rstring_heap_ptr);
	} else {
		*len = o->version < CP_RB_VER(3, 2, 0) ? (flags >> (CP_RB_FL_USHIFT + 2)) & 0x1f
						       : rt_ptr(s + o->rstring_len);
		*data = s + o->rstring_embed;
	}
	return *len > (1u << 20) ? -1 : 0;
}

/* The first element of Array a, else a itself (an iseq's pathobj: String or [path, realpath]). */
static __always_inline __u64 rb_first(const struct cp_rb_proc *rp, __u64 a)
{
	__u64 flags;

	if (!a || (a & 7))
		return a;
	flags = rt_ptr(a);
	if ((flags & CP_RB_T_MASK) != CP_RB_T_ARRAY)
		return a;
	if (flags & CP_RB_FL_USER1) /* RARRAY_EMBED_FLAG */
		return rt_ptr(a + rp->off.rarray_embed);
	return rt_ptr(rt_ptr(a + rp->off.rarray_heap_ptr));
}

/* Element i of Array a; 0 when a is no Array or i is past its end. */
static __always_inline __u64 rb_array_at(const struct cp_rb_proc *rp, __u64 a, __u64 i)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 flags, len, data;

	if (!a || (a & 7))
		return 0;
	flags = rt_ptr(a);
	if ((flags & CP_RB_T_MASK) != CP_RB_T_ARRAY)
		return 0;
	if (flags & CP_RB_FL_USER1) { /* RARRAY_EMBED_FLAG: the length in the flags */
		len = (flags >> (CP_RB_FL_USHIFT + 3)) &
		      (o->version < CP_RB_VER(3, 2, 0) ? 0x3 : 0x7f);
		data = a + o->rarray_embed;
	} else {
		len = rt_ptr(a + o->rstring_len); /* as.heap.len */
		data = rt_ptr(a + o->rarray_heap_ptr);
	}
	return i < len ? rt_ptr(data + 8 * i) : 0;
}

/*
 * The name String of the C method whose method entry is me (rb_names_id, cfunc_name in
 * src/interp/rb_proc.c): def->original_id through the VM's symbol table; 0 when unknown.
 */
static __always_inline __u64 rb_cfunc_name(const struct cp_rb_proc *rp, __u64 me)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 flags, def, id, serial;

	if (!me || (me & 7) || !rp->symbols)
		return 0;
	flags = rt_ptr(me);
	if ((flags & CP_RB_T_MASK) != CP_RB_T_IMEMO ||
	    ((flags >> CP_RB_FL_USHIFT) & 0xf) != CP_RB_IMEMO_MENT)
		return 0;
	def = rt_ptr(me + o->me_def);
	id = def ? rt_ptr(def + o->def_original_id) : 0;
	serial = id > rp->last_op_id ? id >> CP_RB_ID_SCOPE_SHIFT : id;
	if (!serial || serial > (__u32)rt_ptr(rp->symbols + o->symbols_last_id))
		return 0;
	return rb_array_at(
		rp,
		rb_array_at(rp, rt_ptr(rp->symbols + o->symbols_ids), serial / CP_RB_ID_ENTRY_UNIT),
		(serial % CP_RB_ID_ENTRY_UNIT) * CP_RB_ID_ENTRY_SIZE);
}

/*
 * The stamp of frame f's code (runtime_profile.bpf.h): an iseq's label and path objects and
 * first line; a C method's definition. Code freed and other code made at its address differ in
 * one of them.
 */
static __always_inline __u64 cp_rb_stamp(const struct cp_rb_proc *rp, const struct cp_rt_frame *f)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 loc = f->ptr + o->body_location;

	if (f->kind == CP_RB_FRAME_CFUNC)
		return rt_ptr(f->ptr + o->me_def);
	return rt_ptr(loc + o->loc_label) ^ (rt_ptr(loc + o->loc_pathobj) << 1) ^
	       (rt_ptr(loc + o->loc_first_lineno) << 40);
}

/*
 * The namer (runtime_profile.bpf.h): what user space reads of a frame (rb_names_frame), copied
 * while the process lives: an iseq's label, path (its tail when long) and first line; a C
 * method's name.
 */
static __always_inline void cp_rb_name(const struct cp_rb_proc *rp, const struct cp_rt_frame *f,
				       struct cp_rt_name *n)
{
	const struct cp_rb_offsets *o = &rp->off;
	__u64 loc = f->ptr + o->body_location, data = 0, len = 0, first;
	int cut = 0;

	if (f->kind == CP_RB_FRAME_CFUNC) {
		if (!rb_str(rp, rb_cfunc_name(rp, f->ptr), &data, &len) &&
		    !rt_copy_str(n->name, CP_RT_NAME_LEN, data, len, 0, &cut))
			n->flags |= CP_RT_NAME_OK | (cut ? CP_RT_NAME_CUT : 0);
		return;
	}
	if (f->kind != CP_RB_FRAME_ISEQ)
		return;
	first = rt_ptr(loc + o->loc_first_lineno);
	if ((first & 1) && (__s64)first > 0)
		n->firstline = (__u32)(first >> 1); /* a Fixnum */
	if (!rb_str(rp, rt_ptr(loc + o->loc_label), &data, &len) &&
	    !rt_copy_str(n->name, CP_RT_NAME_LEN, data, len, 0, &cut))
		n->flags |= CP_RT_NAME_OK | (cut ? CP_RT_NAME_CUT : 0);
	cut = 0;
	if (!rb_str(rp, rb_first(rp, rt_ptr(loc + o->loc_pathobj)), &data, &len) &&
	    !rt_copy_str(n->file, CP_RT_FILE_LEN, data, len, 1, &cut))
		n->flags |= CP_RT_FILE_OK | (cut ? CP_RT_FILE_CUT : 0);
}

#endif
