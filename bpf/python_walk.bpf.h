/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPython frame walker, for inclusion by a BPF program (after vmlinux.h, the libbpf
 * helpers and python_shared.h). It finds the thread state of the SAMPLED thread, not the GIL
 * holder's (interpreters.md 1.1, 5.3): the pthread key CPython binds each thread's tstate to,
 * read through glibc's thread-specific data at the task's fsbase and accepted only if the
 * tstate's thread_id is that fsbase; else the interpreter's thread list, matched on thread_id.
 * Then it records, innermost first, each frame's code object and instruction position:
 * PyFrameObject chains up to 3.10, _PyInterpreterFrame chains from 3.11, where shim frames
 * (3.12+) are dropped and mark the frame above them as an eval-loop entry.
 *
 * The includer finds the process's struct cp_py_proc (in rt_procs: cp_rt_proc.data);
 * cp_py_walk() fills a struct cp_rt_stack (in map memory: it is 2 KiB).
 */
#ifndef CPUPROF_PYTHON_WALK_BPF_H
#define CPUPROF_PYTHON_WALK_BPF_H
#include "runtime_walk.bpf.h"

/* The sampled thread's PyThreadState, or 0 when it has none. Global: verified once. */
__noinline __u64 cp_py_find_tstate(const struct cp_py_proc *pp, __u64 fsbase)
{
	const struct cp_py_offsets *o;
	__u64 ts, interp;

	if (!pp)
		return 0;
	o = &pp->off;

	ts = rt_tsd(fsbase, pp->tss_key);
	if (ts && rt_ptr(ts + o->tstate_thread_id) == fsbase)
		return ts;
	/* the thread list, newest first */
	interp = pp->interp_head ? rt_ptr(pp->interp_head) : pp->interp;
	if (!interp)
		return 0;
	ts = rt_ptr(interp + o->interp_tstate_head);
	for (int i = 0; i < CP_PY_MAX_THREADS && ts; i++) {
		if (rt_ptr(ts + o->tstate_thread_id) == fsbase)
			return ts;
		ts = rt_ptr(ts + o->tstate_next);
	}
	return 0;
}

/*
 * Bytes of a frame read at once: the fields the walker uses lie below (PyFrameObject: f_lasti
 * at 120 in 2.7/3.6; _PyInterpreterFrame: owner at 70, and the struct is 80 bytes: reading
 * further could cross into an unmapped page at the end of a data-stack chunk).
 */
#define PY_OBJ_FRAME_READ    128
#define PY_INTERP_FRAME_READ 72

/* A byte of a frame read into buf (size bytes); 0 when off lies outside. */
static __always_inline __u8 py_buf_u8(const __u64 *buf, __u32 size, __u32 off)
{
	if (off > size - 1)
		return 0;
	return *((const __u8 *)buf + off);
}

static __always_inline __u64 py_buf_u64(const __u64 *buf, __u32 size, __u32 off)
{
	return rt_buf_le(buf, size, off, 8);
}

static __always_inline __u32 py_buf_u32(const __u64 *buf, __u32 size, __u32 off)
{
	return (__u32)rt_buf_le(buf, size, off, 4);
}

/* Where a walk is between two frames (the walker's stack). */
struct cp_py_cursor {
	__u64 frame; /* the next frame to read, 0 at the end */
	__u64 prev;  /* the frame read last: a chain that repeats it loops */
};

/*
 * One frame of the walk: read cur->frame, push its code object and instruction position on st
 * (or mark the entry of an activation at a shim) and move cur to the frame it came from.
 * Returns CP_PY_END_OK to go on, else how the walk ends. Global (a BPF-to-BPF call): the
 * verifier checks it once, alone, rather than once per frame of an unrolled walk (347k
 * instructions verified, most of a second of setup, before).
 */
__noinline int cp_py_frame(const struct cp_py_proc *pp, struct cp_rt_stack *st,
			   struct cp_py_cursor *cur)
{
	const struct cp_py_offsets *o;
	__u64 buf[PY_OBJ_FRAME_READ / 8];
	__u64 frame, code;
	__u32 instr = ~0u;
	__u8 flags = 0;

	if (!pp || !st || !cur)
		return CP_PY_END_READ;
	o = &pp->off;
	frame = cur->frame;
	if (frame == cur->prev)
		return CP_PY_END_READ;
	cur->prev = frame;
	/* the whole frame head in one read: the fields are picked from it */
	if (o->frame_model == CP_PY_FRAMES_OBJECT) {
		__s32 lasti;

		if (bpf_probe_read_user(buf, PY_OBJ_FRAME_READ, (void *)frame))
			return CP_PY_END_READ;
		code = py_buf_u64(buf, PY_OBJ_FRAME_READ, o->frame_code);
		lasti = (__s32)py_buf_u32(buf, PY_OBJ_FRAME_READ, o->frame_lasti);
		instr = lasti < 0 ? ~0u : (__u32)lasti;
		cur->frame = py_buf_u64(buf, PY_OBJ_FRAME_READ, o->frame_back);
		flags = CP_RT_FF_ENTRY; /* one frame per activation */
	} else {
		__u8 owner, entry = 0;
		__u64 ip;

		if (bpf_probe_read_user(buf, PY_INTERP_FRAME_READ, (void *)frame))
			return CP_PY_END_READ;
		code = py_buf_u64(buf, PY_INTERP_FRAME_READ, o->iframe_code);
		ip = py_buf_u64(buf, PY_INTERP_FRAME_READ, o->iframe_instr);
		owner = py_buf_u8(buf, PY_INTERP_FRAME_READ, o->iframe_owner);
		if (o->iframe_is_entry != CP_PY_NONE)
			entry = py_buf_u8(buf, PY_INTERP_FRAME_READ, o->iframe_is_entry);
		cur->frame = py_buf_u64(buf, PY_INTERP_FRAME_READ, o->iframe_previous);
		if (owner > CP_PY_OWNER_CSTACK)
			return CP_PY_END_READ;
		if (owner == CP_PY_OWNER_CSTACK) {
			/* a shim: the frame pushed before it started an activation */
			rt_mark_entry(st);
			return CP_PY_END_OK;
		}
		if (entry)
			flags = CP_RT_FF_ENTRY;
		/* index of the instruction in the code units after the code object's head */
		if (code && ip >= code + o->code_code)
			instr = (__u32)((ip - code - o->code_code) / 2);
	}
	if (!code || rt_ptr(code + 8) != pp->code_type)
		return CP_PY_END_BAD_CODE;
	if (st->len >= CP_RT_MAX_FRAMES)
		return CP_PY_END_TRUNCATED; /* the root side is cut: user space marks it */
	rt_push(st, code, instr, CP_PY_FRAME_CODE, flags);
	return CP_PY_END_OK;
}

/*
 * Walk the Python frames of the current thread, whose thread pointer is fsbase, in process pp.
 * Returns st->end.
 */
static __always_inline __u32 cp_py_walk(const struct cp_py_proc *pp, __u64 fsbase,
					struct cp_rt_stack *st)
{
	const struct cp_py_offsets *o = &pp->off;
	struct cp_py_cursor cur = {};
	__u64 ts;
	int i, end;

	st->len = 0;
	st->end = CP_PY_END_OK;
	ts = cp_py_find_tstate(pp, fsbase);
	st->ctx = ts;
	if (!ts) {
		st->end = CP_PY_END_NO_TSTATE;
		return st->end;
	}
	cur.frame = rt_ptr(ts + o->tstate_frame);
	if (o->cframe_current_frame != CP_PY_NONE)
		cur.frame = rt_ptr(cur.frame + o->cframe_current_frame); /* 3.11, 3.12: _PyCFrame */

	for (i = 0; i < CP_RT_MAX_FRAMES + 1 && cur.frame; i++) {
		end = cp_py_frame(pp, st, &cur);
		if (end != CP_PY_END_OK) {
			st->end = (__u32)end;
			return st->end;
		}
	}
	if (cur.frame) {
		st->end = CP_PY_END_TRUNCATED;
		return st->end;
	}
	/* the outermost frame entered the eval loop from C */
	rt_mark_entry(st);
	return st->end;
}

/*
 * PyASCIIObject.state (3.x, at 32: after ob_refcnt, ob_type, length, hash): bit 5 compact, bit
 * 6 ascii, the same 3.3-3.13 (Include/cpython/unicodeobject.h): then the characters are at
 * str_ascii_data.
 */
#define PY_STATE_COMPACT (1u << 5)
#define PY_STATE_ASCII	 (1u << 6)

/* Where the characters of str object s are and how many: 0, or -1 when not plain ASCII. */
static __always_inline int py_str(const struct cp_py_proc *pp, __u64 s, __u64 *data, __u64 *len)
{
	__u64 head[5]; /* 2.7 PyStringObject: ob_size at 16; 3.x: length at 16, state at 32 */

	if (!s || bpf_probe_read_user(head, sizeof(head), (void *)s))
		return -1;
	if (pp->off.version >= 0x03000000 &&
	    ((__u32)head[4] & (PY_STATE_COMPACT | PY_STATE_ASCII)) !=
		    (PY_STATE_COMPACT | PY_STATE_ASCII))
		return -1;
	*len = head[2];
	*data = s + pp->off.str_ascii_data;
	return *len > (1u << 20) ? -1 : 0;
}

/*
 * The stamp of code object f->ptr (runtime_profile.bpf.h): its name and file objects and first
 * line. A code object freed and another made at its address (a module's body, run once) differ
 * in one of them ("<module>" is interned: the file tells them apart).
 */
static __always_inline __u64 cp_py_stamp(const struct cp_py_proc *pp, const struct cp_rt_frame *f)
{
	const struct cp_py_offsets *o = &pp->off;
	__u16 name = o->code_qualname != CP_PY_NONE ? o->code_qualname : o->code_name;
	__u32 first = 0;

	bpf_probe_read_user(&first, sizeof(first), (void *)(f->ptr + o->code_firstlineno));
	return rt_ptr(f->ptr + name) ^ (rt_ptr(f->ptr + o->code_filename) << 1) ^
	       ((__u64)first << 48);
}

/*
 * The namer (runtime_profile.bpf.h): what user space reads of a code object (py_code_read),
 * copied while the process lives: co_qualname (3.11+) else co_name, co_filename (its tail when
 * long), co_firstlineno.
 */
static __always_inline void cp_py_name(const struct cp_py_proc *pp, const struct cp_rt_frame *f,
				       struct cp_rt_name *n)
{
	const struct cp_py_offsets *o = &pp->off;
	__u16 name = o->code_qualname != CP_PY_NONE ? o->code_qualname : o->code_name;
	__u64 data = 0, len = 0;
	__s32 first = 0;
	int cut = 0;

	if (!bpf_probe_read_user(&first, sizeof(first), (void *)(f->ptr + o->code_firstlineno)) &&
	    first > 0)
		n->firstline = (__u32)first;
	if (!py_str(pp, rt_ptr(f->ptr + name), &data, &len) &&
	    !rt_copy_str(n->name, CP_RT_NAME_LEN, data, len, 0, &cut))
		n->flags |= CP_RT_NAME_OK | (cut ? CP_RT_NAME_CUT : 0);
	cut = 0;
	if (!py_str(pp, rt_ptr(f->ptr + o->code_filename), &data, &len) &&
	    !rt_copy_str(n->file, CP_RT_FILE_LEN, data, len, 1, &cut))
		n->flags |= CP_RT_FILE_OK | (cut ? CP_RT_FILE_CUT : 0);
}

#endif
