#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the struct offsets and constants the Perl walker uses (src/interp/pl_detect.c, the
# names of struct cp_pl_offsets), as the compiler lays them out from an installed perl's
# headers (perl -MExtUtils::Embed -e ccopts: perl.h, the CORE directory). "name value" lines,
# the first one "version X.Y.Z". tests/unit/test_pp_offsets.c compares them with the table.
# Usage: scripts/perl-offsets-headers.sh [PERL]   (exit 1 when the headers do not compile)
set -eu
perl=${1:-perl}
flags=$($perl -MExtUtils::Embed -e ccopts)
ver=$($perl -e 'printf "%vd", $^V')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/o.c" <<EOC
#include <EXTERN.h>
#include <perl.h>
#include <stdio.h>
#define F(name, type, member) printf("%s %zu\n", name, __builtin_offsetof(type, member))
int main(void)
{
	printf("version %s\n", "$ver");
	F("interp_curcop", PerlInterpreter, Icurcop);
	F("interp_curstackinfo", PerlInterpreter, Icurstackinfo);
	F("si_cxstack", PERL_SI, si_cxstack);
	F("si_prev", PERL_SI, si_prev);
	F("si_cxix", PERL_SI, si_cxix);
	F("si_type", PERL_SI, si_type);
	printf("cx_size %zu\n", sizeof(PERL_CONTEXT));
	F("cx_type", PERL_CONTEXT, cx_u.cx_subst.sbu_type);
	F("cx_oldcop", PERL_CONTEXT, cx_u.cx_blk.blku_oldcop);
	F("cx_retop", PERL_CONTEXT, cx_u.cx_blk.blk_u.blku_sub.retop);
	F("cx_cv", PERL_CONTEXT, cx_u.cx_blk.blk_u.blku_sub.cv);
	F("cop_line", COP, cop_line);
	F("cop_file", COP, cop_file);
	F("sv_any", SV, sv_any);
	F("sv_flags", SV, sv_flags);
	F("sv_u", SV, sv_u);
	F("xcv_stash", XPVCV, xcv_stash);
	F("xcv_gv", XPVCV, xcv_gv_u);
	F("xcv_flags", XPVCV, xcv_flags);
	F("gp_egv", GP, gp_egv);
	F("gp_cv", GP, gp_cv);
	F("xcv_file", XPVCV, xcv_file);
	F("xgv_namehek", XPVGV, xiv_u.xivu_namehek);
	F("xgv_stash", XPVGV, xnv_u.xgv_stash);
#if PERL_VERSION >= 35
	F("xhv_aux", struct xpvhv_with_aux, xhv_aux);
#endif
	F("xhv_max", XPVHV, xhv_max);
	F("aux_name", struct xpvhv_aux, xhv_name_u);
	F("aux_name_count", struct xpvhv_aux, xhv_name_count);
	F("hek_key", HEK, hek_key);
	printf("CXTYPEMASK 0x%x\n", (unsigned)CXTYPEMASK);
	printf("CXt_SUB %d\n", (int)CXt_SUB);
	printf("CXt_FORMAT %d\n", (int)CXt_FORMAT);
	printf("CXp_SUB_RE_FAKE 0x%x\n", (unsigned)CXp_SUB_RE_FAKE);
	printf("SVt_PVGV %d\n", (int)SVt_PVGV);
	printf("SVt_PVCV %d\n", (int)SVt_PVCV);
	printf("SVpgv_GP 0x%x\n", (unsigned)SVpgv_GP);
	printf("CVf_NAMED 0x%x\n", (unsigned)CVf_NAMED);
	printf("PERLSI_MAIN %d\n", (int)PERLSI_MAIN);
	printf("SVf_OOK 0x%x\n", (unsigned)SVf_OOK);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the compiler flags are words
cc $flags -w -o "$tmp/o" "$tmp/o.c" || exit 1
"$tmp/o"
