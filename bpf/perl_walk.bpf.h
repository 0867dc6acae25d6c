/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Perl 5 (threaded) frame walker and namer, for inclusion by a BPF program (after
 * vmlinux.h, the libbpf helpers and perl_shared.h). The walker (runtimes.md 2): the sampled
 * thread's interpreter from glibc's thread-specific data under PL_thr_key, then the context
 * stack of its Icurstackinfo from the top down and the outer stackinfos through si_prev; a sub
 * context gives its (effective) GV, or its CV when it is named without one, with the line of
 * the cop running in it (Icurcop for the innermost, the blk_oldcop of the context above for the
 * others); a sub without a return op (called from C) is an entry; the main program's
 * file-level code last. The namer copies "Package::sub" or "<main>", the file (CvFILE) while
 * the process lives (rt_names). Both are global BPF functions: the verifier checks each once.
 */
#ifndef CPUPROF_PERL_WALK_BPF_H
#define CPUPROF_PERL_WALK_BPF_H
#include "runtime_walk.bpf.h"

/* The name HEK of a stash (HvNAME_HEK); 0 when it has none. */
static __always_inline __u64 pl_stash_hek(const struct cp_pl_offsets *o, __u64 hv)
{
	__u64 body, aux, name;
	__s32 count;

	if (!hv || !(rt_u32(hv + o->sv_flags) & CP_PL_SVf_OOK))
		return 0;
	body = rt_ptr(hv + o->sv_any);
	if (!body)
		return 0;
	if (o->xhv_aux == CP_PL_AUX_AFTER_BUCKETS) {
		/* before 5.35: past the bucket array, HvARRAY + (xhv_max + 1) pointers */
		__u64 max = rt_ptr(body + o->xhv_max), array = rt_ptr(hv + o->sv_u);

		if (!array || max > (1u << 24))
			return 0;
		aux = array + (max + 1) * 8;
	} else {
		aux = body + o->xhv_aux;
	}
	name = rt_ptr(aux + o->aux_name);
	count = (__s32)rt_u32(aux + o->aux_name_count);
	if (!count)
		return name;
	/* a HEK** of names: the first is the name (count < 0: the first is NULL, see hv.h) */
	return rt_ptr(name + (count < 0 ? 8 : 0));
}

/*
 * Copy the names of Perl frame f into n: "Package::sub" from the GV (CP_PL_FRAME_SUB) or the CV
 * (CP_PL_FRAME_CV: its name HEK and CvSTASH), "<main>" for file-level code; the file: the sub's
 * CvFILE, or for <main> the cop's file (the frame's ptr).
 */
__noinline int cp_pl_name_g(const struct cp_pl_proc *lp, __u64 ptr, __u32 kind,
			    struct cp_rt_name *n)
{
	const struct cp_pl_offsets *o;
	__u64 body, hek = 0, stash = 0, shek, cv = 0, file = 0;

	if (!lp || !n)
		return 0;
	o = &lp->off;
	if (kind == CP_PL_FRAME_MAIN) {
		RT_LITERAL(n->name, "<main>");
		n->flags |= CP_RT_NAME_OK;
		file = ptr;
	} else {
		body = rt_ptr(ptr + o->sv_any);
		if (body && kind == CP_PL_FRAME_SUB) {
			hek = rt_ptr(body + o->xgv_namehek);
			stash = rt_ptr(body + o->xgv_stash);
			cv = rt_ptr(rt_ptr(ptr + o->sv_u) + o->gp_cv);
		} else if (body) {
			hek = rt_ptr(body + o->xcv_gv);
			stash = rt_ptr(body + o->xcv_stash);
			cv = ptr;
		}
		/* CvFILE: the file the sub was compiled in */
		if (cv)
			file = rt_ptr(rt_ptr(cv + o->sv_any) + o->xcv_file);
		shek = pl_stash_hek(o, stash);
		if (hek && !rt_join(n->name, shek ? shek + o->hek_key : 0, hek + o->hek_key))
			n->flags |= CP_RT_NAME_OK;
	}
	if (file && bpf_probe_read_user_str(n->file, CP_RT_FILE_LEN, (void *)file) > 1)
		n->flags |= CP_RT_FILE_OK;
	return 0;
}

/*
 * What names a sub context's CV: its effective GV (the GV, or the GP's egv), kind
 * CP_PL_FRAME_SUB; the CV itself when it is named without a GV (CVf_NAMED), CP_PL_FRAME_CV.
 * 0 when neither.
 */
static __always_inline __u64 pl_cv_ident(const struct cp_pl_offsets *o, __u64 cv, __u8 *kind)
{
	__u64 body, gv, gp, egv;
	__u32 flags;

	if (!cv || (rt_u32(cv + o->sv_flags) & CP_PL_SVt_MASK) != CP_PL_SVt_PVCV)
		return 0;
	body = rt_ptr(cv + o->sv_any);
	if (!body)
		return 0;
	if (rt_u32(body + o->xcv_flags) & CP_PL_CVf_NAMED) {
		*kind = CP_PL_FRAME_CV;
		return cv;
	}
	*kind = CP_PL_FRAME_SUB;
	gv = rt_ptr(body + o->xcv_gv);
	if (!gv)
		return 0;
	flags = rt_u32(gv + o->sv_flags);
	if ((flags & (CP_PL_SVt_MASK | CP_PL_SVpgv_GP)) != (CP_PL_SVt_PVGV | CP_PL_SVpgv_GP))
		return 0;
	gp = rt_ptr(gv + o->sv_u);
	egv = gp ? rt_ptr(gp + o->gp_egv) : 0;
	return egv ? egv : gv;
}

/* The interpreter of the thread whose thread pointer is fsbase. */
static __always_inline __u64 pl_my_perl(const struct cp_pl_proc *lp, __u64 fsbase)
{
	__u64 block;
	__u32 key;

	if (!lp->thr_key || !fsbase || bpf_probe_read_user(&key, sizeof(key), (void *)lp->thr_key))
		return 0;
	if (key < CP_RT_GLIBC_TSD_BLOCK)
		return rt_ptr(fsbase + CP_RT_GLIBC_TSD_FIRST + 16 * (__u64)key + 8);
	if (key >= 1024)
		return 0;
	block = rt_ptr(fsbase + CP_RT_GLIBC_TSD_SECOND + 8 * (__u64)(key / CP_RT_GLIBC_TSD_BLOCK));
	return block ? rt_ptr(block + 16 * (__u64)(key % CP_RT_GLIBC_TSD_BLOCK) + 8) : 0;
}

#define PL_CX_READ 0x50 /* cx_type ... blk_sub.cv: the fields used lie below */
#define PL_SI_READ 0x30
/* contexts looked at per walk (sub contexts and the blocks, loops between them) */
#define PL_MAX_CX 192

/* Where the walk is between two contexts (cp_pl_cx). */
struct pl_walk {
	__u64 si, cop, cxbase, cx;
	int si_type, fresh, called_from_c, pad;
};

/* cp_pl_cx: the walk goes on (not an enum cp_pl_end) */
#define PL_CX_MORE 0x7fff

/*
 * The walk's next context (of stackinfo w->si, its cxstack read first when w->fresh): a sub
 * context's frame pushed on st with the line running in it, the file-level code at the
 * outermost stackinfo's end. PL_CX_MORE, or how the walk ended (set in st). Global, verified
 * once: not once per context of the walk (its paths multiplied from one context to the next).
 */
__noinline int cp_pl_cx(const struct cp_pl_proc *lp, struct pl_walk *w, struct cp_rt_stack *st)
{
	const struct cp_pl_offsets *o;
	__u64 buf[PL_CX_READ / 8], sbuf[PL_SI_READ / 8], cv, egv;
	__u8 type, kind = 0;

	if (!lp || !w || !st)
		return CP_PL_END_NO_PROC;
	o = &lp->off;
	if (w->fresh) {
		__s32 ix;

		if (bpf_probe_read_user(sbuf, PL_SI_READ, (void *)w->si))
			return rt_set_end(st, CP_PL_END_READ);
		w->cxbase = rt_buf_le(sbuf, PL_SI_READ, o->si_cxstack, 8);
		ix = (__s32)rt_buf_le(sbuf, PL_SI_READ, o->si_cxix, 4);
		w->si_type = (int)rt_buf_le(sbuf, PL_SI_READ, o->si_type, 4);
		if (!w->cxbase || ix > 100000)
			return rt_set_end(st, CP_PL_END_READ);
		w->cx = w->cxbase + (__s64)ix * o->cx_size;
		w->fresh = 0;
		w->called_from_c = 0;
	}
	if (w->cx < w->cxbase) {
		/* this stackinfo is done: its file-level code (main) or the outer one */
		if (w->si_type == CP_PL_PERLSI_MAIN) {
			__u64 file = rt_ptr(w->cop + o->cop_file);

			/*
			 * no file before perl_run (PL_compiling at start-up); and no file-level
			 * code running when the outermost sub of this stack was called from C (a
			 * thread's start routine, BEGIN and END blocks): no frame then
			 */
			if (w->cop && file && !w->called_from_c) {
				if (st->len >= CP_PL_MAX_FRAMES)
					return rt_set_end(st, CP_PL_END_TRUNCATED);
				rt_push(st, file, rt_u32(w->cop + o->cop_line), CP_PL_FRAME_MAIN,
					CP_RT_FF_ENTRY);
			}
			return st->end;
		}
		w->si = rt_ptr(w->si + o->si_prev);
		if (!w->si)
			return st->end;
		w->fresh = 1;
		return PL_CX_MORE;
	}
	/* the topmost context may be half-written (cxix is bumped first): read errors there
	 * end the walk as a read error, the frames so far kept */
	if (bpf_probe_read_user(buf, PL_CX_READ, (void *)w->cx))
		return rt_set_end(st, CP_PL_END_READ);
	w->cx -= o->cx_size;
	type = (__u8)buf[0];
	if ((type & CP_PL_CXTYPEMASK) != CP_PL_CXt_SUB &&
	    (type & CP_PL_CXTYPEMASK) != CP_PL_CXt_FORMAT)
		return PL_CX_MORE;
	if (type & CP_PL_CXp_SUB_RE_FAKE)
		return PL_CX_MORE;
	cv = rt_buf_le(buf, PL_CX_READ, o->cx_cv, 8);
	egv = pl_cv_ident(o, cv, &kind);
	if (egv) {
		__u8 flags = rt_buf_le(buf, PL_CX_READ, o->cx_retop, 8) ? 0 : CP_RT_FF_ENTRY;

		if (st->len >= CP_PL_MAX_FRAMES)
			return rt_set_end(st, CP_PL_END_TRUNCATED);
		rt_push(st, egv, w->cop ? rt_u32(w->cop + o->cop_line) : 0, kind, flags);
		w->called_from_c = flags & CP_RT_FF_ENTRY;
	}
	/* the caller's line: the cop current when this sub was entered */
	w->cop = rt_buf_le(buf, PL_CX_READ, o->cx_oldcop, 8);
	return PL_CX_MORE;
}

/*
 * Walk the Perl frames of the thread whose thread pointer is fsbase, in process pid: each sub
 * context with the line running in it, then the file-level code.
 */
__noinline int cp_pl_walk(const struct cp_pl_proc *lp, __u64 fsbase, struct cp_rt_stack *st)
{
	struct pl_walk w = {.fresh = 1};
	__u64 my_perl;
	int ret;

	if (!lp || !st)
		return CP_PL_END_NO_PROC;
	st->len = 0;
	st->end = CP_PL_END_OK;
	my_perl = pl_my_perl(lp, fsbase);
	if (!my_perl)
		return rt_set_end(st, CP_PL_END_NO_STATE);
	w.si = rt_ptr(my_perl + lp->off.interp_curstackinfo);
	w.cop = rt_ptr(my_perl + lp->off.interp_curcop);
	if (!w.si)
		return rt_set_end(st, CP_PL_END_NO_STATE);
	for (int i = 0; i < PL_MAX_CX; i++) {
		ret = cp_pl_cx(lp, &w, st);
		if (ret != PL_CX_MORE)
			return ret;
	}
	return rt_set_end(st, CP_PL_END_TRUNCATED);
}

/*
 * The stamp of the code a frame names (RT_NAMER): the sub's name HEK (a GV's, or a named CV's),
 * or the first bytes of <main>'s file name, so a sub freed and another made at its address is
 * named again.
 */
static __always_inline __u64 cp_pl_stamp(const struct cp_pl_proc *lp, const struct cp_rt_frame *f)
{
	const struct cp_pl_offsets *o = &lp->off;
	__u64 body;

	if (f->kind == CP_PL_FRAME_MAIN)
		return rt_ptr(f->ptr);
	body = rt_ptr(f->ptr + o->sv_any);
	return rt_ptr(body + (f->kind == CP_PL_FRAME_SUB ? o->xgv_namehek : o->xcv_gv)) ^
	       ((__u64)f->kind << 56);
}

/* The runtime layer's namer (bpf/runtime_profile.bpf.h RT_NAMER). */
static __always_inline void cp_pl_name(const struct cp_pl_proc *lp, const struct cp_rt_frame *f,
				       struct cp_rt_name *n)
{
	cp_pl_name_g(lp, f->ptr, f->kind, n);
}

#endif
