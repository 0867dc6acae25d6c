// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby offsets table. Sources, per number:
 *  [H] the compiler's layout of Debian's Ruby 3.1.2 (rb_mjit_min_header-3.1.2.h, through
 *      scripts/rb-offsets-mjit.sh; tests/unit/test_rb_offsets.c checks the 3.1 entry against
 *      it on every run): every 3.1 number below except symbols_* (see [D]);
 *  [D] libruby-3.1.so.3.1.2's code: rb_id2str compares with tLAST_OP_ID (0xa9) and its lookup
 *      reads global_symbols.last_id at +0 and global_symbols.ids at +16 (rb_symbols_t);
 *  [I] ../shared/design/interpreters.md 2.1-2.3 (3.1.2 measured on live processes);
 *  [O] the OpenTelemetry eBPF profiler, interpreter/ruby/ruby.go: control-frame sizes (56 from
 *      2.6, 64 in 3.1-3.2 with jit_return, 56 from 3.3 without bp), insns_info offsets
 *      (120/136/144 up to 3.1, 112/128/136 from 3.2), insn_info entry sizes (8 up to 3.0, 12
 *      from 3.1), RString embedded characters (16 up to 3.1, 24 from 3.2), running_ec
 *      (0x208 in 3.0-3.2, 0x180 in 3.3);
 *  [S] Ruby's struct definitions read by hand for fields the two sources above do not give
 *      for other versions (method entries, rb_symbols_t, the heap string length): unverified
 *      outside 3.1; a mistake there costs C-function names, never the walk.
 * Fields that do not move across 2.6-3.3 per [O] (the EC's first three, cfp pc/iseq/ep, the
 * iseq body pointer, iseq_size/iseq_encoded/location, the location's pathobj/base_label) are
 * shared by every entry.
 */
#include <errno.h>
#include <string.h>
#include "interp/rb_offsets.h"

#define COMMON                                                                                 \
	.ec_vm_stack = 0, .ec_vm_stack_size = 8, .ec_cfp = 16, .cfp_pc = 0, .cfp_iseq = 16,    \
	.cfp_ep = 32, .iseq_body = 16, .body_iseq_size = 4, .body_iseq_encoded = 8,            \
	.body_location = 64, .loc_pathobj = 0, .loc_base_label = 8, .loc_label = 16,           \
	.loc_first_lineno = 24, .rstring_len = 16, .rstring_heap_ptr = 24, .rarray_embed = 16, \
	.rarray_heap_ptr = 32, .me_def = 16, .me_called_id = 24, .def_original_id = 32,        \
	.symbols_last_id = 0, .symbols_ids = 16

/* 2.6-3.1: insns_info {body, positions, size, succ_index_table} at 120 [O][H] */
#define INSNS_120 .body_insns_info = 120, .body_insns_size = 136, .body_succ_index = 144
/* 3.2+: 8 bytes earlier [O] */
#define INSNS_112 .body_insns_info = 112, .body_insns_size = 128, .body_succ_index = 136

static const struct cp_rb_offsets table[] = {
	{
		.version = CP_RB_VER(2, 6, 0),
		COMMON,
		INSNS_120,
		.cfp_size = 56,
		.insn_info_size = 8,
		.rstring_embed = 16,
		.last_op_id = CP_RB_NONE,
		.ractor_running_ec = CP_RB_NONE,
	},
	{
		.version = CP_RB_VER(2, 7, 0),
		COMMON,
		INSNS_120,
		.cfp_size = 56,
		.insn_info_size = 8,
		.rstring_embed = 16,
		.last_op_id = CP_RB_NONE,
		.ractor_running_ec = CP_RB_NONE,
	},
	{
		.version = CP_RB_VER(3, 0, 0),
		COMMON,
		INSNS_120,
		.cfp_size = 56,
		.insn_info_size = 8,
		.rstring_embed = 16,
		.last_op_id = CP_RB_NONE,
		.ractor_running_ec = 0x208,
	},
	{
		/* every number checked against [H]; running_ec [I] measured */
		.version = CP_RB_VER(3, 1, 0),
		COMMON,
		INSNS_120,
		.cfp_size = 64,
		.insn_info_size = 12,
		.rstring_embed = 16,
		.last_op_id = 0xa9,
		.ractor_running_ec = 0x208,
	},
	{
		.version = CP_RB_VER(3, 2, 0),
		COMMON,
		INSNS_112,
		.cfp_size = 64,
		.insn_info_size = 12,
		.rstring_embed = 24,
		.last_op_id = CP_RB_NONE,
		.ractor_running_ec = 0x208,
	},
	{
		.version = CP_RB_VER(3, 3, 0),
		COMMON,
		INSNS_112,
		.cfp_size = 56,
		.insn_info_size = 12,
		.rstring_embed = 24,
		.last_op_id = CP_RB_NONE,
		.ractor_running_ec = 0x180,
	},
};

int rb_offsets_table(uint32_t version, struct cp_rb_offsets *out)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if ((table[i].version & ~0xffu) != (version & ~0xffu))
			continue;
		*out = table[i];
		out->version = version;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

#define FIELD(n, f)                                  \
	{                                            \
		n, offsetof(struct cp_rb_offsets, f) \
	}

static const struct {
	const char *name;
	size_t off;
} fields[] = {
	FIELD("ec.vm_stack", ec_vm_stack),
	FIELD("ec.vm_stack_size", ec_vm_stack_size),
	FIELD("ec.cfp", ec_cfp),
	FIELD("cfp.pc", cfp_pc),
	FIELD("cfp.iseq", cfp_iseq),
	FIELD("cfp.ep", cfp_ep),
	FIELD("cfp.size", cfp_size),
	FIELD("iseq.body", iseq_body),
	FIELD("body.iseq_size", body_iseq_size),
	FIELD("body.iseq_encoded", body_iseq_encoded),
	FIELD("body.location", body_location),
	FIELD("body.insns_info", body_insns_info),
	FIELD("body.insns_size", body_insns_size),
	FIELD("body.succ_index", body_succ_index),
	FIELD("loc.pathobj", loc_pathobj),
	FIELD("loc.base_label", loc_base_label),
	FIELD("loc.label", loc_label),
	FIELD("loc.first_lineno", loc_first_lineno),
	FIELD("insn_info.size", insn_info_size),
	FIELD("rstring.len", rstring_len),
	FIELD("rstring.heap_ptr", rstring_heap_ptr),
	FIELD("rstring.embed", rstring_embed),
	FIELD("rarray.embed", rarray_embed),
	FIELD("rarray.heap_ptr", rarray_heap_ptr),
	FIELD("me.def", me_def),
	FIELD("me.called_id", me_called_id),
	FIELD("def.original_id", def_original_id),
	FIELD("last_op_id", last_op_id),
	FIELD("ractor.running_ec", ractor_running_ec),
};

bool rb_offsets_field(const struct cp_rb_offsets *o, size_t i, const char **name, __u16 *value)
{
	if (i >= sizeof(fields) / sizeof(fields[0]))
		return false;
	*name = fields[i].name;
	memcpy(value, (const char *)o + fields[i].off, sizeof(*value));
	return true;
}
