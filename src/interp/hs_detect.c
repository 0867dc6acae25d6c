// SPDX-License-Identifier: GPL-2.0
/*
 * HotSpot's self-description (hs_detect.h). The names of the fields and types looked up, and
 * the layout of the tables, are facts from ../shared/design/runtimes.md 3 (OTel eBPF profiler
 * interpreter/hotspot/data.go; checked on Debian's OpenJDK 17.0.15 by tests/unit/test_hs.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "elf/elf_named.h"
#include "interp/hs_detect.h"
#include "interp/interp_find.h"
#include "interp/pmem.h"

/* Entries of a table read at most (JDK 17: 788 structs, 768 types). */
#define HS_MAX_ENTRIES 8192
/* An entry's bytes at most (JDK 17: 48 and 40). */
#define HS_MAX_STRIDE 128
/* The longest name compared (type and field names are short identifiers). */
#define HS_NAME 64

int hs_detect_object(int fd, const char *name, struct hs_object_info *info)
{
	static const struct {
		const char *sym;
		size_t off;
	} syms[] = {
		{"gHotSpotVMStructs", offsetof(struct hs_object_info, structs)},
		{"gHotSpotVMTypes", offsetof(struct hs_object_info, types)},
		{"gHotSpotVMStructEntryArrayStride", offsetof(struct hs_object_info, s_stride)},
		{"gHotSpotVMStructEntryTypeNameOffset", offsetof(struct hs_object_info, s_type)},
		{"gHotSpotVMStructEntryFieldNameOffset", offsetof(struct hs_object_info, s_field)},
		{"gHotSpotVMStructEntryIsStaticOffset", offsetof(struct hs_object_info, s_static)},
		{"gHotSpotVMStructEntryOffsetOffset", offsetof(struct hs_object_info, s_offset)},
		{"gHotSpotVMStructEntryAddressOffset", offsetof(struct hs_object_info, s_address)},
		{"gHotSpotVMTypeEntryArrayStride", offsetof(struct hs_object_info, t_stride)},
		{"gHotSpotVMTypeEntryTypeNameOffset", offsetof(struct hs_object_info, t_type)},
		{"gHotSpotVMTypeEntrySizeOffset", offsetof(struct hs_object_info, t_size)},
	};
	struct elf_named *en;
	struct elf_named_sym sym;
	size_t len = strlen(name);
	int err;

	memset(info, 0, sizeof(*info));
	/* libjvm.so (server, client, zero...): its name says so before its file is opened */
	if (len < 9 || strcmp(name + len - 9, "libjvm.so") != 0)
		return -ENOENT;
	err = elf_named__open(fd, &en);
	if (err)
		return err == -ENOEXEC ? -ENOENT : err;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		err = elf_named__sym(en, syms[i].sym, &sym);
		if (err)
			break;
		memcpy((char *)info + syms[i].off, &sym.value, sizeof(uint64_t));
	}
	elf_named__free(en);
	return err ? -ENOENT : 0;
}

/* What is looked up: a field's offset, a static field's address, or a type's size. */
enum hs_what { HS_OFFSET, HS_STATIC, HS_SIZE };

struct hs_want {
	const char *type, *field; /* field NULL: the type's size */
	enum hs_what what;
	uint64_t val;
	bool found;
};

enum {
	W_CB_NAME,
	W_CB_COMPLETE,
	W_CB_SIZE,
	W_CB_BEGIN,
	W_CM_METHOD,
	W_NM_METHOD, /* JDK 23+: nmethod._method (no CompiledMethod) */
	W_METHOD_CONST,
	W_CM_CONSTANTS,
	W_CM_NAME,
	W_CP_HOLDER,
	W_CP_SOURCE,
	W_KLASS_NAME,
	W_SYM_LENGTH,
	W_SYM_LENREF, /* JDK 12-16: _length_and_refcount, the length in its upper half */
	W_SYM_BODY,
	W_HEAP_MEMORY,
	W_HEAP_SEGMAP,
	W_HEAP_LOG2,
	W_VS_LOW,
	W_VS_HIGH,
	W_GA_LEN,
	W_GA_DATA,
	W_CC_HEAPS,
	W_CC_LOW,
	W_CC_HIGH,
	W_VER_MAJOR,
	W_VER_MINOR,
	W_VER_SECURITY,
	W_T_CONSTMETHOD,
	W_T_CPOOL,
	W_T_HEAPBLOCK,
	W_NM_METADATA,
	W_NM_PCS,
	W_NM_DEPS,
	W_CM_SCOPES,
	W_PCD_PC,
	W_PCD_SCOPE,
	W_T_PCDESC,
	W_CM_FLAGS,
	W_CM_CODE_SIZE,
	W_MAX,
};

static void wants_init(struct hs_want *w)
{
	static const struct hs_want init[W_MAX] = {
		[W_CB_NAME] = {"CodeBlob", "_name", HS_OFFSET, 0, false},
		[W_CB_COMPLETE] = {"CodeBlob", "_frame_complete_offset", HS_OFFSET, 0, false},
		[W_CB_SIZE] = {"CodeBlob", "_frame_size", HS_OFFSET, 0, false},
		[W_CB_BEGIN] = {"CodeBlob", "_code_begin", HS_OFFSET, 0, false},
		[W_CM_METHOD] = {"CompiledMethod", "_method", HS_OFFSET, 0, false},
		[W_NM_METHOD] = {"nmethod", "_method", HS_OFFSET, 0, false},
		[W_METHOD_CONST] = {"Method", "_constMethod", HS_OFFSET, 0, false},
		[W_CM_CONSTANTS] = {"ConstMethod", "_constants", HS_OFFSET, 0, false},
		[W_CM_NAME] = {"ConstMethod", "_name_index", HS_OFFSET, 0, false},
		[W_CP_HOLDER] = {"ConstantPool", "_pool_holder", HS_OFFSET, 0, false},
		[W_CP_SOURCE] = {"ConstantPool", "_source_file_name_index", HS_OFFSET, 0, false},
		[W_KLASS_NAME] = {"Klass", "_name", HS_OFFSET, 0, false},
		[W_SYM_LENGTH] = {"Symbol", "_length", HS_OFFSET, 0, false},
		[W_SYM_LENREF] = {"Symbol", "_length_and_refcount", HS_OFFSET, 0, false},
		[W_SYM_BODY] = {"Symbol", "_body", HS_OFFSET, 0, false},
		[W_HEAP_MEMORY] = {"CodeHeap", "_memory", HS_OFFSET, 0, false},
		[W_HEAP_SEGMAP] = {"CodeHeap", "_segmap", HS_OFFSET, 0, false},
		[W_HEAP_LOG2] = {"CodeHeap", "_log2_segment_size", HS_OFFSET, 0, false},
		[W_VS_LOW] = {"VirtualSpace", "_low_boundary", HS_OFFSET, 0, false},
		[W_VS_HIGH] = {"VirtualSpace", "_high_boundary", HS_OFFSET, 0, false},
		[W_GA_LEN] = {"GrowableArrayBase", "_len", HS_OFFSET, 0, false},
		[W_GA_DATA] = {"GrowableArray<int>", "_data", HS_OFFSET, 0, false},
		[W_CC_HEAPS] = {"CodeCache", "_heaps", HS_STATIC, 0, false},
		[W_CC_LOW] = {"CodeCache", "_low_bound", HS_STATIC, 0, false},
		[W_CC_HIGH] = {"CodeCache", "_high_bound", HS_STATIC, 0, false},
		[W_VER_MAJOR] = {"Abstract_VM_Version", "_vm_major_version", HS_STATIC, 0, false},
		[W_VER_MINOR] = {"Abstract_VM_Version", "_vm_minor_version", HS_STATIC, 0, false},
		[W_VER_SECURITY] = {"Abstract_VM_Version", "_vm_security_version", HS_STATIC, 0,
				    false},
		[W_T_CONSTMETHOD] = {"ConstMethod", NULL, HS_SIZE, 0, false},
		[W_T_CPOOL] = {"ConstantPool", NULL, HS_SIZE, 0, false},
		[W_T_HEAPBLOCK] = {"HeapBlock", NULL, HS_SIZE, 0, false},
		[W_NM_METADATA] = {"nmethod", "_metadata_offset", HS_OFFSET, 0, false},
		[W_NM_PCS] = {"nmethod", "_scopes_pcs_offset", HS_OFFSET, 0, false},
		[W_NM_DEPS] = {"nmethod", "_dependencies_offset", HS_OFFSET, 0, false},
		[W_CM_SCOPES] = {"CompiledMethod", "_scopes_data_begin", HS_OFFSET, 0, false},
		[W_PCD_PC] = {"PcDesc", "_pc_offset", HS_OFFSET, 0, false},
		[W_PCD_SCOPE] = {"PcDesc", "_scope_decode_offset", HS_OFFSET, 0, false},
		[W_T_PCDESC] = {"PcDesc", NULL, HS_SIZE, 0, false},
		[W_CM_FLAGS] = {"ConstMethod", "_flags", HS_OFFSET, 0, false},
		[W_CM_CODE_SIZE] = {"ConstMethod", "_code_size", HS_OFFSET, 0, false},
	};

	memcpy(w, init, sizeof(init));
}

/* The C string at addr of pid into buf (size bytes): 0, or -EFAULT when unreadable. */
static int read_str(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	/* a short name near the end of a mapping: a shorter read */
	if (pmem_read(pid, addr, buf, size - 1) && pmem_read(pid, addr, buf, 24))
		return -EFAULT;
	buf[size - 1] = 0;
	return 0;
}

static int read_u64(pid_t pid, uint64_t addr, void *v)
{
	return pmem_read(pid, addr, v, 8);
}

/* The u64 at the file vaddr of libjvm (a .bss global). */
static int read_global(pid_t pid, uint64_t bias, uint64_t vaddr, uint64_t *v)
{
	return read_u64(pid, vaddr + bias, v);
}

/* A table's layout, read from the process. */
struct hs_table {
	uint64_t base, stride, type, field, is_static, offset, address, size;
};

/* Match entry e (stride bytes) of a table against the wanted (structs: fields). */
static int match_entry(pid_t pid, const struct hs_table *t, const uint8_t *e, bool types,
		       struct hs_want *w, bool *end)
{
	uint64_t tp, fp = 0, v = 0;
	char tname[HS_NAME], fname[HS_NAME] = "";
	int32_t is_static = 0;

	memcpy(&tp, e + t->type, 8);
	if (!tp) {
		*end = true;
		return 0;
	}
	if (read_str(pid, tp, tname, sizeof(tname)))
		return -EFAULT;
	if (!types) {
		memcpy(&fp, e + t->field, 8);
		if (!fp || read_str(pid, fp, fname, sizeof(fname)))
			return 0;
		memcpy(&is_static, e + t->is_static, 4);
	}
	for (int i = 0; i < W_MAX; i++) {
		if (w[i].found || strcmp(w[i].type, tname) != 0)
			continue;
		if (types ? w[i].what != HS_SIZE
			  : w[i].what == HS_SIZE || strcmp(w[i].field, fname) != 0)
			continue;
		if (types)
			memcpy(&v, e + t->size, 8);
		else if (w[i].what == HS_STATIC)
			memcpy(&v, e + t->address, 8);
		else
			memcpy(&v, e + t->offset, 8);
		if (w[i].what == HS_STATIC && (!is_static || !v))
			continue;
		w[i].val = v;
		w[i].found = true;
	}
	return 0;
}

/* Read a table of pid (t) and fill the wanted entries it has. */
static int scan_table(pid_t pid, const struct hs_table *t, bool types, struct hs_want *w)
{
	uint8_t e[HS_MAX_STRIDE];
	bool end = false;
	int err;

	for (uint64_t i = 0; i < HS_MAX_ENTRIES && !end; i++) {
		err = pmem_read(pid, t->base + i * t->stride, e, t->stride);
		if (!err)
			err = match_entry(pid, t, e, types, w, &end);
		if (err)
			return err;
	}
	return end ? 0 : -EPROTO;
}

/* The layouts of both tables; -EAGAIN while the JVM has not filled them. */
static int read_tables(pid_t pid, uint64_t bias, const struct hs_object_info *in,
		       struct hs_table *s, struct hs_table *t)
{
	int err = 0;

	memset(s, 0, sizeof(*s));
	memset(t, 0, sizeof(*t));
	err = err ?: read_global(pid, bias, in->structs, &s->base);
	err = err ?: read_global(pid, bias, in->s_stride, &s->stride);
	err = err ?: read_global(pid, bias, in->s_type, &s->type);
	err = err ?: read_global(pid, bias, in->s_field, &s->field);
	err = err ?: read_global(pid, bias, in->s_static, &s->is_static);
	err = err ?: read_global(pid, bias, in->s_offset, &s->offset);
	err = err ?: read_global(pid, bias, in->s_address, &s->address);
	err = err ?: read_global(pid, bias, in->types, &t->base);
	err = err ?: read_global(pid, bias, in->t_stride, &t->stride);
	err = err ?: read_global(pid, bias, in->t_type, &t->type);
	err = err ?: read_global(pid, bias, in->t_size, &t->size);
	if (err == -EFAULT)
		return -EAGAIN; /* libjvm's data not mapped in place yet */
	if (err)
		return err;
	if (!s->stride || !t->stride || !s->base || !t->base)
		return -EAGAIN;
	if (s->stride > HS_MAX_STRIDE || t->stride > HS_MAX_STRIDE || s->type + 8 > s->stride ||
	    s->field + 8 > s->stride || s->is_static + 4 > s->stride || s->offset + 8 > s->stride ||
	    s->address + 8 > s->stride || t->type + 8 > t->stride || t->size + 8 > t->stride)
		return -EPROTO;
	return 0;
}

/*
 * The offsets of a compiled method's debug information, when the description has them all
 * (JDK 9-22's layout: the scopes data through a pointer in CompiledMethod; later JDKs keep it
 * elsewhere): inlined frames are shown then.
 */
static void take_scopes(const struct hs_want *w, struct cp_hs_offsets *o)
{
	static const int need[] = {W_NM_METADATA, W_NM_PCS,    W_NM_DEPS, W_CM_SCOPES,
				   W_PCD_PC,	  W_PCD_SCOPE, W_T_PCDESC};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!w[need[i]].found || w[need[i]].val > 0xffff)
			return;
	if (!w[W_T_PCDESC].val)
		return;
	o->nm_metadata = (__u16)w[W_NM_METADATA].val;
	o->nm_scopes_pcs = (__u16)w[W_NM_PCS].val;
	o->nm_deps = (__u16)w[W_NM_DEPS].val;
	o->cm_scopes_data = (__u16)w[W_CM_SCOPES].val;
	o->pcdesc_size = (__u16)w[W_T_PCDESC].val;
	o->pcdesc_pc = (__u16)w[W_PCD_PC].val;
	o->pcdesc_scope = (__u16)w[W_PCD_SCOPE].val;
	o->scopes = 1;
}

/* The offsets the step needs from w into o: 0, or -ENOTSUP with the first one missing. */
static int take_offsets(struct hs_want *w, struct cp_hs_offsets *o, const char **missing)
{
	static const int need[] = {
		W_CB_NAME,	 W_CB_COMPLETE, W_CB_SIZE,     W_CB_BEGIN,   W_METHOD_CONST,
		W_CM_CONSTANTS,	 W_CM_NAME,	W_CP_HOLDER,   W_KLASS_NAME, W_SYM_BODY,
		W_T_CONSTMETHOD, W_T_CPOOL,	W_T_HEAPBLOCK,
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!w[need[i]].found || w[need[i]].val > 0xffff) {
			*missing = w[need[i]].field ? w[need[i]].field : w[need[i]].type;
			return -ENOTSUP;
		}
	}
	if (!w[W_CM_METHOD].found && !w[W_NM_METHOD].found) {
		*missing = "CompiledMethod::_method";
		return -ENOTSUP;
	}
	if (!w[W_SYM_LENGTH].found && !w[W_SYM_LENREF].found) {
		*missing = "Symbol::_length";
		return -ENOTSUP;
	}
	/* the step reads a blob's header at once (bpf/hotspot_step.bpf.h) */
	for (int f = W_CB_NAME; f <= W_NM_METHOD; f++) {
		if (w[f].found && w[f].val + 8 > CP_HS_BLOB_HEAD) {
			*missing = "CodeBlob fields within its first 128 bytes";
			return -ENOTSUP;
		}
	}
	o->cb_name = (__u16)w[W_CB_NAME].val;
	o->cb_frame_complete = (__u16)w[W_CB_COMPLETE].val;
	o->cb_frame_size = (__u16)w[W_CB_SIZE].val;
	o->cb_code_begin = (__u16)w[W_CB_BEGIN].val;
	o->cm_method = (__u16)(w[W_CM_METHOD].found ? w[W_CM_METHOD].val : w[W_NM_METHOD].val);
	o->method_const = (__u16)w[W_METHOD_CONST].val;
	o->cmethod_constants = (__u16)w[W_CM_CONSTANTS].val;
	o->cmethod_name = (__u16)w[W_CM_NAME].val;
	o->cmethod_size = (__u16)w[W_T_CONSTMETHOD].val;
	o->cpool_holder = (__u16)w[W_CP_HOLDER].val;
	o->cpool_size = (__u16)w[W_T_CPOOL].val;
	/* JDK 15+; before, in InstanceKlass: no file then */
	o->cpool_source = w[W_CP_SOURCE].found ? (__u16)w[W_CP_SOURCE].val : 0;
	o->klass_name = (__u16)w[W_KLASS_NAME].val;
	/* JDK 12-16: the u16 length is the upper half of the u32 _length_and_refcount */
	o->sym_length =
		(__u16)(w[W_SYM_LENGTH].found ? w[W_SYM_LENGTH].val : w[W_SYM_LENREF].val + 2);
	o->sym_body = (__u16)w[W_SYM_BODY].val;
	o->heapblock_size = (__u16)w[W_T_HEAPBLOCK].val;
	take_scopes(w, o);
	return 0;
}

/* The CodeCache's heaps (CodeCache::_heaps, a GrowableArray<CodeHeap*>*) into out. */
static int read_heaps(pid_t pid, const struct hs_want *w, struct cp_hs_proc *out)
{
	static const int need[] = {W_HEAP_MEMORY, W_HEAP_SEGMAP, W_HEAP_LOG2, W_VS_LOW, W_VS_HIGH,
				   W_GA_LEN,	  W_GA_DATA,	 W_CC_HEAPS,  W_CC_LOW, W_CC_HIGH};
	uint64_t ga, data, heap;
	int32_t len = 0, log2 = 0;
	int err;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!w[need[i]].found)
			return -ENOTSUP;
	err = read_u64(pid, w[W_CC_LOW].val, &out->cc_low);
	err = err ?: read_u64(pid, w[W_CC_HIGH].val, &out->cc_high);
	err = err ?: read_u64(pid, w[W_CC_HEAPS].val, &ga);
	if (err)
		return err;
	/* the CodeCache is made early in the JVM's start; not yet: later */
	if (!ga || !out->cc_low || out->cc_high <= out->cc_low)
		return -EAGAIN;
	err = pmem_read(pid, ga + w[W_GA_LEN].val, &len, sizeof(len));
	err = err ?: read_u64(pid, ga + w[W_GA_DATA].val, &data);
	if (err)
		return err;
	if (len <= 0 || !data)
		return -EAGAIN;
	for (int32_t i = 0; i < len && out->n_heaps < CP_HS_HEAPS; i++) {
		struct cp_hs_heap *h = &out->heaps[out->n_heaps];

		err = read_u64(pid, data + 8 * (uint64_t)i, &heap);
		err = err ?: read_u64(pid, heap + w[W_HEAP_MEMORY].val + w[W_VS_LOW].val, &h->low);
		err = err
			      ?: read_u64(pid, heap + w[W_HEAP_MEMORY].val + w[W_VS_HIGH].val,
					  &h->high);
		err = err
			      ?: read_u64(pid, heap + w[W_HEAP_SEGMAP].val + w[W_VS_LOW].val,
					  &h->segmap);
		err = err ?: pmem_read(pid, heap + w[W_HEAP_LOG2].val, &log2, sizeof(log2));
		if (err)
			return err;
		if (h->high <= h->low || !h->segmap || log2 < 4 || log2 > 16 ||
		    (out->seg_shift && out->seg_shift != (uint32_t)log2))
			return -EPROTO;
		out->seg_shift = (uint32_t)log2;
		out->n_heaps++;
	}
	return 0;
}

/* The JVM's version from Abstract_VM_Version's statics (0 when they are not described). */
static uint32_t read_version(pid_t pid, const struct hs_want *w)
{
	int32_t v[3] = {0, 0, 0};

	for (int i = 0; i < 3; i++) {
		const struct hs_want *x = &w[W_VER_MAJOR + i];

		if (!x->found || pmem_read(pid, x->val, &v[i], sizeof(v[i])) || v[i] < 0 ||
		    v[i] > 255)
			return 0;
	}
	return CP_HS_VER(v[0], v[1], v[2]);
}

int hs_read_vm(pid_t pid, uint64_t bias, const struct hs_object_info *info, struct cp_hs_proc *out,
	       struct hs_line_offsets *lines, char *why, size_t why_size)
{
	struct hs_want w[W_MAX];
	struct hs_table s, t;
	const char *missing = "";
	uint32_t major;
	int err;

	memset(out, 0, sizeof(*out));
	wants_init(w);
	err = read_tables(pid, bias, info, &s, &t);
	err = err ?: scan_table(pid, &s, false, w);
	err = err ?: scan_table(pid, &t, true, w);
	if (err)
		return err == -EFAULT ? -EAGAIN : err;
	out->version = read_version(pid, w);
	major = out->version >> 16;
	/* the interpreter frame's slots (hotspot_shared.h) are those of JDK 9 and later */
	if (major < 9 || major > 25) {
		snprintf(why, why_size, "HotSpot %u.%u.%u, a version without its frame layout",
			 major, (out->version >> 8) & 0xff, out->version & 0xff);
		return -ENOTSUP;
	}
	err = take_offsets(w, &out->off, &missing);
	/* JDK 21 encodes with UNSIGNED5, whose bytes exclude 0 (OTel unsigned5.go) */
	out->off.u5_excluded = major >= 21;
	if (lines) {
		/* JDK 21 made _flags a ConstMethodFlags: its layout is not known here */
		lines->ok = w[W_CM_FLAGS].found && w[W_CM_CODE_SIZE].found && major <= 20 &&
			    w[W_CM_FLAGS].val < 0xffff && w[W_CM_CODE_SIZE].val < 0xffff;
		lines->cm_flags = (uint16_t)w[W_CM_FLAGS].val;
		lines->cm_code_size = (uint16_t)w[W_CM_CODE_SIZE].val;
	}
	if (err) {
		snprintf(why, why_size, "HotSpot %u, whose VMStructs lack %s", major, missing);
		return err;
	}
	err = read_heaps(pid, w, out);
	if (err == -ENOTSUP)
		snprintf(why, why_size, "HotSpot %u, whose VMStructs lack the CodeCache's heaps",
			 major);
	if (err == -EFAULT)
		return -EAGAIN;
	return err;
}

static int detect_jvm(int fd, const char *name, void *info)
{
	return hs_detect_object(fd, name, info);
}

int hs_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_hs_proc *out,
		      struct hs_line_offsets *lines, char *why, size_t why_size)
{
	struct hs_object_info info;
	struct interp_found at;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_jvm, &info, sizeof(info), &at);
	if (err)
		return err;
	err = hs_read_vm((pid_t)pid, at.bias, &info, out, lines, why, why_size);
	out->gen = gen;
	return err;
}
