/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V8 frames (node) and their names (include after runtime_walk.bpf.h and v8_shared.h). V8
 * keeps a frame pointer in every frame it makes, and below it the function's slots
 * (frames.h of V8: StandardFrameConstants, described by the v8dbg_off_fp_* metadata):
 *
 *   fp - 8   the context, or a SMI frame-type marker (a typed frame: entry, exit, stub...)
 *   fp - 16  the JSFunction of a JS frame
 *   fp - 32  the BytecodeArray of an interpreted or baseline frame
 *   fp - 40  its bytecode offset (a SMI)
 *
 * cp_v8_frame reads one frame the native walk is in (its pc in V8's code: JIT memory or the
 * embedded builtins) and pushes the function's SharedFunctionInfo; cp_v8_name copies its name
 * (the SFI's name string, or the name in its ScopeInfo), its script's name and the line it
 * starts at, while the process lives (objects move at each GC: an address is copied again when
 * its stamp changed). Every object is checked by its instance type before it is followed.
 * Facts: ../shared/design/runtimes.md 4; OTel's support/ebpf/v8_tracer.ebpf.c and
 * interpreter/nodev8/v8.go (analyzeScopeInfo, the String representations).
 */
#ifndef CPUPROF_V8_WALK_BPF_H
#define CPUPROF_V8_WALK_BPF_H

#define V8_NO_TYPE 0xffffffffu

/* Whether w is a SMI (tag bit 0). */
static __always_inline int v8_is_smi(__u64 w)
{
	return (w & 1) == 0;
}

/* The untagged address of heap object w (0 when w is not one). */
static __always_inline __u64 v8_obj(const struct cp_v8_offsets *o, __u64 w)
{
	if ((w & o->heap_tag_mask) != o->heap_tag || w < 4096)
		return 0;
	return w - o->heap_tag;
}

/* The instance type of heap object w (its map's), V8_NO_TYPE when w is not one. Global:
 * verified once. */
__noinline __u32 cp_v8_type(const struct cp_v8_offsets *o, __u64 w)
{
	__u64 obj, map;
	__u16 t;

	if (!o)
		return V8_NO_TYPE;
	obj = v8_obj(o, w);
	if (!obj)
		return V8_NO_TYPE;
	map = v8_obj(o, rt_ptr(obj + o->map));
	if (!map || bpf_probe_read_user(&t, sizeof(t), (void *)(map + o->map_instance_type)))
		return V8_NO_TYPE;
	return t;
}

/* The slot of the frame at fp at offset off (negative, a multiple of 8, >= -64). */
static __always_inline __u64 v8_slot(const __u64 *below, __s16 off)
{
	return below[((__u32)(64 + off) >> 3) & 7];
}

/*
 * Decoding a source position table (V8's source-position-table.cc; OTel v8.go decodePosition):
 * pairs of signed VLQs (7 bits a byte, low first, bit 7 set when more follow; zigzag: the low
 * bit the sign), the code offset's delta (is_statement in its sign: a negative delta d
 * means -d - 1) then the source position's, from code offset -1 and position 0. A position is
 * V8's SourcePosition: bit 0 external, bits 1-30 the script offset + 1, the inlining id above.
 * The position of bytecode offset at: the last entry whose code offset is at most at.
 */
struct v8_spt {
	__u64 data;	 /* the table's bytes */
	__s64 code, src; /* the entry being decoded */
	__s64 found;	 /* the position of the last entry at or before at */
	__u64 acc;	 /* the VLQ being read, shift its bits read */
	__u32 shift, field, len, done, at;
	int err;
};

/* A BytecodeArray's words read at once: its map, length, ..., its table (V8 11.3: the 5th;
   user space checks it lies in V8_BA_READ bytes), over a frame's V8_BA_WORDS slots */
#define V8_BA_WORDS 8
#define V8_BA_READ  40

/* A source position table being decoded, per CPU (apart from the strings' buffer): its bytes
 * read, its state (here, not on the short BPF stack of the walk's calls). */
struct v8_sptbuf {
	__u8 b[CP_V8_SPT_CHUNK];
	struct v8_spt c;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct v8_sptbuf);
	__uint(max_entries, 1);
} v8_spt_buf SEC(".maps");

/* 1 when a < b (signed), else 0, without a branch (Hacker's Delight, 2-12). */
static __always_inline __u64 v8_lt(__s64 a, __s64 b)
{
	__u64 d = (__u64)a - (__u64)b, x = (__u64)a ^ (__u64)b;

	return (d ^ (x & (d ^ (__u64)a))) >> 63;
}

/* The next CP_V8_SPT_CHUNK bytes of table c: 0, 1 at its end or past the offset, -1. Global:
 * verified once; without a branch on the bytes (the verifier walks each path of a loop). */
__noinline int cp_v8_spt_chunk(struct v8_spt *c)
{
	__u32 zero = 0, len, k;
	struct v8_sptbuf *sb = bpf_map_lookup_elem(&v8_spt_buf, &zero);
	__u64 acc, b, last, end, isc, neg, val, upd, rest, over;
	__u32 shift, field;
	__s64 code, src, found;

	if (!c || !sb || c->done >= c->len)
		return 1;
	/*
	 * The bytes left, at most CP_V8_SPT_CHUNK, without a branch: one of exactly
	 * CP_V8_SPT_CHUNK would be a second pass of the verifier over the loop below.
	 */
	rest = c->len - c->done;
	over = (CP_V8_SPT_CHUNK - 1 - rest) >> 63;
	barrier_var(over);
	len = (__u32)(rest - ((rest - CP_V8_SPT_CHUNK) & -over));
	__builtin_memset(sb->b, 0, sizeof(sb->b));
	if (bpf_probe_read_user(sb->b,
				len & (CP_V8_SPT_CHUNK - 1) ? len & (CP_V8_SPT_CHUNK - 1)
							    : CP_V8_SPT_CHUNK,
				(void *)(c->data + c->done))) {
		c->err = 1;
		return -1;
	}
	acc = c->acc;
	shift = c->shift;
	field = c->field;
	code = c->code;
	src = c->src;
	found = c->found;
	for (k = 0; k < CP_V8_SPT_CHUNK; k++) {
		/* the table's end, or an entry past the offset: no later one is before it (a
		   branch that leaves the loop: the verifier's paths do not multiply) */
		if (k >= len || code > (__s64)c->at)
			break;
		b = sb->b[k & (CP_V8_SPT_CHUNK - 1)];
		acc |= (b & 0x7f) << (shift & 63);
		shift += 7;
		last = (b >> 7) ^ 1; /* 1 at a VLQ's last byte */
		end = -last;	     /* all ones there */
		val = (acc >> 1) ^ -(acc & 1);
		/* field is 0 (the code offset's delta) or 1: all ones at the code offset's */
		isc = end & ((__u64)field - 1);
		/* masks clang must not see as such: it would branch on them again */
		barrier_var(isc);
		neg = (__u64)((__s64)val >> 63);
		code += (__s64)((val ^ neg) & isc);
		src += (__s64)(val & end & ~isc);
		/* a whole entry at or before the offset: its position */
		upd = end & ~isc & (v8_lt(c->at, code) - 1);
		barrier_var(upd);
		found = (__s64)(((__u64)found & ~upd) | ((__u64)src & upd));
		/* from last, not end & 1: this kernel's verifier forks on a 0/-1 value and'd */
		field ^= (__u32)last;
		acc &= ~end;
		shift &= ~(__u32)end;
	}
	c->acc = acc;
	c->shift = shift;
	c->field = field;
	c->code = code;
	c->src = src;
	c->found = found;
	c->done += len;
	/* code offsets only grow: past the offset, no later entry is before it */
	return code > (__s64)c->at || c->done >= c->len;
}

/* bpf_loop's step: the next chunk of the table (its state the per-CPU one). */
static long v8_spt_step(__u32 i, void *arg)
{
	__u32 zero = 0;
	struct v8_sptbuf *sb = bpf_map_lookup_elem(&v8_spt_buf, &zero);

	(void)i;
	(void)arg;
	return !sb || cp_v8_spt_chunk(&sb->c) ? 1 : 0;
}

/*
 * The source position (V8's SourcePosition, 64 bits, >= 0) of code offset at in source position
 * table spt (tagged: a ByteArray; undefined until V8 collects it), or -1 when spt is no table,
 * longer than CP_V8_SPT_MAX, unreadable or has no entry at or before at. Global: verified once
 * (a bytecode offset's and a pc offset's alike).
 */
__noinline __s64 cp_v8_spt_find(const struct cp_v8_offsets *o, __u64 spt_w, __u32 at)
{
	__u32 zero = 0;
	struct v8_sptbuf *sb = bpf_map_lookup_elem(&v8_spt_buf, &zero);
	struct v8_spt *c;
	__u64 h[2], spt, map, w;
	__u16 t;

	if (!o || !sb)
		return -1;
	c = &sb->c;
	spt = v8_obj(o, spt_w);
	if (!spt || bpf_probe_read_user(h, sizeof(h), (void *)spt))
		return -1;
	map = v8_obj(o, h[(o->map >> 3) & 1]);
	if (!map || bpf_probe_read_user(&t, sizeof(t), (void *)(map + o->map_instance_type)) ||
	    t != o->type_byte_array)
		return -1;
	w = h[(o->fixed_length >> 3) & 1];
	if (!v8_is_smi(w) || (w >> o->smi_shift) > CP_V8_SPT_MAX)
		return -1;
	__builtin_memset(c, 0, sizeof(*c));
	c->data = spt + o->fixed_data;
	c->len = (__u32)(w >> o->smi_shift);
	c->at = at;
	c->code = -1;
	c->found = -1;
	bpf_loop(CP_V8_SPT_MAX / CP_V8_SPT_CHUNK + 1, v8_spt_step, NULL, 0);
	return c->err || c->found < 0 ? -1 : c->found;
}

/* 1 + the script offset of SourcePosition pos (what a frame's pos holds), ~0 when it has none
 * (an external position: code of no script) */
static __always_inline __u32 v8_src_pos(__s64 pos)
{
	__u32 p;

	if (pos < 0 || (pos & 1))
		return ~0u;
	p = (__u32)((__u64)pos >> 1) & ((1u << 30) - 1);
	return p ? p : ~0u;
}

/* The inlining id of SourcePosition pos: 0 its code's own function's, else 1 + the index of
 * the InliningPosition of the function it is in. */
static __always_inline __u32 v8_inlining_id(__s64 pos)
{
	return (__u32)((__u64)pos >> 31) & 0xffff;
}

/*
 * 1 + the script position of the bytecode an interpreted frame runs (its slots below: its
 * BytecodeArray and bytecode offset; below is overwritten), ~0 when it is not an interpreted frame
 * or its table is not there (V8 collects tables lazily: undefined until something asked) or too
 * long.
 */
static __always_inline __u32 cp_v8_bytecode_pos(const struct cp_v8_offsets *o, __u64 *below)
{
	__u64 ba = v8_slot(below, o->fp_bytecode_array),
	      off = v8_slot(below, o->fp_bytecode_offset);
	__u64 *h = below, obj, map, w; /* the slots read: the words read next (stack) */
	__u16 t;
	__s64 delta;

	/* the BytecodeArray's words up to its table (over the slots), then its map's type: two
	   reads (each read costs: the walk reads this for every interpreted frame of every sample)
	 */
	obj = v8_obj(o, ba);
	if (!o->bytecode_spt || !v8_is_smi(off) || !obj ||
	    bpf_probe_read_user(h, V8_BA_READ, (void *)obj))
		return ~0u;
	map = v8_obj(o, h[(o->map >> 3) & (V8_BA_WORDS - 1)]);
	if (!map || bpf_probe_read_user(&t, sizeof(t), (void *)(map + o->map_instance_type)) ||
	    t != o->type_bytecode)
		return ~0u;
	w = h[(o->fixed_length >> 3) & (V8_BA_WORDS - 1)];
	/* the offset counts from the BytecodeArray's tagged address (frames.cc) */
	delta = (__s64)off >> o->smi_shift;
	delta -= (__s64)o->bytecode_data - o->heap_tag;
	if (!v8_is_smi(w) || delta < 0 || delta >= (__s64)(w >> o->smi_shift))
		return ~0u;
	return v8_src_pos(
		cp_v8_spt_find(o, h[(o->bytecode_spt >> 3) & (V8_BA_WORDS - 1)], (__u32)delta));
}

/* rt_push of a JS frame, global (verified once: its index bounded in a loop of pushes too) */
__noinline int cp_v8_push(struct cp_rt_stack *st, __u64 sfi, __u32 pos, __u32 flags)
{
	if (!st)
		return -1;
	rt_push(st, sfi, pos, CP_V8_FRAME_JS, (__u8)flags);
	return 0;
}

/* What a frame of optimized code is read into (per CPU: the BPF stack is short): its Code's
 * header, its deoptimization data's first words, the functions inlined and their positions. */
struct v8_optbuf {
	__u64 hdr[CP_V8_CODE_READ / 8];
	__u64 dd[8];
	__u64 ent[2]; /* an InliningPosition */
	__u64 fn[CP_V8_INLINE_MAX];
	__u32 pos[CP_V8_INLINE_MAX];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct v8_optbuf);
	__uint(max_entries, 1);
} v8_opt_buf SEC(".maps");

/*
 * The deoptimization data of a Code (hdr: its header) into b->dd (its first 8 elements), its
 * literals (*lit: a WeakFixedArray, untagged; *nlit its length) and InliningPositions (*inl: a
 * ByteArray's bytes; *ninl entries): 0 or -1.
 */
static __always_inline int v8_deopt(const struct cp_v8_offsets *o, struct v8_optbuf *b, __u64 *lit,
				    __u32 *nlit, __u64 *inl, __u32 *ninl)
{
	__u64 dd = b->hdr[(o->code_deopt >> 3) & (CP_V8_CODE_READ / 8 - 1)], obj, w;

	if (cp_v8_type(o, dd) != o->type_fixed_array)
		return -1;
	obj = v8_obj(o, dd);
	w = rt_ptr(obj + o->fixed_length);
	if (!v8_is_smi(w) || (w >> o->smi_shift) < 8 ||
	    bpf_probe_read_user(b->dd, sizeof(b->dd), (void *)(obj + o->fixed_data)))
		return -1;
	w = b->dd[o->deopt_literals & 7];
	if (cp_v8_type(o, w) != o->type_weak_fixed)
		return -1;
	*lit = v8_obj(o, w);
	w = rt_ptr(*lit + o->fixed_length);
	if (!v8_is_smi(w))
		return -1;
	*nlit = (__u32)(w >> o->smi_shift);
	w = b->dd[o->deopt_inlining & 7];
	if (cp_v8_type(o, w) != o->type_byte_array)
		return -1;
	*inl = v8_obj(o, w);
	w = rt_ptr(*inl + o->fixed_length);
	if (!v8_is_smi(w))
		return -1;
	*ninl = (__u32)(w >> o->smi_shift) / CP_V8_INLINING_POS;
	*inl += o->fixed_data;
	/* the functions inlined: the first literals (a SMI count) */
	w = b->dd[o->deopt_count & 7];
	if (!v8_is_smi(w) || (w >> o->smi_shift) < *nlit)
		*nlit = v8_is_smi(w) ? (__u32)(w >> o->smi_shift) : 0;
	return 0;
}

/*
 * Whether JSFunction fn runs optimized code (Maglev, TurboFan) holding pc look: 1 + the offset of
 * look in its instructions, its Code's header in b->hdr; else 0. Its Code is
 * JSFunction.code, the code it runs now: a frame of code replaced since (a deoptimization, an
 * on-stack replacement) does not hold look. Global: verified once.
 */
__noinline int cp_v8_code(const struct cp_v8_offsets *o, __u64 fn, __u64 look, struct v8_optbuf *b)
{
	__u64 code, start;
	__u32 kind, size;

	if (!o || !b || !o->jsfunc_code || !look)
		return 0;
	code = rt_ptr(v8_obj(o, fn) + o->jsfunc_code);
	if (cp_v8_type(o, code) != o->type_code ||
	    bpf_probe_read_user(b->hdr, sizeof(b->hdr), (void *)v8_obj(o, code)))
		return 0;
	kind = ((__u32 *)b->hdr)[(o->code_flags >> 2) & (CP_V8_CODE_READ / 4 - 1)];
	kind = (kind & o->kind_mask) >> (o->kind_shift & 31);
	start = b->hdr[(o->code_start >> 3) & (CP_V8_CODE_READ / 8 - 1)];
	size = ((__u32 *)b->hdr)[(o->code_size >> 2) & (CP_V8_CODE_READ / 4 - 1)];
	if (kind <= o->kind_baseline || look < start || look - start >= size || size >= (1u << 30))
		return 0;
	return (int)(look - start) + 1;
}

/*
 * The frames of optimized code whose pc's source position is pos (its Code's header in b->hdr),
 * pushed on st: the functions inlined there, innermost first (CP_RT_FF_INLINED), each at its
 * position, then the frame's own (sfi). The chain of InliningPositions of the Code's
 * deoptimization data: each the position of the call in its caller (a lower inlining id) and
 * the inlined function's index in the deoptimization literals, as V8's deoptimizer and OTel's
 * symbolizeCode (v8.go) read them. Global: verified once.
 */
__noinline int cp_v8_inlined(const struct cp_v8_offsets *o, struct v8_optbuf *b, __s64 pos,
			     __u64 sfi, struct cp_rt_stack *st)
{
	__u32 id, n = 0, nlit = 0, ninl = 0, own;
	__u64 lit = 0, inl = 0, w;
	__s64 fid;

	if (!o || !b || !st)
		return -1;
	for (int i = 0; i < CP_V8_INLINE_MAX; i++) {
		id = v8_inlining_id(pos);
		if (!id)
			break;
		if (!inl && v8_deopt(o, b, &lit, &nlit, &inl, &ninl))
			break;
		if (id > ninl ||
		    bpf_probe_read_user(b->ent, sizeof(b->ent),
					(void *)(inl + (__u64)(id - 1) * CP_V8_INLINING_POS)))
			break;
		fid = (__s32)(__u32)b->ent[1];
		if (fid < 0 || fid >= nlit)
			break;
		w = rt_ptr(lit + o->fixed_data + 8 * (__u64)fid);
		/* a weak reference: its tag's weak bit cleared (a cleared one is no object) */
		if ((w & 3) == 3)
			w &= ~2ull;
		if (cp_v8_type(o, w) != o->type_sfi)
			break;
		b->fn[n & (CP_V8_INLINE_MAX - 1)] = w;
		b->pos[n & (CP_V8_INLINE_MAX - 1)] = v8_src_pos(pos);
		n++;
		/* the call's position in its caller: a lower id (each caller was inlined first) */
		pos = (__s64)b->ent[0];
		if (v8_inlining_id(pos) >= id)
			break;
	}
	/*
	 * The position is the frame's own function's when the chain was read to its end. A chain
	 * cut short (unreadable, not an SFI) would put the inner functions right under the frame's
	 * own, its middle ones missing: a call that never happened. Only the frame's own then.
	 */
	own = v8_inlining_id(pos) ? ~0u : v8_src_pos(pos);
	if (own == ~0u || st->len + n + 1 > CP_RT_MAX_FRAMES)
		n = 0;
	for (__u32 i = 0; i < CP_V8_INLINE_MAX; i++) {
		if (i >= n)
			break;
		cp_v8_push(st, b->fn[i & (CP_V8_INLINE_MAX - 1)],
			   b->pos[i & (CP_V8_INLINE_MAX - 1)], CP_RT_FF_INLINED);
	}
	cp_v8_push(st, sfi, own, 0);
	return 0;
}

/*
 * The frame whose frame pointer is fp and pc look (0: not known): 1 when it is a JS frame (its
 * SFI pushed on st, flags on it; for optimized code, the functions inlined at look first,
 * flagged inlined only), 2 when it is a typed V8 frame (entry, exit, stub: nothing pushed), 0
 * when its slots are not a V8 frame's, -1 when they cannot be read.
 */
__noinline int cp_v8_frame(const struct cp_v8_proc *p, __u64 fp, __u64 look, struct cp_rt_stack *st,
			   __u32 flags)
{
	const struct cp_v8_offsets *o;
	__u64 below[8], fn, sfi;
	__u32 t, pos, zero = 0;
	struct v8_optbuf *b;
	__s64 found;
	int at;

	if (!p || !st)
		return -1;
	o = &p->off;
	if (fp < 64 || bpf_probe_read_user(below, sizeof(below), (void *)(fp - 64)))
		return -1;
	if (v8_is_smi(v8_slot(below, o->fp_marker)))
		return 2;
	fn = v8_slot(below, o->fp_function);
	t = cp_v8_type(o, fn);
	if (t < o->type_jsfunc_first || t > o->type_jsfunc_last)
		return 0;
	sfi = rt_ptr(v8_obj(o, fn) + o->jsfunc_shared);
	if (cp_v8_type(o, sfi) != o->type_sfi)
		return 0;
	/* where in it: an interpreted frame's position (the same function at another line is
	   another frame, as an interpreter's); else optimized code's, the functions inlined at its
	   pc first; baseline frames: ~0 */
	pos = cp_v8_bytecode_pos(o, below);
	if (pos == ~0u) {
		b = bpf_map_lookup_elem(&v8_opt_buf, &zero);
		at = b ? cp_v8_code(o, fn, look, b) : 0;
		if (b && at > 0) {
			/* the functions inlined at the pc's position first (flags: none) */
			found = cp_v8_spt_find(
				o, b->hdr[(o->code_spt >> 3) & (CP_V8_CODE_READ / 8 - 1)], at - 1);
			if (found >= 0)
				return cp_v8_inlined(o, b, found, sfi, st) ? -1 : 1;
		}
	}
	rt_push(st, sfi, pos, CP_V8_FRAME_JS, (__u8)flags); /* last use */
	return 1;
}

/* Pieces of a string (its cons strings' halves) copied at most. */
#define V8_STR_PIECES 8
/* Where a string is copied: cp_rt_name.name or .file. */
#define V8_TO_NAME 0
#define V8_TO_FILE 1
/* Characters of a two-byte string copied at most (few names are). */
#define V8_TWO_BYTE_MAX 64

/* A string being copied: twice the longest field, so that a piece at any offset below it
 * fits whatever its length (what the verifier can check); per CPU. */
struct v8_strbuf {
	char b[2 * CP_RT_FILE_LEN];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct v8_strbuf);
	__uint(max_entries, 1);
} v8_str_buf SEC(".maps");

/* cp_v8_flat's how: where (V8_TO_*), whether the tail is kept, at which byte */
#define V8_HOW(to, tail, off) ((to) | ((tail) ? 2u : 0u) | ((__u32)(off) << 8))
/* cp_v8_flat's result: the bytes copied, this bit set when the string was cut */
#define V8_FLAT_CUT (1 << 20)

/*
 * Copy the flat (sequential) string at obj (untagged), of instance type t, into sb from byte
 * off (how: V8_HOW; room up to the field's size, less its NUL): its head, or with tail its
 * tail when it does not fit; two-byte characters above 0x7f as '?'. The bytes copied
 * (| V8_FLAT_CUT when cut), or -1.
 */
__noinline int cp_v8_flat(const struct cp_v8_offsets *o, __u64 obj, __u32 t, struct v8_strbuf *sb,
			  __u32 how)
{
	__u32 off = how >> 8, size = (how & 1) == V8_TO_FILE ? CP_RT_FILE_LEN : CP_RT_NAME_LEN;
	__u32 room, len, cut = 0;
	__u64 data;
	__s32 slen;

	if (!o || !sb || off >= size - 1)
		return -1;
	if (bpf_probe_read_user(&slen, sizeof(slen), (void *)(obj + o->string_length)) || slen < 0)
		return -1;
	len = (__u32)slen;
	room = size - 1 - off;
	data = obj + o->seq_chars;
	if ((t & o->string_enc_mask) == o->one_byte_tag) {
		if (len > room) {
			cut = V8_FLAT_CUT;
			if (how & 2)
				data += len - room;
			len = room;
		}
		if (len && bpf_probe_read_user(sb->b + (off & (CP_RT_FILE_LEN - 1)),
					       len & (CP_RT_FILE_LEN - 1), (void *)data))
			return -1;
		return (int)(len | cut);
	}
	/* two bytes a character */
	if (len > room || len > V8_TWO_BYTE_MAX) {
		cut = V8_FLAT_CUT;
		len = len > room ? room : len;
		len = len > V8_TWO_BYTE_MAX ? V8_TWO_BYTE_MAX : len;
	}
	for (__u32 k = 0; k < V8_TWO_BYTE_MAX; k++) {
		__u16 c;

		if (k >= len)
			break;
		if (bpf_probe_read_user(&c, sizeof(c), (void *)(data + 2 * k)))
			return -1;
		sb->b[(off + k) & (2 * CP_RT_FILE_LEN - 1)] = c < 0x80 && c ? (char)c : '?';
	}
	return (int)(len | cut);
}

/*
 * Copy String w to n's name or file (to: V8_TO_*; n zeroed): its characters, cons strings
 * first half then second (at most V8_STR_PIECES pieces, CP_V8_CONS_DEPTH pending), through
 * thin strings; with tail the tail of a flat string that does not fit. The length copied, or
 * -1 when w is not a string laid out as the reader knows (sliced and external strings are not
 * read).
 */
__noinline int cp_v8_str(const struct cp_v8_offsets *o, __u64 w, struct cp_rt_name *n, __u32 to,
			 __u32 tail)
{
	__u64 pending[CP_V8_CONS_DEPTH];
	__u32 off = 0, np = 0, t, repr, cut = 0, zero = 0;
	struct v8_strbuf *sb = bpf_map_lookup_elem(&v8_str_buf, &zero);
	__u64 obj;
	int got;

	if (!o || !n || !sb)
		return -1;
	/* zeroed: what follows the characters copied is their NUL */
	__builtin_memset(sb->b, 0, sizeof(sb->b));
	for (int i = 0; i < V8_STR_PIECES; i++) {
		t = cp_v8_type(o, w);
		obj = v8_obj(o, w);
		if (t >= o->first_nonstring || !obj)
			break;
		repr = t & o->string_repr_mask;
		if (repr == o->thin_tag) {
			w = rt_ptr(obj + o->thin_actual);
			continue;
		}
		if (repr == o->cons_tag) {
			if (np < CP_V8_CONS_DEPTH)
				pending[np++ & (CP_V8_CONS_DEPTH - 1)] =
					rt_ptr(obj + o->cons_second);
			else
				cut = 1;
			w = rt_ptr(obj + o->cons_first);
			continue;
		}
		if (repr != o->seq_tag)
			break;
		got = cp_v8_flat(o, obj, t, sb, V8_HOW(to, tail && off == 0 && np == 0, off));
		if (got < 0)
			break;
		cut |= got & V8_FLAT_CUT;
		off += (__u32)got & (V8_FLAT_CUT - 1);
		if (np == 0)
			break;
		w = pending[--np & (CP_V8_CONS_DEPTH - 1)];
	}
	if (!off && !(t < o->first_nonstring && repr == o->seq_tag))
		return -1;
	if (to == V8_TO_FILE) {
		__builtin_memcpy(n->file, sb->b, CP_RT_FILE_LEN);
		n->file[CP_RT_FILE_LEN - 1] = 0;
		n->flags |= cut ? CP_RT_FILE_CUT : 0;
	} else {
		__builtin_memcpy(n->name, sb->b, CP_RT_NAME_LEN);
		n->name[CP_RT_NAME_LEN - 1] = 0;
		n->flags |= cut ? CP_RT_NAME_CUT : 0;
	}
	return (int)off;
}

/*
 * The name of a function whose name_or_scope_info is a ScopeInfo, and the script position it
 * starts at (*start, 0 when not found). V8 publishes no layout of the ScopeInfo's variable
 * part: after scope_first_vars fixed slots and two per context local, the first string is the
 * function's name, followed by its start and end positions, two SMIs (OTel analyzeScopeInfo,
 * the same heuristic, looking at CP_V8_SCOPE_SLOTS slots past the context locals, however many).
 * An anonymous function's name is empty, the string after it is the name
 * V8 inferred ("Module._load" for a function assigned there): taken then.
 */
__noinline int cp_v8_scope_name(const struct cp_v8_offsets *o, __u64 si, struct cp_rt_name *n,
				__u32 *start)
{
	__u64 slots[CP_V8_SCOPE_SLOTS], prev = 1, cur, obj, data, locals;
	int found = -1;
	__u32 ndx;

	if (!o || !n || !start)
		return -1;
	*start = 0;
	obj = v8_obj(o, si);
	if (!obj)
		return -1;
	data = obj + o->map + 8;
	/* the slots after the context locals' names and infos: where the name is */
	locals = rt_ptr(data + 8 * (__u64)o->scope_ncontext);
	if (!v8_is_smi(locals) || (locals >> o->smi_shift) > CP_V8_SCOPE_LOCALS)
		return -1;
	ndx = o->scope_first_vars + 2 * (__u32)(locals >> o->smi_shift);
	if (bpf_probe_read_user(slots, sizeof(slots), (void *)(data + 8 * (__u64)ndx)))
		return -1;
	for (__u32 i = 0; i < CP_V8_SCOPE_SLOTS; i++) {
		cur = slots[i & (CP_V8_SCOPE_SLOTS - 1)];
		if (found <= 0 && !v8_is_smi(cur) && cp_v8_type(o, cur) < o->first_nonstring)
			found = cp_v8_str(o, cur, n, V8_TO_NAME, 0);
		if (v8_is_smi(cur) && v8_is_smi(prev) &&
		    (prev >> o->smi_shift) < (cur >> o->smi_shift)) {
			*start = (__u32)(prev >> o->smi_shift);
			break;
		}
		prev = cur;
	}
	return found;
}

/*
 * The line and column (from 1) of position pos of a script from its line ends (Script.line_ends:
 * a FixedArray of SMIs, the position of each line's '\n', the last one the source's length;
 * V8 makes it when something asked a line of the script: a stack trace, a profiler), into
 * n->firstline and n->column with CP_RT_NAME_LINE. 0, or -1 when the script has none (undefined)
 * or it is not laid out as the reader knows.
 */
__noinline int cp_v8_line(const struct cp_v8_offsets *o, __u64 script, __u32 pos,
			  struct cp_rt_name *n)
{
	__u64 le, obj, data, w;
	__u32 lo = 0, hi, mid, start = 0;

	if (!o || !n)
		return -1;
	le = rt_ptr(script + o->script_line_ends);
	if (cp_v8_type(o, le) != o->type_fixed_array)
		return -1;
	obj = v8_obj(o, le);
	w = rt_ptr(obj + o->fixed_length);
	if (!obj || !v8_is_smi(w))
		return -1;
	hi = (__u32)(w >> o->smi_shift);
	if (!hi || hi > (1u << CP_V8_LINE_STEPS))
		return -1;
	data = obj + o->fixed_data;
	/* the first line whose end is at or after pos */
	for (int i = 0; i <= CP_V8_LINE_STEPS; i++) {
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		w = rt_ptr(data + 8 * (__u64)mid);
		if (!v8_is_smi(w))
			return -1;
		if ((__u32)(w >> o->smi_shift) < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		w = rt_ptr(data + 8 * (__u64)(lo - 1));
		if (!v8_is_smi(w))
			return -1;
		start = (__u32)(w >> o->smi_shift) + 1;
	}
	if (start > pos)
		return -1;
	n->firstline = lo + 1;
	n->column = pos - start + 1;
	n->flags |= CP_RT_NAME_LINE;
	return 0;
}

/* What v8_count_step counts in: the source's characters [at, pos) from data. */
struct v8_count {
	__u64 data;
	__u32 pos, at, lines, start;
	int err;
};

/* Read len (< CP_V8_SRC_CHUNK) bytes at addr into sb, in pieces of 64, 8 and 1 bytes. */
static __always_inline long v8_read_tail(struct v8_strbuf *sb, __u64 addr, __u32 len)
{
	__u32 at = 0;

	for (int i = 0; i < 3; i++) {
		if (len - at < 64)
			break;
		if (bpf_probe_read_user(sb->b + (at & 255), 64, (void *)(addr + at)))
			return -1;
		at += 64;
	}
	for (int i = 0; i < 7; i++) {
		if (len - at < 8)
			break;
		if (bpf_probe_read_user(sb->b + (at & 255), 8, (void *)(addr + at)))
			return -1;
		at += 8;
	}
	for (int i = 0; i < 7; i++) {
		if (at >= len)
			break;
		if (bpf_probe_read_user(sb->b + (at & 255), 1, (void *)(addr + at)))
			return -1;
		at++;
	}
	return 0;
}

/* The line ends in the next CP_V8_SRC_CHUNK bytes of c's source: 0, 1 at its end, -1. Global:
 * verified once, its loop apart from bpf_loop's (whose step the verifier walks until the
 * states it meets repeat). */
__noinline int cp_v8_count_chunk(struct v8_count *c)
{
	__u32 zero = 0, len, lines, start, mask;
	struct v8_strbuf *sb = bpf_map_lookup_elem(&v8_str_buf, &zero);

	if (!c || !sb || c->at >= c->pos)
		return 1;
	/* a whole chunk, or the rest: each a constant size the verifier sees */
	len = c->pos - c->at;
	if (len >= CP_V8_SRC_CHUNK)
		len = CP_V8_SRC_CHUNK;
	if (len == CP_V8_SRC_CHUNK
		    ? bpf_probe_read_user(sb->b, CP_V8_SRC_CHUNK, (void *)(c->data + c->at))
		    : v8_read_tail(sb, c->data + c->at, len)) {
		c->err = 1;
		return -1;
	}
	/* without a branch on the characters: the verifier walks each path of a loop */
	lines = c->lines;
	start = c->start;
	for (__u32 k = 0; k < CP_V8_SRC_CHUNK; k++) {
		if (k >= len)
			break;
		mask = -(__u32)(sb->b[k & (CP_V8_SRC_CHUNK - 1)] == '\n');
		lines += mask & 1;
		start = (start & ~mask) | ((c->at + k + 1) & mask);
	}
	c->lines = lines;
	c->start = start;
	c->at += len;
	return 0;
}

/* bpf_loop's step: the next chunk. */
static long v8_count_step(__u32 i, void *arg)
{
	(void)i;
	return cp_v8_count_chunk(arg) ? 1 : 0;
}

/*
 * The line and column of position pos of a script with no line ends, counted in its source:
 * a one-byte string, sequential (in V8's heap) or external and cached (node's own scripts:
 * their text in node's binary), pos at most CP_V8_SRC_MAX. 0 (n->firstline, n->column,
 * CP_RT_NAME_LINE), or -1.
 */
__noinline int cp_v8_src_line(const struct cp_v8_offsets *o, __u64 script, __u32 pos,
			      struct cp_rt_name *n)
{
	struct v8_count c = {0};
	__u64 w, obj;
	__u32 t;
	__s32 len;

	if (!o || !n || pos > CP_V8_SRC_MAX)
		return -1;
	w = rt_ptr(script + o->script_source);
	t = cp_v8_type(o, w);
	obj = v8_obj(o, w);
	if ((t & o->string_repr_mask) == o->thin_tag && t < o->first_nonstring) {
		w = rt_ptr(obj + o->thin_actual);
		t = cp_v8_type(o, w);
		obj = v8_obj(o, w);
	}
	if (!obj || t >= o->first_nonstring || (t & o->string_enc_mask) != o->one_byte_tag)
		return -1;
	if ((t & o->string_repr_mask) == o->seq_tag)
		c.data = obj + o->seq_chars;
	else if (t == o->type_ext_one_byte)
		c.data = rt_ptr(obj + o->ext_resource + 8); /* resource_data: after resource */
	else
		return -1;
	if (!c.data || bpf_probe_read_user(&len, sizeof(len), (void *)(obj + o->string_length)) ||
	    len < 0 || pos > (__u32)len)
		return -1;
	c.pos = pos;
	bpf_loop(CP_V8_SRC_MAX / CP_V8_SRC_CHUNK + 1, v8_count_step, &c, 0);
	if (c.err || c.at != pos)
		return -1;
	n->firstline = c.lines + 1;
	n->column = pos - c.start + 1;
	n->flags |= CP_RT_NAME_LINE;
	return 0;
}

/* Copy what names frame f (a JS frame's SFI) into n. */
static __always_inline void cp_v8_name(const struct cp_v8_proc *p, const struct cp_rt_frame *f,
				       struct cp_rt_name *n)
{
	const struct cp_v8_offsets *o = &p->off;
	__u64 sfi = v8_obj(o, f->ptr), nos, script;
	__u32 start = 0;
	int len;

	if (f->kind != CP_V8_FRAME_JS || !sfi)
		return;
	nos = rt_ptr(sfi + o->sfi_name);
	if (cp_v8_type(o, nos) == o->type_scope_info)
		len = cp_v8_scope_name(o, nos, n, &start);
	else
		len = cp_v8_str(o, nos, n, V8_TO_NAME, 0);
	if (len == 0)
		RT_LITERAL(n->name, "(anonymous)");
	if (len >= 0)
		n->flags |= CP_RT_NAME_OK;
	script = rt_ptr(sfi + o->sfi_script);
	if (cp_v8_type(o, script) != o->type_script) {
		/* no script: a builtin's function data is its id (a SMI), an API function's not */
		if (v8_is_smi(rt_ptr(sfi + o->sfi_function_data)))
			n->flags |= CP_RT_NAME_BUILTIN;
		return;
	}
	if (cp_v8_str(o, rt_ptr(v8_obj(o, script) + o->script_name), n, V8_TO_FILE, 1) > 0)
		n->flags |= CP_RT_FILE_OK;
	/* its start position as a line from the script's line ends (V8 computes them only when
	   it needs them), else counted in its source (node:internal/... scripts are no files);
	   else the position (+ 1): user space reads the line and column in the script file */
	if (start) {
		n->flags |= CP_RT_NAME_POS;
		if (cp_v8_line(o, v8_obj(o, script), start, n) &&
		    cp_v8_src_line(o, v8_obj(o, script), start, n))
			n->firstline = start + 1;
	}
}

/*
 * The stamp of frame f's SFI as it is now: its name and script words. A GC that moved another
 * function's SFI to this address changes them; the same function keeps them.
 */
static __always_inline __u64 cp_v8_stamp(const struct cp_v8_proc *p, const struct cp_rt_frame *f)
{
	const struct cp_v8_offsets *o = &p->off;
	__u64 sfi = v8_obj(o, f->ptr);

	if (!sfi)
		return 0;
	return rt_ptr(sfi + o->sfi_name) * 31 + rt_ptr(sfi + o->sfi_script);
}

#endif
