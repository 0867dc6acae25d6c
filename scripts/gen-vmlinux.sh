#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generate vmlinux.h (kernel types for CO-RE) from the running kernel's BTF.
# Usage: gen-vmlinux.sh OUT   (VMLINUX_BTF overrides the BTF file)
set -eu
out=$1
btf=${VMLINUX_BTF:-/sys/kernel/btf/vmlinux}
if [ ! -r "$btf" ]; then
	echo "cpuprof: $btf not found: the kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y is needed);" \
		"set VMLINUX_BTF to a BTF file to build anyway" >&2
	exit 1
fi
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
