#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the struct offsets the Ruby walker uses (src/interp/rb_offsets.c: the same names), as
# the compiler lays them out for an installed Ruby: its rb_mjit_min_header-X.Y.Z.h (shipped
# by 2.6-3.2, e.g. Debian's ruby3.1-dev) holds the VM's internal structs. A C program is built
# against it and prints "name value" lines, the first one "version X.Y.Z".
# tests/unit/test_rb_offsets.c compares them with the table.
# Usage: scripts/rb-offsets-mjit.sh HEADER     (exit 1 when the header does not compile)
set -eu
hdr=$1
ver=$(basename "$hdr" | sed -n 's/^rb_mjit_min_header-\([0-9.]*\)\.h$/\1/p')
[ -n "$ver" ] || { echo "rb-offsets-mjit: not an rb_mjit_min_header: $hdr" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/o.c" <<EOC
#include "$hdr"
#include <stdio.h>
#define F(name, type, member) printf("%s %zu\n", name, __builtin_offsetof(type, member))
int main(void)
{
	printf("version %s\n", "$ver");
	F("ec.vm_stack", rb_execution_context_t, vm_stack);
	F("ec.vm_stack_size", rb_execution_context_t, vm_stack_size);
	F("ec.cfp", rb_execution_context_t, cfp);
	F("cfp.pc", rb_control_frame_t, pc);
	F("cfp.iseq", rb_control_frame_t, iseq);
	F("cfp.ep", rb_control_frame_t, ep);
	printf("cfp.size %zu\n", sizeof(rb_control_frame_t));
	F("iseq.body", struct rb_iseq_struct, body);
	F("body.iseq_size", struct rb_iseq_constant_body, iseq_size);
	F("body.iseq_encoded", struct rb_iseq_constant_body, iseq_encoded);
	F("body.location", struct rb_iseq_constant_body, location);
	F("body.insns_info", struct rb_iseq_constant_body, insns_info.body);
	F("body.insns_size", struct rb_iseq_constant_body, insns_info.size);
	F("body.succ_index", struct rb_iseq_constant_body, insns_info.succ_index_table);
	F("loc.pathobj", rb_iseq_location_t, pathobj);
	F("loc.base_label", rb_iseq_location_t, base_label);
	F("loc.label", rb_iseq_location_t, label);
	F("loc.first_lineno", rb_iseq_location_t, first_lineno);
	printf("insn_info.size %zu\n", sizeof(struct iseq_insn_info_entry));
	F("insn_info.line_no", struct iseq_insn_info_entry, line_no);
	F("rstring.len", struct RString, as.heap.len);
	F("rstring.heap_ptr", struct RString, as.heap.ptr);
	F("rstring.embed", struct RString, as.embed.ary);
	F("rarray.embed", struct RArray, as.ary);
	F("rarray.heap_ptr", struct RArray, as.heap.ptr);
	F("me.def", rb_callable_method_entry_t, def);
	F("me.called_id", rb_callable_method_entry_t, called_id);
	F("def.original_id", rb_method_definition_t, original_id);
	printf("last_op_id %d\n", (int)tLAST_OP_ID);
#if defined(RUBY_API_VERSION_MAJOR) && RUBY_API_VERSION_MAJOR >= 3
	F("ractor.running_ec", struct rb_ractor_struct, threads.running_ec);
#endif
	printf("frame.magic_cfunc 0x%x\n", (unsigned)VM_FRAME_MAGIC_CFUNC);
	printf("frame.magic_mask 0x%x\n", (unsigned)VM_FRAME_MAGIC_MASK);
	printf("frame.flag_finish 0x%x\n", (unsigned)VM_FRAME_FLAG_FINISH);
	printf("frame.flag_cframe 0x%x\n", (unsigned)VM_FRAME_FLAG_CFRAME);
	printf("rstring.noembed 0x%x\n", (unsigned)RSTRING_NOEMBED);
	printf("rarray.embed_flag 0x%x\n", (unsigned)RARRAY_EMBED_FLAG);
	return 0;
}
EOC
# -O2 drops the header's unused inline functions; what remains refers to libruby, never called
${CC:-cc} -w -O2 -Wl,--unresolved-symbols=ignore-all -I"$(dirname "$hdr")" -o "$tmp/o" "$tmp/o.c" >"$tmp/log" 2>&1 || {
	cat "$tmp/log" >&2
	exit 1
}
"$tmp/o"
