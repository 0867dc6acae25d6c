#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the Go runtime offsets cpuprof uses for a Go program (its unwind rows: the table by Go
# release in src/elf/gopclntab.c, or the program's DWARF) against the program's own machine
# code, which has them as displacements (amd64; Go's runtime/asm_amd64.s, sys_linux_amd64.s):
#   runtime.systemstack:        MOVQ g_m(AX), BX; CMPQ AX, m_curg(BX) (the last compare);
#                               after the switch MOVQ (g_sched+gobuf_sp)(DX), SP
#   gosave_systemstack_switch:  MOVQ BP, (g_sched+gobuf_bp)(R14)
#   runtime.nanotime1:          MOVQ m_vdsoPC(BX), CX; MOVQ m_vdsoSP(BX), DX
# and whether systemstack pushes rbp (Go 1.21 and later).
# Usage: scripts/go-offsets-check.sh [-c CPUPROF] GO_PROGRAM...  (exit 1 on a difference)
# Needs objdump (binutils) and, for the version, go.
set -u
CPUPROF=${CPUPROF:-build/rel/cpuprof}
[ "${1:-}" = -c ] && { CPUPROF=$2; shift 2; }
[ $# -gt 0 ] || { echo "usage: $0 [-c CPUPROF] GO_PROGRAM..." >&2; exit 64; }
bad=0

# the instructions of FILE from ADDR on (at most 256 bytes), AT&T syntax, one per line
code() {
	objdump -d --no-show-raw-insn --start-address="$2" --stop-address=$(($2 + 256)) "$1" |
		grep '^ ' | cut -f2-
}
# the displacement of the first line matching an extended regexp (its first 0x...(%reg))
disp() {
	local d
	d=$(grep -E -m1 "$1" | grep -oE '0x[0-9a-f]+\(' | head -1 | tr -d '(')
	[ -n "$d" ] && echo $((d)) || echo "?"
}

for f in "$@"; do
	ver=$(go version "$f" 2>/dev/null | sed 's/^[^:]*: //')
	rows=$("$CPUPROF" unwind-table "$f" 2>/dev/null | grep ' go-')
	ss=$(grep -m1 go-systemstack <<<"$rows")
	vd=$(grep -m1 go-vdso <<<"$rows")
	if [ -z "$ss" ]; then
		echo "$f ($ver): no system stack rows (offsets unknown for this version)"
		continue
	fi
	# cpuprof's: go-systemstack(g=[fs-8],m=[g+48],curg=[m+192],sched=curg+56,bp=sched+48[,ra=..])
	read -r c_gm c_curg c_sched c_bp < <(sed -E 's/.*m=\[g\+([0-9]+)\],curg=\[m\+([0-9]+)\],sched=curg\+([0-9]+),bp=sched\+([0-9]+).*/\1 \2 \3 \4/' <<<"$ss")
	c_fp=$(grep -c 'ra=\[sp+8\]' <<<"$ss")
	c_vsp=$(sed -nE 's/.*sp=\[m\+([0-9]+)\].*/\1/p' <<<"$vd")
	sa=$((0x${ss%% *}))
	scode=$(code "$f" "$sa")
	m_gm=$(disp 'mov +0x[0-9a-f]+\(%rax\),%rbx' <<<"$scode")
	m_curg=$(grep -E 'cmp +0x[0-9a-f]+\(%rbx\),%rax' <<<"$scode" | tail -1 | disp .)
	m_sched=$(disp 'mov +0x[0-9a-f]+\(%rdx\),%r(sp|bx)' <<<"$scode")
	m_fp=$(head -1 <<<"$scode" | grep -cE 'push +%rbp')
	gosave=$(grep -E -m1 'call +(0x)?[0-9a-f]+' <<<"$scode" | grep -oE '(0x)?[0-9a-f]+( |$)' | head -1)
	m_bp=$(code "$f" $((0x${gosave#0x})) | disp 'mov +%rbp,0x[0-9a-f]+\(%r14\)')
	[ "$m_bp" != "?" ] && [ "$m_sched" != "?" ] && m_bp=$((m_bp - m_sched))
	m_vsp="-"
	if [ -n "$vd" ]; then
		m_vsp=$(code "$f" $((0x${vd%% *})) | disp 'mov +0x[0-9a-f]+\(%rbx\),%rdx')
	else
		c_vsp="-"
	fi
	line="g.m $c_gm/$m_gm m.curg $c_curg/$m_curg g.sched $c_sched/$m_sched gobuf.bp $c_bp/$m_bp systemstack-rbp $c_fp/$m_fp m.vdsoSP $c_vsp/$m_vsp"
	if [ "$c_gm $c_curg $c_sched $c_bp $c_fp $c_vsp" = "$m_gm $m_curg $m_sched $m_bp $m_fp $m_vsp" ]; then
		echo "$f ($ver): agree (cpuprof/code): $line"
	else
		echo "$f ($ver): DIFFER (cpuprof/code): $line"
		bad=1
	fi
done
exit $bad
