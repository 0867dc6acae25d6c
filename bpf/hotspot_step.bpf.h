/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's step of the JIT hook (jit_hook.bpf.h) and its namer. A pc in the CodeCache: its
 * CodeBlob through the heap's segment map, the frame's kind from the blob's name, then
 * - the interpreter ("Interpreter"): frame-pointer based, the Method* and the saved bcp in the
 *   frame's fixed slots (hotspot_shared.h CP_HS_IFRAME_*; the leaf's bcp is in r13), the
 *   caller's sp the saved sender sp;
 * - compiled code ("nmethod", "native nmethod"): the Method* from the blob, the frame's size
 *   from the blob (compiled Java code keeps no frame pointer): the caller's sp is sp + size,
 *   its return address and saved rbp the two words below (the prologue: only the return
 *   address, or it and rbp, are pushed yet);
 * - any other blob (the call stub, adapters, runtime stubs): a stub frame named by its blob,
 *   unwound by its frame size, by its frame pointer when it has no size (StubRoutines), or as
 *   a bare return address ("vtable chunks", "I2C/C2I adapters");
 * - the innermost compiled frame in its epilogue, its frame released: by the code at its pc.
 * Facts: ../shared/design/runtimes.md 3 (OTel's hotspot_tracer.ebpf.c; HotSpot frame_x86.hpp).
 */
#ifndef CPUPROF_HOTSPOT_STEP_BPF_H
#define CPUPROF_HOTSPOT_STEP_BPF_H

/* The CodeBlob holding pc, or 0 (in no heap, a free segment, a map that does not end). */
static __always_inline __u64 hs_blob(const struct cp_hs_proc *p, __u64 pc)
{
	const struct cp_hs_heap *h;
	__u32 shift = p->seg_shift & 31, n = p->n_heaps;
	__u64 seg;
	__u8 tag = CP_HS_SEG_FREE;
	int hi = -1;

#pragma unroll
	for (int i = 0; i < CP_HS_HEAPS; i++)
		if (hi < 0 && i < (int)n && pc >= p->heaps[i].low && pc < p->heaps[i].high)
			hi = i;
	if (hi < 0)
		return 0;
	h = &p->heaps[hi & (CP_HS_HEAPS - 1)];
	seg = (pc - h->low) >> shift;
	for (int i = 0; i < CP_HS_SEGMAP_HOPS; i++) {
		if (bpf_probe_read_user(&tag, 1, (void *)(h->segmap + seg)))
			return 0;
		/* 0: the block's first segment; else the distance back towards it */
		if (tag == 0 || tag == CP_HS_SEG_FREE || tag > seg)
			break;
		seg -= tag;
	}
	if (tag != 0)
		return 0;
	return h->low + (seg << shift) + p->off.heapblock_size;
}

/* What the step reads of a blob. */
struct hs_blob_info {
	__u64 name, begin;
	__u64 method;	      /* an nmethod's Method* (else what lies there) */
	__s32 size, complete; /* frame size in words; prologue's end from begin */
	char tag[4];	      /* the name's first bytes */
};

/* The blob's header in one read (its fields lie in the first CP_HS_BLOB_HEAD bytes: attach). */
static __always_inline int hs_blob_read(const struct cp_hs_proc *p, __u64 blob,
					struct hs_blob_info *b)
{
	__u64 h[CP_HS_BLOB_HEAD / 8];
	const struct cp_hs_offsets *o = &p->off;

	if (bpf_probe_read_user(h, sizeof(h), (void *)blob))
		return -1;
	b->name = rt_buf_le(h, sizeof(h), o->cb_name, 8);
	b->begin = rt_buf_le(h, sizeof(h), o->cb_code_begin, 8);
	b->method = rt_buf_le(h, sizeof(h), o->cm_method, 8);
	b->size = (__s32)rt_buf_le(h, sizeof(h), o->cb_frame_size, 4);
	b->complete = (__s32)rt_buf_le(h, sizeof(h), o->cb_frame_complete, 4);
	if (bpf_probe_read_user(b->tag, 4, (void *)b->name))
		return -1;
	return 0;
}

static __always_inline int hs_tag(const struct hs_blob_info *b, char c0, char c1, char c2, char c3)
{
	return b->tag[0] == c0 && b->tag[1] == c1 && b->tag[2] == c2 && b->tag[3] == c3;
}

/* End the walk for reason why (enum cp_hs_end); the native end says the stack was cut. */
static __always_inline int hs_end(struct cp_ustate *s, __u32 why)
{
	s->rt.st.end = (__u16)why;
	return step_end(s, why == CP_HS_END_READ ? CP_DEND_READ : CP_DEND_NOT_COVERED);
}

/* An interpreted frame: Method*, bcp, sender sp, caller fp and return address from fp. */
static __always_inline int hs_interp(struct cp_ustate *s, const struct cp_hs_proc *p)
{
	__u64 fp = s->bp, w[10], cm, bci = ~0u;

	if (fp < s->sp || fp - s->sp > CP_HS_IFRAME_MAX || (fp & 7))
		return hs_end(s, CP_HS_END_BAD_FP);
	/* the slots -8 .. +1 from fp */
	if (bpf_probe_read_user(w, sizeof(w), (void *)(fp + 8 * CP_HS_IFRAME_BCP)))
		return hs_end(s, CP_HS_END_READ);
	/* the leaf runs with its bcp in r13, the slot is written at calls (OTel) */
	if (s->st.len == 1 && s->exact)
		w[0] = s->r13;
	cm = rt_ptr(w[CP_HS_IFRAME_METHOD - CP_HS_IFRAME_BCP] + p->off.method_const);
	/* the bytecodes follow the ConstMethod: the bcp's offset in them is the bci */
	if (cm && w[0] >= cm + p->off.cmethod_size && w[0] - cm - p->off.cmethod_size < 0xffff)
		bci = w[0] - cm - p->off.cmethod_size;
	jit_push(s, w[CP_HS_IFRAME_METHOD - CP_HS_IFRAME_BCP], (__u32)bci, CP_HS_FRAME_INTERP);
	jit_done(s);
	return jit_caller(s, w[9], w[CP_HS_IFRAME_SENDER_SP - CP_HS_IFRAME_BCP], w[8]);
}

/*
 * The innermost compiled frame stopped in its epilogue, after its frame is released (x86-64
 * C1/C2 epilogue, JDK 17: "add $size, %rsp; pop %rbp; cmp 0x...(%r15), %rsp; ja <poll stub>;
 * ret", or the older poll "test %eax, (%r10); ret"): at "pop %rbp" rbp and the return address
 * are on the stack, past it the return address alone. w: 16 bytes of code at the pc. 1 when
 * the pc is at one of these, with *ra_at the stack offset of the return address, *rbp_at that
 * of the saved rbp (-1: rbp holds the caller's already).
 */
static __always_inline int hs_epilogue(const __u8 *w, int *ra_at, int *rbp_at)
{
	*rbp_at = -1;
	*ra_at = 0;
	if (w[0] == 0xc3)
		return 1;
	if (w[0] == 0x5d && (w[1] == 0xc3 || (w[1] == 0x49 && w[2] == 0x3b && w[8] == 0x0f &&
					      w[9] == 0x87 && w[14] == 0xc3))) {
		*rbp_at = 0;
		*ra_at = 8;
		return 1;
	}
	/* cmp disp32(%r15), %rsp; ja rel32; ret */
	if (w[0] == 0x49 && w[1] == 0x3b && w[7] == 0x0f && w[8] == 0x87 && w[13] == 0xc3)
		return 1;
	if (w[0] == 0x0f && w[1] == 0x87 && w[6] == 0xc3)
		return 1;
	/* test %eax, (%r10); ret */
	return w[0] == 0x41 && w[1] == 0x85 && w[2] == 0x02 && w[3] == 0xc3;
}

/*
 * A frame of size words at sp (the return address its last word, the caller's rbp the one
 * below): the caller. In the leaf before the prologue's end, only the return address (or it
 * and rbp, in its last 4 bytes: OTel's rule) is on the stack yet.
 */
static __always_inline int hs_sized(struct cp_ustate *s, const struct hs_blob_info *b, __u64 look)
{
	__u64 sp = s->sp, w[2];
	__s64 size = (__s64)b->size * 8;

	__u8 code[16];
	int ra_at, rbp_at;

	if (s->exact && look < b->begin + (__u64)(__s64)b->complete)
		size = look + 4 >= b->begin + (__u64)(__s64)b->complete ? 16 : 8;
	else if (s->exact && s->st.len == 1 &&
		 !bpf_probe_read_user(code, sizeof(code), (void *)look) &&
		 hs_epilogue(code, &ra_at, &rbp_at)) {
		if (bpf_probe_read_user(w, sizeof(w), (void *)sp))
			return hs_end(s, CP_HS_END_READ);
		return jit_caller(s, ra_at ? w[1] : w[0], sp + ra_at + 8, rbp_at ? s->bp : w[0]);
	}
	if (size < 8 || size > CP_FP_MAX_FRAME)
		return hs_end(s, CP_HS_END_READ);
	if (size == 8) {
		if (bpf_probe_read_user(&w[1], 8, (void *)sp))
			return hs_end(s, CP_HS_END_READ);
		return jit_caller(s, w[1], sp + 8, s->bp);
	}
	if (bpf_probe_read_user(w, sizeof(w), (void *)(sp + size - 16)))
		return hs_end(s, CP_HS_END_READ);
	return jit_caller(s, w[1], sp + size, w[0]);
}

/* A compressed int at buf[*at] (16 bytes); -1 when it runs past them. */
static __always_inline __s64 hs_u5(const __u8 *buf, __u32 *at, __u32 excluded)
{
	__u64 sum = 0;
	__u32 i = *at, b;

	for (int k = 0; k < 5; k++) {
		if (i >= 16)
			return -1;
		b = buf[i & 15];
		i++;
		if (b < excluded)
			return -1;
		b -= excluded;
		sum += (__u64)b << (6 * k);
		if (b < CP_HS_U5_LOW - excluded || k == 4)
			break;
	}
	*at = i;
	return (__s64)sum;
}

/*
 * The methods compiled into nmethod blob at the frame's pc, innermost first (inlined ones
 * flagged), from its debug information; the number pushed.
 */
static __always_inline int hs_scopes(struct cp_ustate *s, const struct cp_hs_proc *p, __u64 blob,
				     const struct hs_blob_info *b)
{
	const struct cp_hs_offsets *o = &p->off;
	__s32 meta = 0, pcs = 0, deps = 0, off, scope = 0, delta;
	__u32 size = o->pcdesc_size, lo = 0, hi, mid, at;
	__s64 sender, idx, bci;
	__u64 data = 0, m;
	__u8 buf[16];
	int pushed = 0;

	if (!o->scopes || !size || s->pc < b->begin || s->pc - b->begin > 0x7fffffff ||
	    bpf_probe_read_user(&meta, 4, (void *)(blob + o->nm_metadata)) ||
	    bpf_probe_read_user(&pcs, 4, (void *)(blob + o->nm_scopes_pcs)) ||
	    bpf_probe_read_user(&deps, 4, (void *)(blob + o->nm_deps)) ||
	    bpf_probe_read_user(&data, 8, (void *)(blob + o->cm_scopes_data)) || !data ||
	    pcs <= 0 || deps <= pcs || meta <= 0)
		return 0;
	delta = (__s32)(s->pc - b->begin);
	hi = (__u32)(deps - pcs) / size;
	/*
	 * A return address has a PcDesc of its own: the last at or before it. The sampled pc
	 * (exact) lies between two: the first at or after it, as HotSpot's pc_desc_near answers
	 * (the next safepoint's, in a loop its back edge's: the line running, where the one
	 * before may be the method's entry, with no bci).
	 */
	for (int i = 0; i < CP_HS_PCDESC_STEPS && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		off = 0;
		if (bpf_probe_read_user(&off, 4,
					(void *)(blob + pcs + (__u64)mid * size + o->pcdesc_pc)))
			return 0;
		if (s->exact ? off < delta : off <= delta)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = s->exact ? lo : lo - 1;
	if ((s->exact ? lo >= (__u32)(deps - pcs) / size : !lo) ||
	    bpf_probe_read_user(&scope, 4,
				(void *)(blob + pcs + (__u64)at * size + o->pcdesc_scope)))
		return 0;
	for (int i = 0; i < CP_HS_SCOPES && scope > 0; i++) {
		if (bpf_probe_read_user(buf, sizeof(buf), (void *)(data + (__u64)scope)))
			break;
		at = 0;
		sender = hs_u5(buf, &at, o->u5_excluded);
		idx = hs_u5(buf, &at, o->u5_excluded);
		bci = hs_u5(buf, &at, o->u5_excluded);
		if (sender < 0 || idx <= 0 || bci < 0 || idx > 0xffff)
			break;
		m = rt_ptr(blob + (__u64)meta + 8 * (__u64)(idx - 1));
		if (!m)
			break;
		/* the bci is kept + 1 (InvocationEntryBci is -1) */
		jit_push_inlined(s, m, bci ? (__u32)(bci - 1) : ~0u, CP_HS_FRAME_COMPILED);
		pushed++;
		/* the senders' offsets decrease (OTel): the walk ends */
		if (sender >= scope)
			break;
		scope = (__s32)sender;
	}
	return pushed;
}

/* A frame with a frame pointer and no size (the call stub): the caller from rbp. */
static __always_inline int hs_fp(struct cp_ustate *s)
{
	__u64 fp = s->bp, w[2];

	if (fp < s->sp || fp - s->sp > CP_FP_MAX_FRAME || (fp & 7))
		return hs_end(s, CP_HS_END_BAD_FP);
	if (bpf_probe_read_user(w, sizeof(w), (void *)fp))
		return hs_end(s, CP_HS_END_READ);
	return jit_caller(s, w[1], fp + 16, w[0]);
}

__noinline int cp_hs_step(struct cp_ustate *s, const struct cp_hs_proc *p, __u64 look)
{
	struct hs_blob_info b = {};
	__u64 blob;

	if (!s || !p)
		return STEP_END;
	blob = hs_blob(p, look);
	if (!blob)
		return hs_end(s, CP_HS_END_NO_BLOB);
	if (hs_blob_read(p, blob, &b))
		return hs_end(s, CP_HS_END_READ);
	if (hs_tag(&b, 'I', 'n', 't', 'e'))
		return hs_interp(s, p);
	if (hs_tag(&b, 'n', 'a', 't', 'i')) {
		jit_push(s, b.method, ~0u, CP_HS_FRAME_NATIVE);
		jit_done(s);
		return hs_sized(s, &b, look);
	}
	if (hs_tag(&b, 'n', 'm', 'e', 't')) {
		if (!hs_scopes(s, p, blob, &b))
			jit_push(s, b.method, ~0u, CP_HS_FRAME_COMPILED);
		jit_done(s);
		return hs_sized(s, &b, look);
	}
	jit_push(s, blob, ~0u, CP_HS_FRAME_STUB);
	jit_done(s);
	/* vtable chunks (OTel), and the I2C/C2I adapters, which jump on: a bare return address */
	if (hs_tag(&b, 'v', 't', 'a', 'b') || hs_tag(&b, 'I', '2', 'C', '/'))
		b.size = 1;
	return b.size > 0 ? hs_sized(s, &b, look) : hs_fp(s);
}

/* ---- names --------------------------------------------------------------------------------- */

/* The Symbol at sym: its bytes (at most max) to buf; their number, or -1. */
static __always_inline int hs_sym(const struct cp_hs_proc *p, __u64 sym, char *buf, __u32 max)
{
	__u16 len = 0;

	if (!sym || bpf_probe_read_user(&len, 2, (void *)(sym + p->off.sym_length)))
		return -1;
	if (len > max)
		len = (__u16)max;
	if (len && bpf_probe_read_user(buf, len, (void *)(sym + p->off.sym_body)))
		return -1;
	return len;
}

/* The class part of a name at most; the method's the rest (less the '.'). */
#define CP_HS_CLASS_MAX	 80
#define CP_HS_METHOD_MAX (CP_RT_NAME_LEN - CP_HS_CLASS_MAX - 2)

/* Entry i of constant pool cp: a Symbol* (the low bit is a tag). */
static __always_inline __u64 hs_cp_entry(const struct cp_hs_proc *p, __u64 cp, __u16 i)
{
	return rt_ptr(cp + p->off.cpool_size + 8 * (__u64)i) & ~1ull;
}

/* "pkg.Class.method" and the source file of Method* m (HotSpot writes pkg/Class). */
static __always_inline void hs_name_method(const struct cp_hs_proc *p, __u64 m,
					   struct cp_rt_name *n)
{
	__u64 cm = rt_ptr(m + p->off.method_const), cp, klass;
	__u16 ni = 0, si = 0;
	int kl, ml, off;

	cp = cm ? rt_ptr(cm + p->off.cmethod_constants) : 0;
	klass = cp ? rt_ptr(cp + p->off.cpool_holder) : 0;
	if (!klass || bpf_probe_read_user(&ni, 2, (void *)(cm + p->off.cmethod_name)))
		return;
	kl = hs_sym(p, rt_ptr(klass + p->off.klass_name), n->name, CP_HS_CLASS_MAX);
	if (kl < 0)
		return;
	/*
	 * past kl the name is zeros (rt_name_scratch): no test of i against kl, whose range the
	 * verifier would split at each step (its paths grew with the square of the steps)
	 */
	for (int i = 0; i < CP_HS_CLASS_MAX; i++)
		if (n->name[i] == '/')
			n->name[i] = '.';
	off = kl & (CP_RT_NAME_LEN - 1);
	if (off > CP_HS_CLASS_MAX)
		off = CP_HS_CLASS_MAX;
	n->name[off] = '.';
	off++;
	ml = hs_sym(p, hs_cp_entry(p, cp, ni), n->name + off, CP_HS_METHOD_MAX);
	if (ml < 0)
		return;
	n->flags |= CP_RT_NAME_OK;
	if (!p->off.cpool_source ||
	    bpf_probe_read_user(&si, 2, (void *)(cp + p->off.cpool_source)) || !si)
		return;
	if (hs_sym(p, hs_cp_entry(p, cp, si), n->file, CP_RT_FILE_LEN - 1) > 0)
		n->flags |= CP_RT_FILE_OK;
}

static __always_inline void cp_hs_name(const struct cp_hs_proc *p, const struct cp_rt_frame *f,
				       struct cp_rt_name *n)
{
	__u64 name;

	if (f->kind != CP_HS_FRAME_STUB) {
		hs_name_method(p, f->ptr, n);
		return;
	}
	/* a stub: its blob's name, a C string of the VM ("StubRoutines (1)") */
	name = rt_ptr(f->ptr + p->off.cb_name);
	n->name[0] = '[';
	if (name && bpf_probe_read_user_str(n->name + 1, CP_RT_NAME_LEN - 2, (void *)name) > 1) {
		n->flags |= CP_RT_NAME_OK;
		for (int i = 1; i < CP_RT_NAME_LEN - 1; i++) {
			if (!n->name[i]) {
				n->name[i] = ']';
				break;
			}
		}
	}
}

/* The stamp of a frame's code: a method's ConstMethod*, a blob's name pointer. */
static __always_inline __u64 cp_hs_stamp(const struct cp_hs_proc *p, const struct cp_rt_frame *f)
{
	return rt_ptr(f->ptr +
		      (f->kind == CP_HS_FRAME_STUB ? p->off.cb_name : p->off.method_const));
}

#endif
