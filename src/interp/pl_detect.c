// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "elf/elf_named.h"
#include "interp/interp_find.h"
#include "interp/pl_detect.h"

int pl_offsets_table(uint32_t v, struct cp_pl_offsets *o)
{
	if (v < CP_PL_VER(5, 28, 0) || v >= CP_PL_VER(5, 43, 0))
		return -ENOTSUP;
	memset(o, 0, sizeof(*o));
	o->version = v;
	/*
	 * OTel eBPF profiler interpreter/perl/data.go (5.28-5.42, threaded builds); the 5.36
	 * values checked against Debian's perl.h by scripts/perl-offsets-headers.sh (offsetof),
	 * the others untested here. si_prev is ours: OTel follows si_next, but PUSHSTACKi (cop.h)
	 * links the outer stackinfo as si_prev.
	 */
	o->interp_curcop = v >= CP_PL_VER(5, 34, 0) ? 0xd0 : 0xe0; /* PerlInterpreter.Icurcop */
	o->interp_curstackinfo = v >= CP_PL_VER(5, 34, 0) ? 0xe0 : 0xf0;
	o->si_cxstack = 0x08;				     /* PERL_SI.si_cxstack */
	o->si_prev = 0x10;				     /* .si_prev */
	o->si_cxix = 0x20;				     /* .si_cxix */
	o->si_type = v >= CP_PL_VER(5, 32, 0) ? 0x2c : 0x28; /* .si_type (si_cxsubix: 5.32) */
	o->cx_size = v >= CP_PL_VER(5, 32, 0) ? 0x68 : 0x60; /* sizeof(PERL_CONTEXT) */
	o->cx_oldcop = 0x10;				     /* .blk_oldcop */
	o->cx_retop = 0x30;				     /* .blk_u.blku_sub.retop */
	o->cx_cv = v >= CP_PL_VER(5, 32, 0) ? 0x48 : 0x40;   /* .blk_u.blku_sub.cv */
	o->cop_line = 0x24;				     /* COP.cop_line */
	o->cop_file = 0x30;				     /* COP.cop_file (ithreads) */
	o->sv_any = 0x0;				     /* SV.sv_any */
	o->sv_flags = 0xc;				     /* SV.sv_flags */
	o->sv_u = 0x10;					     /* SV.sv_u */
	o->xcv_stash = 0x20;   /* XPVCV.xcv_stash (ours, from cv.h's _XPVCV_COMMON; checked) */
	o->xcv_gv = 0x38;      /* XPVCV.xcv_gv_u */
	o->xcv_flags = 0x5c;   /* XPVCV.xcv_flags */
	o->gp_egv = 0x38;      /* GP.gp_egv */
	o->gp_cv = 0x10;       /* GP.gp_cv (ours, from gv.h; checked) */
	o->xcv_file = 0x40;    /* XPVCV.xcv_file (ours, from cv.h; checked) */
	o->xgv_namehek = 0x20; /* XPVGV.xiv_u.xivu_namehek */
	o->xgv_stash = 0x28;   /* XPVGV.xnv_u.xgv_stash */
	/* the aux struct: in the HV body from 5.35 (xpvhv_with_aux), after the buckets before */
	o->xhv_aux = v >= CP_PL_VER(5, 35, 0) ? 0x20 : CP_PL_AUX_AFTER_BUCKETS;
	o->xhv_max = 0x18;	  /* XPVHV.xhv_max */
	o->aux_name = 0x0;	  /* xpvhv_aux.xhv_name_u */
	o->aux_name_count = 0x1c; /* xpvhv_aux.xhv_name_count */
	o->hek_key = 0x8;	  /* HEK.hek_key */
	return 0;
}

static int sym_byte(const struct elf_named *en, const char *name, uint8_t *b)
{
	struct elf_named_sym s;

	if (elf_named__sym(en, name, &s))
		return -ENOENT;
	return elf_named__read(en, s.value, b, 1);
}

static int detect_named(const struct elf_named *en, const char *name, void *out)
{
	struct pl_object_info *info = out;
	struct elf_named_sym run, key;
	struct cp_pl_offsets off;
	uint8_t ver[3];

	(void)name;
	memset(info, 0, sizeof(*info));
	/* a perl linked against libperl: the library is the interpreter */
	if (elf_named__needs(en, "libperl") || elf_named__sym(en, "Perl_runops_standard", &run) ||
	    run.type != 2 /* STT_FUNC */ || sym_byte(en, "PL_revision", &ver[0]) ||
	    sym_byte(en, "PL_version", &ver[1]) || sym_byte(en, "PL_subversion", &ver[2]))
		return -ENOENT;
	info->version = CP_PL_VER(ver[0], ver[1], ver[2]);
	info->runops_start = run.value;
	info->runops_end = run.value + (run.size ? run.size : 1);
	/* the loop of perl -d and of Devel:: modules that ask for debugging (Devel::Cover) */
	if (!elf_named__sym(en, "Perl_runops_debug", &run) && run.type == 2 /* STT_FUNC */) {
		info->debug_start = run.value;
		info->debug_end = run.value + (run.size ? run.size : 1);
	}
	/* no threads: PL_curcop, PL_curstackinfo are globals the walker does not read */
	if (elf_named__sym(en, "PL_thr_key", &key))
		return -ENOTSUP;
	info->thr_key = key.value;
	return ver[0] == 5 ? pl_offsets_table(info->version, &off) : -ENOTSUP;
}

int pl_detect_object(int fd, const char *name, struct pl_object_info *info)
{
	return interp_detect_elf(fd, name, info, sizeof(*info), detect_named);
}

static int detect_pl(int fd, const char *name, void *info)
{
	return pl_detect_object(fd, name, info);
}

int pl_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_pl_proc *out)
{
	struct pl_object_info info;
	struct interp_found at;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_pl, &info, sizeof(info), &at);
	if (err)
		return err;
	err = pl_offsets_table(info.version, &out->off);
	if (err)
		return err;
	out->thr_key = info.thr_key + at.bias;
	out->runops_start = info.runops_start + at.bias;
	out->runops_end = info.runops_end + at.bias;
	if (info.debug_start) {
		out->debug_start = info.debug_start + at.bias;
		out->debug_end = info.debug_end + at.bias;
	}
	out->gen = gen;
	return 0;
}
