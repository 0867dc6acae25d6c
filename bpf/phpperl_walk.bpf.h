/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PHP (Zend, NTS) and Perl (threaded) frame walkers, for inclusion by a BPF program (after
 * vmlinux.h, the libbpf helpers and phpperl_shared.h). Each records, innermost first, the
 * sampled thread's script frames (struct cp_pp_stack); its namer (cp_php_name, cp_pl_name)
 * copies what names a frame (struct cp_pp_name) while the process still lives.
 *
 * PHP (runtimes.md 1): executor_globals.current_execute_data, then prev_execute_data; each
 * frame's zend_function, the line of its current opline, ZEND_CALL_TOP as the entry flag.
 * Perl (runtimes.md 2): my_perl from glibc's thread-specific data under PL_thr_key, then the
 * context stack of Icurstackinfo from the top down, and the outer stackinfos through si_prev;
 * a sub context gives its (effective) GV with the line of the cop running in it (Icurcop for
 * the innermost, the blk_oldcop of the context above for the others).
 *
 * The includer may define CP_PP_NO_MAPS and its own php_procs and pl_procs maps.
 */
#ifndef CPUPROF_PHPPERL_WALK_BPF_H
#define CPUPROF_PHPPERL_WALK_BPF_H

#ifndef CP_PP_NO_MAPS
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_php_proc);
	__uint(max_entries, 1024);
} php_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct cp_pl_proc);
	__uint(max_entries, 1024);
} pl_procs SEC(".maps");

#endif

static __always_inline __u64 pp_ptr(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

static __always_inline __u32 pp_u32(__u64 addr)
{
	__u32 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* A little-endian field of n bytes at off of buf (size bytes); 0 outside. Byte loads: the
 * verifier refuses wider stack loads at offsets not known to be aligned. */
static __always_inline __u64 pp_buf_le(const __u64 *buf, __u32 size, __u32 off, __u32 n)
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

static __always_inline void pp_push(struct cp_pp_stack *st, __u64 ptr, __u32 line, __u8 kind,
				    __u8 flags)
{
	__u32 n = st->len;
	struct cp_pp_frame *f;

	if (n >= CP_PP_MAX_FRAMES)
		return;
	f = &st->frames[n & (CP_PP_MAX_FRAMES - 1)];
	f->ptr = ptr;
	f->line = line;
	f->kind = kind;
	f->flags = flags;
	f->pad = 0;
	st->len = n + 1;
}

static __always_inline __u32 pp_end(struct cp_pp_stack *st, __u32 why)
{
	st->end = (__u16)why;
	return why;
}

/*
 * name: the C string at scope (its first CP_PP_SCOPE_MAX - 1 bytes), "::", then the C string at
 * func; only func when scope is 0 or empty. name is CP_PP_NAME_LEN bytes, zeroed. 0, or -1
 * when func is unreadable.
 */
static __always_inline int pp_join(char *name, __u64 scope, __u64 func)
{
	__u32 off = 0;
	long l;

	if (scope) {
		l = bpf_probe_read_user_str(name, CP_PP_SCOPE_MAX, (void *)scope);
		if (l > 1) {
			off = (__u32)(l - 1) & (CP_PP_NAME_LEN / 2 - 1);
			name[off] = ':';
			name[(off + 1) & (CP_PP_NAME_LEN - 1)] = ':';
			off += 2;
		} else {
			name[0] = 0;
		}
	}
	off &= CP_PP_NAME_LEN / 2 - 1;
	if (!func || bpf_probe_read_user_str(name + off, CP_PP_FUNC_MAX, (void *)func) < 0)
		return -1;
	return 0;
}

/*
 * Copy len bytes of string data at data into buf (size bytes, a power of two, zeroed): the
 * tail when it is longer (*cut set). 0, or -1 when unreadable.
 */
static __always_inline int pp_copy_tail(char *buf, __u32 size, __u64 data, __u64 len, int *cut)
{
	if (len >= size) {
		*cut = 1;
		data += len - (size - 1);
		len = size - 1;
	}
	if (!data || bpf_probe_read_user(buf, (__u32)len & (size - 1), (void *)data))
		return -1;
	return 0;
}

/* A literal name ("{main}") into name. */
#define PP_LITERAL(name, lit) __builtin_memcpy((name), (lit), sizeof(lit))

/* ---- PHP ---- */

/*
 * Copy the names of PHP frame f (a zend_function) into n: "Class::method" or "function", the
 * file-level code "{main}" (entered from C) or "{include}", eval'd code "{eval}"; the file and
 * first line of user code.
 */
__noinline int cp_php_name(const struct cp_php_proc *pp, __u64 func, __u32 kind, __u32 flags,
			   struct cp_pp_name *n)
{
	const struct cp_php_offsets *o;
	__u64 fname, scope, zs;

	if (!pp || !n)
		return 0;
	o = &pp->off;
	switch (kind) {
	case CP_PP_K_PHP_CODE:
		if (flags & CP_PP_FF_ENTRY)
			PP_LITERAL(n->name, "{main}");
		else
			PP_LITERAL(n->name, "{include}");
		n->flags |= CP_PP_NAME_OK;
		break;
	case CP_PP_K_PHP_EVAL:
		PP_LITERAL(n->name, "{eval}");
		n->flags |= CP_PP_NAME_OK;
		break;
	default:
		fname = pp_ptr(func + o->func_name);
		scope = pp_ptr(func + o->func_scope);
		if (scope)
			scope = pp_ptr(scope + o->ce_name);
		if (fname &&
		    !pp_join(n->name, scope ? scope + o->zstr_val : 0, fname + o->zstr_val))
			n->flags |= CP_PP_NAME_OK;
	}
	if (kind == CP_PP_K_PHP_INTERNAL)
		return 0;
	zs = pp_ptr(func + o->op_filename);
	if (zs) {
		/* zend_string: len (size_t) right before val */
		__u64 len = pp_ptr(zs + o->zstr_val - 8);
		int cut = 0;

		if (len && !pp_copy_tail(n->file, CP_PP_FILE_LEN, zs + o->zstr_val, len, &cut))
			n->flags |= CP_PP_FILE_OK | (cut ? CP_PP_FILE_CUT : 0);
	}
	n->firstline = pp_u32(func + o->op_line_start);
	return 0;
}

#define PHP_ED_READ   56 /* opline, ..., func, ..., This, prev_execute_data: 8.x's head */
#define PHP_FUNC_READ 16 /* type, fn_flags, function_name */

/* Walk the PHP frames of process pid (the sampled thread is its interpreter: NTS). */
__noinline int cp_php_walk(const struct cp_php_proc *pp, struct cp_pp_stack *st)
{
	const struct cp_php_offsets *o;
	__u64 ed, buf[PHP_ED_READ / 8], fbuf[PHP_FUNC_READ / 8];
	int i;

	if (!pp || !st)
		return CP_PP_END_NO_PROC;
	o = &pp->off;
	st->len = 0;
	st->end = CP_PP_END_OK;
	ed = pp_ptr(pp->eg + o->eg_current_execute_data);
	if (!ed)
		return pp_end(st, CP_PP_END_NO_STATE);
	for (i = 0; i < CP_PP_MAX_FRAMES + 1; i++) {
		__u64 opline, func, name_zs;
		__u32 type_info, line = 0;
		__u8 type, kind, flags;

		if (!ed)
			return st->end;
		if (bpf_probe_read_user(buf, PHP_ED_READ, (void *)ed))
			return pp_end(st, CP_PP_END_READ);
		opline = pp_buf_le(buf, PHP_ED_READ, o->ed_opline, 8);
		func = pp_buf_le(buf, PHP_ED_READ, o->ed_func, 8);
		type_info = (__u32)pp_buf_le(buf, PHP_ED_READ, o->ed_type_info, 4);
		ed = pp_buf_le(buf, PHP_ED_READ, o->ed_prev, 8);
		if (!func)
			continue; /* a frame without a function (a dummy call frame) */
		if (bpf_probe_read_user(fbuf, PHP_FUNC_READ, (void *)func))
			return pp_end(st, CP_PP_END_READ);
		type = (__u8)fbuf[0];
		name_zs = pp_buf_le(fbuf, PHP_FUNC_READ, o->func_name, 8);
		if (type == CP_PHP_INTERNAL_FUNCTION)
			kind = CP_PP_K_PHP_INTERNAL;
		else if (type == CP_PHP_EVAL_CODE)
			kind = CP_PP_K_PHP_EVAL;
		else if (type == CP_PHP_USER_FUNCTION)
			kind = name_zs ? CP_PP_K_PHP_USER : CP_PP_K_PHP_CODE;
		else
			continue;
		if (kind != CP_PP_K_PHP_INTERNAL && opline)
			line = pp_u32(opline + o->opline_lineno);
		flags = type_info & CP_PHP_CALL_TOP ? CP_PP_FF_ENTRY : 0;
		if (st->len >= CP_PP_MAX_FRAMES)
			return pp_end(st, CP_PP_END_TRUNCATED);
		pp_push(st, func, line, kind, flags);
	}
	return pp_end(st, CP_PP_END_TRUNCATED);
}

/* ---- Perl ---- */

/* The name HEK of a stash (HvNAME_HEK); 0 when it has none. */
static __always_inline __u64 pl_stash_hek(const struct cp_pl_offsets *o, __u64 hv)
{
	__u64 body, aux, name;
	__s32 count;

	if (!hv || !(pp_u32(hv + o->sv_flags) & CP_PL_SVf_OOK))
		return 0;
	body = pp_ptr(hv + o->sv_any);
	if (!body)
		return 0;
	if (o->xhv_aux == CP_PL_AUX_AFTER_BUCKETS) {
		/* before 5.35: past the bucket array, HvARRAY + (xhv_max + 1) pointers */
		__u64 max = pp_ptr(body + o->xhv_max), array = pp_ptr(hv + o->sv_u);

		if (!array || max > (1u << 24))
			return 0;
		aux = array + (max + 1) * 8;
	} else {
		aux = body + o->xhv_aux;
	}
	name = pp_ptr(aux + o->aux_name);
	count = (__s32)pp_u32(aux + o->aux_name_count);
	if (!count)
		return name;
	/* a HEK** of names: the first is the name (count < 0: the first is NULL, see hv.h) */
	return pp_ptr(name + (count < 0 ? 8 : 0));
}

/*
 * Copy the names of Perl frame f into n: "Package::sub" from the GV (CP_PP_K_PL_SUB) or the CV
 * (CP_PP_K_PL_CV: its name HEK and CvSTASH), "<main>" for file-level code; the file: the sub's
 * CvFILE, or for <main> the cop's file (the frame's ptr).
 */
__noinline int cp_pl_name(const struct cp_pl_proc *lp, __u64 ptr, __u32 kind, struct cp_pp_name *n)
{
	const struct cp_pl_offsets *o;
	__u64 body, hek = 0, stash = 0, shek, cv = 0, file = 0;

	if (!lp || !n)
		return 0;
	o = &lp->off;
	if (kind == CP_PP_K_PL_MAIN) {
		PP_LITERAL(n->name, "<main>");
		n->flags |= CP_PP_NAME_OK;
		file = ptr;
	} else {
		body = pp_ptr(ptr + o->sv_any);
		if (body && kind == CP_PP_K_PL_SUB) {
			hek = pp_ptr(body + o->xgv_namehek);
			stash = pp_ptr(body + o->xgv_stash);
			cv = pp_ptr(pp_ptr(ptr + o->sv_u) + o->gp_cv);
		} else if (body) {
			hek = pp_ptr(body + o->xcv_gv);
			stash = pp_ptr(body + o->xcv_stash);
			cv = ptr;
		}
		/* CvFILE: the file the sub was compiled in */
		if (cv)
			file = pp_ptr(pp_ptr(cv + o->sv_any) + o->xcv_file);
		shek = pl_stash_hek(o, stash);
		if (hek && !pp_join(n->name, shek ? shek + o->hek_key : 0, hek + o->hek_key))
			n->flags |= CP_PP_NAME_OK;
	}
	if (file && bpf_probe_read_user_str(n->file, CP_PP_FILE_LEN, (void *)file) > 1)
		n->flags |= CP_PP_FILE_OK;
	return 0;
}

/*
 * What names a sub context's CV: its effective GV (the GV, or the GP's egv), kind
 * CP_PP_K_PL_SUB; the CV itself when it is named without a GV (CVf_NAMED), CP_PP_K_PL_CV.
 * 0 when neither.
 */
static __always_inline __u64 pl_cv_ident(const struct cp_pl_offsets *o, __u64 cv, __u8 *kind)
{
	__u64 body, gv, gp, egv;
	__u32 flags;

	if (!cv || (pp_u32(cv + o->sv_flags) & CP_PL_SVt_MASK) != CP_PL_SVt_PVCV)
		return 0;
	body = pp_ptr(cv + o->sv_any);
	if (!body)
		return 0;
	if (pp_u32(body + o->xcv_flags) & CP_PL_CVf_NAMED) {
		*kind = CP_PP_K_PL_CV;
		return cv;
	}
	*kind = CP_PP_K_PL_SUB;
	gv = pp_ptr(body + o->xcv_gv);
	if (!gv)
		return 0;
	flags = pp_u32(gv + o->sv_flags);
	if ((flags & (CP_PL_SVt_MASK | CP_PL_SVpgv_GP)) != (CP_PL_SVt_PVGV | CP_PL_SVpgv_GP))
		return 0;
	gp = pp_ptr(gv + o->sv_u);
	egv = gp ? pp_ptr(gp + o->gp_egv) : 0;
	return egv ? egv : gv;
}

/* The interpreter of the thread whose thread pointer is fsbase. */
static __always_inline __u64 pl_my_perl(const struct cp_pl_proc *lp, __u64 fsbase)
{
	__u64 block;
	__u32 key;

	if (!lp->thr_key || !fsbase || bpf_probe_read_user(&key, sizeof(key), (void *)lp->thr_key))
		return 0;
	if (key < CP_PL_GLIBC_TSD_BLOCK)
		return pp_ptr(fsbase + CP_PL_GLIBC_TSD_FIRST + 16 * (__u64)key + 8);
	if (key >= 1024)
		return 0;
	block = pp_ptr(fsbase + CP_PL_GLIBC_TSD_SECOND + 8 * (__u64)(key / CP_PL_GLIBC_TSD_BLOCK));
	return block ? pp_ptr(block + 16 * (__u64)(key % CP_PL_GLIBC_TSD_BLOCK) + 8) : 0;
}

#define PL_CX_READ 0x50 /* cx_type ... blk_sub.cv: the fields used lie below */
#define PL_SI_READ 0x30
/* contexts looked at per walk (sub contexts and the blocks, loops between them) */
#define PL_MAX_CX 192

/*
 * Walk the Perl frames of the thread whose thread pointer is fsbase, in process pid: each sub
 * context with the line running in it, then the file-level code.
 */
__noinline int cp_pl_walk(const struct cp_pl_proc *lp, __u64 fsbase, struct cp_pp_stack *st)
{
	const struct cp_pl_offsets *o;
	__u64 my_perl, si, cop, cxbase = 0, cx = 0, buf[PL_CX_READ / 8], sbuf[PL_SI_READ / 8];
	int i, si_type = 0, fresh = 1;

	if (!lp || !st)
		return CP_PP_END_NO_PROC;
	o = &lp->off;
	st->len = 0;
	st->end = CP_PP_END_OK;
	my_perl = pl_my_perl(lp, fsbase);
	if (!my_perl)
		return pp_end(st, CP_PP_END_NO_STATE);
	si = pp_ptr(my_perl + o->interp_curstackinfo);
	cop = pp_ptr(my_perl + o->interp_curcop);
	if (!si)
		return pp_end(st, CP_PP_END_NO_STATE);

	for (i = 0; i < PL_MAX_CX; i++) {
		__u64 cv, egv;
		__u8 type, kind = 0;

		if (fresh) {
			__s32 ix;

			if (bpf_probe_read_user(sbuf, PL_SI_READ, (void *)si))
				return pp_end(st, CP_PP_END_READ);
			cxbase = pp_buf_le(sbuf, PL_SI_READ, o->si_cxstack, 8);
			ix = (__s32)pp_buf_le(sbuf, PL_SI_READ, o->si_cxix, 4);
			si_type = (int)pp_buf_le(sbuf, PL_SI_READ, o->si_type, 4);
			if (!cxbase || ix > 100000)
				return pp_end(st, CP_PP_END_READ);
			cx = cxbase + (__s64)ix * o->cx_size;
			fresh = 0;
		}
		if (cx < cxbase) {
			/* this stackinfo is done: its file-level code (main) or the outer one */
			if (si_type == CP_PL_PERLSI_MAIN) {
				__u64 file = pp_ptr(cop + o->cop_file);

				if (cop) {
					if (st->len >= CP_PP_MAX_FRAMES)
						return pp_end(st, CP_PP_END_TRUNCATED);
					pp_push(st, file, pp_u32(cop + o->cop_line),
						CP_PP_K_PL_MAIN, CP_PP_FF_ENTRY);
				}
				return st->end;
			}
			si = pp_ptr(si + o->si_prev);
			if (!si)
				return st->end;
			fresh = 1;
			continue;
		}
		/* the topmost context may be half-written (cxix is bumped first): read errors
		 * there end the walk as a read error, the frames so far kept */
		if (bpf_probe_read_user(buf, PL_CX_READ, (void *)cx))
			return pp_end(st, CP_PP_END_READ);
		cx -= o->cx_size;
		type = (__u8)buf[0];
		if ((type & CP_PL_CXTYPEMASK) != CP_PL_CXt_SUB &&
		    (type & CP_PL_CXTYPEMASK) != CP_PL_CXt_FORMAT)
			continue;
		if (type & CP_PL_CXp_SUB_RE_FAKE)
			continue;
		cv = pp_buf_le(buf, PL_CX_READ, o->cx_cv, 8);
		egv = pl_cv_ident(o, cv, &kind);
		if (egv) {
			__u8 flags =
				pp_buf_le(buf, PL_CX_READ, o->cx_retop, 8) ? 0 : CP_PP_FF_ENTRY;

			if (st->len >= CP_PP_MAX_FRAMES)
				return pp_end(st, CP_PP_END_TRUNCATED);
			pp_push(st, egv, cop ? pp_u32(cop + o->cop_line) : 0, kind, flags);
		}
		/* the caller's line: the cop current when this sub was entered */
		cop = pp_buf_le(buf, PL_CX_READ, o->cx_oldcop, 8);
	}
	return pp_end(st, CP_PP_END_TRUNCATED);
}

#endif
