/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PHP (Zend engine, NTS) frame walker and namer, for inclusion by a BPF program (after
 * vmlinux.h, the libbpf helpers and php_shared.h). The walker (runtimes.md 1): from
 * executor_globals.current_execute_data along prev_execute_data, each frame's zend_function
 * with the line of its current opline, ZEND_CALL_TOP (the frame C code called into the VM
 * with: a nested execute_ex) as the entry flag. NTS PHP runs one interpreter per process, so
 * the global is the sampled thread's. The namer copies "Class::method" or "function", "{main}",
 * "{include}", "{eval}", the file and the first line while the process lives (rt_names).
 * Both are global BPF functions: the verifier checks each once.
 */
#ifndef CPUPROF_PHP_WALK_BPF_H
#define CPUPROF_PHP_WALK_BPF_H
#include "runtime_walk.bpf.h"

/*
 * Copy the names of PHP frame f (a zend_function) into n: "Class::method" or "function", the
 * file-level code "{main}" (entered from C) or "{include}", eval'd code "{eval}"; the file and
 * first line of user code.
 */
__noinline int cp_php_name_g(const struct cp_php_proc *pp, __u64 func, __u32 kind, __u32 flags,
			     struct cp_rt_name *n)
{
	const struct cp_php_offsets *o;
	__u64 fname, scope, zs;

	if (!pp || !n)
		return 0;
	o = &pp->off;
	switch (kind) {
	case CP_PHP_FRAME_CODE:
		if (flags & CP_RT_FF_ENTRY)
			RT_LITERAL(n->name, "{main}");
		else
			RT_LITERAL(n->name, "{include}");
		n->flags |= CP_RT_NAME_OK;
		break;
	case CP_PHP_FRAME_EVAL:
		RT_LITERAL(n->name, "{eval}");
		n->flags |= CP_RT_NAME_OK;
		break;
	default:
		fname = rt_ptr(func + o->func_name);
		scope = rt_ptr(func + o->func_scope);
		if (scope)
			scope = rt_ptr(scope + o->ce_name);
		if (fname &&
		    !rt_join(n->name, scope ? scope + o->zstr_val : 0, fname + o->zstr_val))
			n->flags |= CP_RT_NAME_OK;
	}
	if (kind == CP_PHP_FRAME_INTERNAL)
		return 0;
	zs = rt_ptr(func + o->op_filename);
	if (zs) {
		/* zend_string: len (size_t) right before val */
		__u64 len = rt_ptr(zs + o->zstr_val - 8);
		int cut = 0;

		if (len && !rt_copy_str(n->file, CP_RT_FILE_LEN, zs + o->zstr_val, len, 1, &cut))
			n->flags |= CP_RT_FILE_OK | (cut ? CP_RT_FILE_CUT : 0);
	}
	n->firstline = rt_u32(func + o->op_line_start);
	return 0;
}

/*
 * The stamp of the code a frame names (RT_NAMER): its function name and file strings, so a
 * zend_function freed and another made at its address is named again.
 */
static __always_inline __u64 cp_php_stamp(const struct cp_php_proc *pp, const struct cp_rt_frame *f)
{
	const struct cp_php_offsets *o = &pp->off;
	__u64 stamp = rt_ptr(f->ptr + o->func_name) ^ ((__u64)f->kind << 56) ^
		      ((__u64)(f->flags & CP_RT_FF_ENTRY) << 60);

	if (f->kind != CP_PHP_FRAME_INTERNAL)
		stamp ^= rt_ptr(f->ptr + o->op_filename) << 1;
	return stamp;
}

/* The runtime layer's namer (bpf/runtime_profile.bpf.h RT_NAMER). */
static __always_inline void cp_php_name(const struct cp_php_proc *pp, const struct cp_rt_frame *f,
					struct cp_rt_name *n)
{
	cp_php_name_g(pp, f->ptr, f->kind, f->flags, n);
}

#define PHP_ED_READ   56 /* opline, ..., func, ..., This, prev_execute_data: 8.x's head */
#define PHP_FUNC_READ 16 /* type, fn_flags, function_name */

/* cp_php_frame: the walk goes on (not an enum cp_php_end) */
#define PHP_FRAME_MORE 0x7fff

/*
 * The walk's next execute_data, *ed (then its caller's there): a frame of a function pushed on
 * st. PHP_FRAME_MORE, or how the walk ended (set in st). Global, verified once: not once per
 * frame of the walk (its paths multiplied from one frame to the next).
 */
__noinline int cp_php_frame(const struct cp_php_proc *pp, __u64 *ed, struct cp_rt_stack *st)
{
	const struct cp_php_offsets *o;
	__u64 buf[PHP_ED_READ / 8], fbuf[PHP_FUNC_READ / 8], opline, func, name_zs;
	__u32 type_info, line = 0;
	__u8 type, kind, flags;

	if (!pp || !ed || !st)
		return CP_PHP_END_NO_PROC;
	o = &pp->off;
	if (!*ed)
		return st->end;
	if (bpf_probe_read_user(buf, PHP_ED_READ, (void *)*ed))
		return rt_set_end(st, CP_PHP_END_READ);
	opline = rt_buf_le(buf, PHP_ED_READ, o->ed_opline, 8);
	func = rt_buf_le(buf, PHP_ED_READ, o->ed_func, 8);
	type_info = (__u32)rt_buf_le(buf, PHP_ED_READ, o->ed_type_info, 4);
	*ed = rt_buf_le(buf, PHP_ED_READ, o->ed_prev, 8);
	if (!func)
		return PHP_FRAME_MORE; /* a frame without a function (a dummy call frame) */
	if (bpf_probe_read_user(fbuf, PHP_FUNC_READ, (void *)func))
		return rt_set_end(st, CP_PHP_END_READ);
	type = (__u8)fbuf[0];
	name_zs = rt_buf_le(fbuf, PHP_FUNC_READ, o->func_name, 8);
	if (type == CP_PHP_INTERNAL_FUNCTION)
		kind = CP_PHP_FRAME_INTERNAL;
	else if (type == CP_PHP_EVAL_CODE)
		kind = CP_PHP_FRAME_EVAL;
	else if (type == CP_PHP_USER_FUNCTION)
		kind = name_zs ? CP_PHP_FRAME_USER : CP_PHP_FRAME_CODE;
	else
		return PHP_FRAME_MORE;
	if (kind != CP_PHP_FRAME_INTERNAL && opline)
		line = rt_u32(opline + o->opline_lineno);
	flags = type_info & CP_PHP_CALL_TOP ? CP_RT_FF_ENTRY : 0;
	if (st->len >= CP_PHP_MAX_FRAMES)
		return rt_set_end(st, CP_PHP_END_TRUNCATED);
	rt_push(st, func, line, kind, flags);
	return PHP_FRAME_MORE;
}

/* Walk the PHP frames of process pid (the sampled thread is its interpreter: NTS). */
/* fsbase: unused (NTS: one interpreter per process, its globals are the sampled thread's) */
__noinline int cp_php_walk(const struct cp_php_proc *pp, __u64 fsbase, struct cp_rt_stack *st)
{
	__u64 ed;
	int ret;

	__asm__ volatile("" : : "r"(fsbase)); /* a global function's argument the caller must set */
	if (!pp || !st)
		return CP_PHP_END_NO_PROC;
	st->len = 0;
	st->end = CP_PHP_END_OK;
	ed = rt_ptr(pp->eg + pp->off.eg_current_execute_data);
	if (!ed)
		return rt_set_end(st, CP_PHP_END_NO_STATE);
	for (int i = 0; i < CP_PHP_MAX_FRAMES + 1; i++) {
		ret = cp_php_frame(pp, &ed, st);
		if (ret != PHP_FRAME_MORE)
			return ret;
	}
	return rt_set_end(st, CP_PHP_END_TRUNCATED);
}

#endif
