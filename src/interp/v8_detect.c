// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <inttypes.h>
#include <stdio.h>
#include "elf/elf_named.h"
#include "interp/interp_find.h"
#include "proc/proc_maps.h"
#include "interp/v8_detect.h"

/*
 * Facts: ../shared/design/runtimes.md 4 (node 20.20.2 = V8 11.3.244.8, values read from the
 * binary) and the OTel eBPF profiler's interpreter/nodev8/v8.go (readIntrospectionData: each
 * v8dbg_* symbol is a 32-bit integer in the file; a symbol in .bss is 0; the JSFunction type
 * range by version). Nothing here is hard-coded per version without a check against the
 * metadata: the tagging scheme is compared with the only one the reader knows.
 */

/* V8's x64 tagging without pointer compression (v8_tracer.h of OTel; include/v8-internal.h) */
#define HEAP_OBJECT_TAG	     1
#define HEAP_OBJECT_TAG_MASK 3
#define SMI_TAG_MASK	     1
#define SMI_SHIFT_SIZE	     31 /* + kSmiTagSize 1: 32-bit SMIs in the upper word */
/* the oldest V8 whose frame layout and JSFunction types the rules below cover */
#define V8_MIN CP_V8_VER(9, 6, 138)
/* the newest whose layout was checked here (node 20's 11.3); newer: the metadata says */
#define V8_MAX CP_V8_VER(12, 99, 0)

enum field_kind { F_S16, F_U16, F_U8 };

struct field {
	const char *sym; /* after "v8dbg_" */
	size_t at;	 /* offsetof in struct cp_v8_offsets */
	enum field_kind kind;
};

#define S16(sym, m)                                           \
	{                                                     \
		sym, offsetof(struct cp_v8_offsets, m), F_S16 \
	}
#define U16(sym, m)                                           \
	{                                                     \
		sym, offsetof(struct cp_v8_offsets, m), F_U16 \
	}
#define U8(sym, m)                                           \
	{                                                    \
		sym, offsetof(struct cp_v8_offsets, m), F_U8 \
	}

/* Every one must exist (in .data, or .bss: 0). */
static const struct field FIELDS[] = {
	S16("off_fp_context", fp_marker),
	S16("off_fp_function", fp_function),
	S16("off_fp_bytecode_offset", fp_bytecode_offset),
	S16("off_fp_bytecode_array", fp_bytecode_array),
	U16("class_HeapObject__map__Map", map),
	U16("class_Map__instance_type__uint16_t", map_instance_type),
	U16("class_JSFunction__shared__SharedFunctionInfo", jsfunc_shared),
	U16("class_SharedFunctionInfo__name_or_scope_info__Object", sfi_name),
	U16("class_SharedFunctionInfo__script_or_debug_info__HeapObject", sfi_script),
	U16("class_Script__name__Object", script_name),
	U16("class_String__length__int32_t", string_length),
	U16("class_SeqOneByteString__chars__char", seq_chars),
	U16("class_ConsString__first__String", cons_first),
	U16("class_ConsString__second__String", cons_second),
	U16("class_ThinString__actual__String", thin_actual),
	U16("type_JSFunction__JS_FUNCTION_TYPE", type_jsfunc_first),
	U16("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", type_sfi),
	U16("type_Script__SCRIPT_TYPE", type_script),
	U16("type_BytecodeArray__BYTECODE_ARRAY_TYPE", type_bytecode),
	U16("type_ScopeInfo__SCOPE_INFO_TYPE", type_scope_info),
	U16("FirstNonstringType", first_nonstring),
	U16("class_Script__line_ends__Object", script_line_ends),
	U16("class_FixedArrayBase__length__SMI", fixed_length),
	U16("class_FixedArray__data__uintptr_t", fixed_data),
	U16("type_FixedArray__FIXED_ARRAY_TYPE", type_fixed_array),
	U16("class_Script__source__Object", script_source),
	U16("class_ExternalString__resource__Object", ext_resource),
	U16("class_SharedFunctionInfo__function_data__Object", sfi_function_data),
	U16("type_ExternalOneByteString__EXTERNAL_ONE_BYTE_STRING_TYPE", type_ext_one_byte),
	U8("StringEncodingMask", string_enc_mask),
	U8("StringRepresentationMask", string_repr_mask),
	U8("OneByteStringTag", one_byte_tag),
	U8("SeqStringTag", seq_tag),
	U8("ConsStringTag", cons_tag),
	U8("ThinStringTag", thin_tag),
	U8("scopeinfo_idx_first_vars", scope_first_vars),
	U8("scopeinfo_idx_ncontextlocals", scope_ncontext),
	U8("HeapObjectTag", heap_tag),
	U8("HeapObjectTagMask", heap_tag_mask),
	U8("frametype_EntryFrame", frame_entry),
	U8("frametype_ConstructEntryFrame", frame_construct_entry),
};

/* The 32-bit value of symbol name (0 in .bss): 0, -ENOENT, or another read error. */
static int sym_u32(const struct elf_named *en, const char *name, int32_t *v)
{
	struct elf_named_sym s;
	int err;

	*v = 0;
	if (elf_named__sym(en, name, &s))
		return -ENOENT;
	if (s.nobits)
		return 0;
	err = elf_named__read(en, s.value, v, sizeof(*v));
	return err == -ENODATA ? 0 : err;
}

static int dbg_u32(const struct elf_named *en, const char *field, int32_t *v)
{
	char name[96] = "v8dbg_";

	if (strlen(field) >= sizeof(name) - 6)
		return -ENAMETOOLONG;
	strcat(name, field);
	return sym_u32(en, name, v);
}

/* Store v in the field f of off, refused when out of the field's range. */
static int put(struct cp_v8_offsets *off, const struct field *f, int32_t v)
{
	unsigned char *p = (unsigned char *)off + f->at;

	if (f->kind == F_S16) {
		__s16 x = (__s16)v;

		if (v < -4096 || v > 4096)
			return -ERANGE;
		memcpy(p, &x, sizeof(x));
	} else if (f->kind == F_U16) {
		__u16 x = (__u16)v;

		if (v < 0 || v > 0xffff)
			return -ERANGE;
		memcpy(p, &x, sizeof(x));
	} else {
		if (v < 0 || v > 0xff)
			return -ERANGE;
		*p = (unsigned char)v;
	}
	return 0;
}

/* An optional value: 0 when absent or out of [lo, hi]. */
static int32_t opt_u32(const struct elf_named *en, const char *field, int32_t lo, int32_t hi)
{
	int32_t v = 0;

	if (dbg_u32(en, field, &v) || v < lo || v > hi)
		return 0;
	return v;
}

/*
 * What optimized code (Maglev, TurboFan) is read by (optional: without, an optimized frame is
 * its function at its start line, the functions inlined into it not shown). The Code object's
 * deoptimization data and source position table, its kind and the deoptimization data's
 * indexes are in the metadata. Not there in node 20 (V8 11.3: gen-postmortem-metadata lost
 * them when Code was split from InstructionStream), taken from OTel v8.go's rules for the V8
 * 11.x whose Code metadata is missing, where each is checked against the metadata around it:
 * - JSFunction.code: the slot between raw_feedback_cell and prototype_or_initial_map (before
 *   11.7.368, whose code slot moved before shared);
 * - Code.instruction_start (a pointer from 11.1.204) two words after source_position_table
 *   (the InstructionStream's slot between them), flags a word after, instruction_size after
 *   flags and before 11.4.59 after builtin_id and kind_specific_flags too (2 + 2 bytes).
 * The walker checks at each frame that the pc lies in [instruction_start, + instruction_size).
 */
static void optimized(struct cp_v8_offsets *o, const struct elf_named *en)
{
	int32_t cell = opt_u32(en, "class_JSFunction__raw_feedback_cell__FeedbackCell", 8, 4096);
	int32_t proto =
		opt_u32(en, "class_JSFunction__prototype_or_initial_map__HeapObject", 8, 4096);
	int32_t spt = opt_u32(en, "class_Code__source_position_table__ByteArray", 8, 256);
	int32_t deopt = opt_u32(en, "class_Code__deoptimization_data__FixedArray", 8, 256);
	int32_t type_code = opt_u32(en, "type_Code__CODE_TYPE", 1, 0xffff);
	int32_t type_weak = opt_u32(en, "type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE", 1, 0xffff);
	int32_t mask = opt_u32(en, "CodeKindFieldMask", 1, 0xff);
	int32_t baseline = opt_u32(en, "CodeKindBaseline", 1, 0xff);
	int32_t count = opt_u32(en, "DeoptimizationDataInlinedFunctionCountIndex", 1, 64);
	int32_t literals = opt_u32(en, "DeoptimizationDataLiteralArrayIndex", 1, 64);
	int32_t inlining = opt_u32(en, "DeoptimizationDataInliningPositionsIndex", 1, 64);
	int32_t shift = 0;

	if (dbg_u32(en, "CodeKindFieldShift", &shift) || shift < 0 || shift > 31)
		return;
	if (o->version < CP_V8_VER(11, 1, 204) || o->version >= CP_V8_VER(11, 7, 368))
		return;
	if (!cell || proto != cell + 16 || !spt || deopt != spt - 8 || !type_code || !type_weak ||
	    !mask || !baseline || !count || !literals || !inlining || !o->type_byte_array ||
	    spt + 36 > CP_V8_CODE_READ)
		return;
	o->jsfunc_code = (__u16)(cell + 8);
	o->code_spt = (__u16)spt;
	o->code_deopt = (__u16)deopt;
	o->code_start = (__u16)(spt + 16);
	o->code_flags = (__u16)(spt + 24);
	o->code_size = (__u16)(spt + 28 + (o->version < CP_V8_VER(11, 4, 59) ? 4 : 0));
	o->type_code = (__u16)type_code;
	o->type_weak_fixed = (__u16)type_weak;
	o->kind_mask = (__u8)mask;
	o->kind_shift = (__u8)shift;
	o->kind_baseline = (__u8)baseline;
	o->deopt_count = (__u8)count;
	o->deopt_literals = (__u8)literals;
	o->deopt_inlining = (__u8)inlining;
}

/* The tagging scheme, frame slots and sizes the reader knows; -ENOTSUP otherwise. */
static int check(struct v8_object_info *info, const struct elf_named *en)
{
	struct cp_v8_offsets *o = &info->off;
	int32_t smi_shift = -1, smi_mask = -1, data = 0, byte_array = 0;

	if (dbg_u32(en, "SmiShiftSize", &smi_shift) || dbg_u32(en, "SmiTagMask", &smi_mask)) {
		info->missing = "v8dbg_SmiShiftSize";
		return -ENOTSUP;
	}
	if (o->heap_tag != HEAP_OBJECT_TAG || o->heap_tag_mask != HEAP_OBJECT_TAG_MASK ||
	    smi_mask != SMI_TAG_MASK || smi_shift != SMI_SHIFT_SIZE)
		return -ENOTSUP;
	o->smi_shift = SMI_SHIFT_SIZE + 1;
	/* the slots the reader reads lie in the 64 bytes below the frame pointer */
	if (o->fp_marker >= 0 || o->fp_marker < -64 || o->fp_function >= 0 ||
	    o->fp_function < -64 || o->fp_bytecode_offset >= 0 || o->fp_bytecode_offset < -64 ||
	    o->fp_bytecode_array >= 0 || o->fp_bytecode_array < -64 || (o->fp_marker & 7) ||
	    (o->fp_function & 7) || (o->fp_bytecode_offset & 7))
		return -ENOTSUP;
	if (!o->type_jsfunc_first || !o->type_sfi || !o->type_script || !o->first_nonstring ||
	    !o->jsfunc_shared || !o->sfi_name || !o->string_length || !o->seq_chars)
		return -ENOTSUP;
	/*
	 * The line running in interpreted frames (optional: without, the functions' start lines).
	 * BytecodeArray.source_position_table has no metadata (node 20): three words after the
	 * length (constant_pool, handler_table before it), 8 + 14 bytes before the bytecodes
	 * (OTel v8.go's fallback for V8 9.x-12.x; V8's code.tq); another layout: no lines
	 */
	if (!dbg_u32(en, "class_BytecodeArray__data__uintptr_t", &data) &&
	    !dbg_u32(en, "type_ByteArray__BYTE_ARRAY_TYPE", &byte_array) && byte_array > 0 &&
	    byte_array <= 0xffff && data == o->fixed_length + 3 * 8 + 8 + 14 &&
	    o->fixed_data == 16) {
		o->bytecode_data = (__u16)data;
		o->type_byte_array = (__u16)byte_array;
		o->bytecode_spt = (__u16)(o->fixed_length + 3 * 8);
	}
	optimized(o, en);
	/* 15 JSFunction instance types from 9.6.138 (OTel v8.go, V8 commit 1cd7a58) */
	o->type_jsfunc_last = o->type_jsfunc_first + 14;
	return 0;
}

/* [start, end) of the embedded builtins in the object (node links them into its .text). */
static void builtins(const struct elf_named *en, struct v8_object_info *info)
{
	struct elf_named_sym code;
	int32_t size = 0;

	if (elf_named__sym(en, "v8_Default_embedded_blob_code_", &code) ||
	    sym_u32(en, "v8_Default_embedded_blob_code_size_", &size) || size <= 0)
		return;
	info->builtins_start = code.value;
	info->builtins_end = code.value + (uint32_t)size;
}

static int detect_named(const struct elf_named *en, const char *name, void *out)
{
	struct v8_object_info *info = out;
	int32_t major, minor, build, patch, v;
	size_t i;
	int err;

	(void)name;
	memset(info, 0, sizeof(*info));
	if (dbg_u32(en, "off_fp_function", &v))
		return -ENOENT;
	if (sym_u32(en, "_ZN2v88internal7Version6major_E", &major) ||
	    sym_u32(en, "_ZN2v88internal7Version6minor_E", &minor) ||
	    sym_u32(en, "_ZN2v88internal7Version6build_E", &build)) {
		info->missing = "v8::internal::Version";
		return -ENOTSUP;
	}
	if (sym_u32(en, "_ZN2v88internal7Version6patch_E", &patch))
		patch = 0;
	if (major < 0 || major > 255 || minor < 0 || minor > 255 || build < 0 || build > 0xffff)
		return -ENOTSUP;
	info->off.version = CP_V8_VER(major, minor, build);
	info->patch = (uint32_t)patch;
	if (info->off.version < V8_MIN || info->off.version > V8_MAX)
		return -ENOTSUP;
	for (i = 0; i < sizeof(FIELDS) / sizeof(FIELDS[0]); i++) {
		err = dbg_u32(en, FIELDS[i].sym, &v);
		if (err == -ENOENT) {
			info->missing = FIELDS[i].sym;
			return -ENOTSUP;
		}
		if (err)
			return err;
		if (put(&info->off, &FIELDS[i], v))
			return -ENOTSUP;
	}
	err = check(info, en);
	if (err)
		return err;
	builtins(en, info);
	return 0;
}

int v8_detect_object(int fd, const char *name, struct v8_object_info *info)
{
	return interp_detect_elf(fd, name, info, sizeof(*info), detect_named);
}

static int detect_v8(int fd, const char *name, void *info)
{
	return v8_detect_object(fd, name, info);
}

int v8_code_ranges(const char *proc_root, uint32_t pid, uint64_t ino, struct cp_v8_proc *out)
{
	struct cp_rt_jit_range code[CP_V8_CODE_RANGES];
	struct proc_maps m = {0};
	uint32_t n = 0;
	char path[128];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = proc_maps_parse(f, &m);
	fclose(f);
	if (err)
		return err;
	for (size_t i = 0; i < m.n && n < CP_V8_CODE_RANGES; i++) {
		const struct map_entry *e = &m.v[i];
		uint64_t start = e->start, end = e->end;

		if (!e->executable || e->path || e->inode)
			continue;
		/* the reservation after it, and the builtins V8 copied there */
		while (i + 1 < m.n && m.v[i + 1].start == end &&
		       m.v[i + 1].end - start <= CP_V8_CODE_RANGE_MAX &&
		       ((!m.v[i + 1].path && !m.v[i + 1].inode) ||
			(ino && m.v[i + 1].inode == ino)))
			end = m.v[++i].end;
		code[n++] = (struct cp_rt_jit_range){start, end};
	}
	proc_maps_free(&m);
	if (!n && !out->n_code)
		return -EAGAIN;
	/*
	 * Added to those known: a range gone (its worker ended) stays, as samples taken in it
	 * are named after; a range known grows in place
	 */
	err = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j;

		for (j = 0; j < out->n_code && out->code[j].start != code[i].start; j++)
			;
		if (j < out->n_code) {
			err |= out->code[j].end != code[i].end;
			out->code[j].end = code[i].end;
		} else if (out->n_code < CP_V8_CODE_RANGES) {
			out->code[out->n_code++] = code[i];
			err = 1;
		}
	}
	return err;
}

int v8_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_v8_proc *out)
{
	struct v8_object_info info;
	struct interp_found at;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_v8, &info, sizeof(info), &at);
	/* refused: its version still says which V8 it is */
	out->off.version = info.off.version;
	if (err)
		return err;
	out->off = info.off;
	if (info.builtins_end) {
		out->builtins.start = info.builtins_start + at.bias;
		out->builtins.end = info.builtins_end + at.bias;
	}
	out->gen = gen;
	out->obj_ino = at.ino;
	/* none yet: the builtins' frames now, the code ranges when the mappings change */
	err = v8_code_ranges("/proc", pid, at.ino, out);
	return err < 0 && err != -EAGAIN ? err : 0;
}
