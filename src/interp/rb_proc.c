// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp/pmem.h"
#include "interp/rb_detect.h"
#include "interp/rb_lines.h"
#include "interp/rb_proc.h"

/* Object type tags and flags (ruby/internal/value_type.h, fl_type.h; the same 2.6-3.3). */
/* tLAST_OP_ID when neither the table nor rb_id2str's code says (0xa9 in 3.1: about that) */
#define RB_LAST_OP_ID_GUESS 0xa9

/* Strings longer than this are cut (labels, paths); line tables beyond are not read. */
#define RB_MAX_INSNS (1u << 20)

static int read_u64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return pmem_read(pid, addr, v, sizeof(*v));
}

/* ruby_global_symbols (runtime address, 0 when unknown) and tLAST_OP_ID of rp. */
static void symbols_of(const struct rb_process *rp, const struct cp_rb_offsets *o, uint64_t *sym,
		       uint32_t *last_op_id)
{
	*sym = rp->info.global_symbols ? rp->info.global_symbols + rp->bias : 0;
	*last_op_id = rp->info.last_op_id	    ? rp->info.last_op_id
		      : o->last_op_id != CP_RB_NONE ? o->last_op_id
						    : RB_LAST_OP_ID_GUESS;
}

int rb_proc_build(pid_t pid, const struct rb_process *rp, const struct cp_rb_offsets *o,
		  struct cp_rb_proc *out)
{
	const struct rb_object_info *in = &rp->info;
	uint64_t b = rp->bias, slot = 0, sym;
	uint32_t last_op_id;
	int err;

	memset(out, 0, sizeof(*out));
	out->off = *o;
	out->vm_exec_start = in->vm_exec_start + b;
	out->vm_exec_end = in->vm_exec_end + b;
	symbols_of(rp, o, &sym, &last_op_id);
	out->symbols = sym;
	out->last_op_id = last_op_id;
	if (in->has_ec_tls && in->ec_tpoff_got) {
		/* initial exec: the loader wrote the variable's offset from the thread pointer */
		err = read_u64(pid, in->ec_tpoff_got + b, &slot);
		if (err)
			return err;
		if ((int64_t)slot >= 0)
			return -EAGAIN;
		out->ec_mode = CP_RB_EC_TLS_TP;
		out->tls_off = (int64_t)slot;
		return 0;
	}
	if (in->has_ec_tls && in->ec_dtpmod_got) {
		/* general dynamic: the loader wrote libruby's TLS module id */
		err = read_u64(pid, in->ec_dtpmod_got + b, &slot);
		if (err)
			return err;
		if (!slot)
			return -EAGAIN;
		if (slot > 4096)
			return -ENOTSUP;
		out->ec_mode = CP_RB_EC_TLS_DTV;
		out->tls_modid = (__u32)slot;
		out->tls_off = (int64_t)in->ec_tls_off;
		return 0;
	}
	if (in->has_ec_tls && in->executable && in->tls.memsz) {
		/* a static ruby: local exec, module 1, its block right below the thread pointer */
		out->ec_mode = CP_RB_EC_TLS_TP;
		out->tls_off = rb_tls_exec_tpoff(&in->tls, in->ec_tls_off);
		return 0;
	}
	if (in->ec_ptr) {
		out->ec_mode = CP_RB_EC_GLOBAL;
		out->ec_global = in->ec_ptr + b;
		return 0;
	}
	if (in->main_ractor && o->ractor_running_ec != CP_RB_NONE) {
		out->ec_mode = CP_RB_EC_RACTOR;
		out->ec_global = in->main_ractor + b;
		return 0;
	}
	return -ENOTSUP;
}

/* ---- naming ------------------------------------------------------------------------------ */

#define CACHE_SLOTS 256 /* per kind, direct-mapped */

struct iseq_slot {
	uint64_t body;
	bool valid;
	char name[128], file[512];
	int firstline;
	uint64_t encoded;   /* iseq_encoded */
	uint32_t n_entries; /* insns_info.size */
	uint64_t entries;   /* insns_info.body */
	uint64_t succ;	    /* insns_info.succ_index_table */
};

struct me_slot {
	uint64_t me;
	bool valid;
	char name[128];
};

struct id_slot {
	uint64_t id;
	bool valid;
	char name[128];
};

struct rb_names {
	pid_t pid;
	struct cp_rb_offsets o;
	uint64_t symbols; /* ruby_global_symbols, runtime address; 0 when unknown */
	uint32_t last_op_id;
	unsigned long hits, misses;
	struct iseq_slot iseqs[CACHE_SLOTS];
	struct me_slot mes[CACHE_SLOTS];
	struct id_slot ids[CACHE_SLOTS];
};

static size_t slot_of(uint64_t key)
{
	key ^= key >> 17;
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 55) & (CACHE_SLOTS - 1);
}

struct rb_names *rb_names_new(pid_t pid, const struct rb_process *rp, const struct cp_rb_offsets *o)
{
	struct rb_names *rn = calloc(1, sizeof(*rn));

	if (!rn)
		return NULL;
	rn->pid = pid;
	rn->o = *o;
	symbols_of(rp, o, &rn->symbols, &rn->last_op_id);
	return rn;
}

void rb_names_free(struct rb_names *rn)
{
	free(rn);
}

void rb_names_stats(const struct rb_names *rn, unsigned long *hits, unsigned long *misses)
{
	*hits = rn->hits;
	*misses = rn->misses;
}

/* A String's bytes (NUL-terminated, cut to size - 1). */
static int read_string(const struct rb_names *rn, uint64_t s, char *buf, size_t size)
{
	const struct cp_rb_offsets *o = &rn->o;
	uint64_t flags, len, data;
	int err;

	buf[0] = 0;
	if (!s || (s & 7))
		return -EINVAL; /* an immediate (nil, a Fixnum...), not a heap object */
	err = read_u64(rn->pid, s, &flags);
	if (err)
		return err;
	if ((flags & CP_RB_T_MASK) != CP_RB_T_STRING)
		return -EINVAL;
	if (flags & CP_RB_FL_USER1) { /* RSTRING_NOEMBED */
		if ((err = read_u64(rn->pid, s + o->rstring_len, &len)) ||
		    (err = read_u64(rn->pid, s + o->rstring_heap_ptr, &data)))
			return err;
	} else {
		if (o->version < CP_RB_VER(3, 2, 0))
			len = (flags >> (CP_RB_FL_USHIFT + 2)) & 0x1f; /* RSTRING_EMBED_LEN_MASK */
		else if ((err = read_u64(rn->pid, s + o->rstring_len, &len)))
			return err;
		data = s + o->rstring_embed;
	}
	if (len > (1u << 20))
		return -EINVAL;
	if (len >= size)
		len = size - 1;
	err = pmem_read(rn->pid, data, buf, (size_t)len);
	if (err)
		return err;
	buf[len] = 0;
	if (strlen(buf) != len)
		return -EINVAL; /* a NUL inside: not a name */
	return 0;
}

/* Element i of Array a. */
static int array_at(const struct rb_names *rn, uint64_t a, uint64_t i, uint64_t *v)
{
	const struct cp_rb_offsets *o = &rn->o;
	uint64_t flags, len, data;
	int err;

	if (!a || (a & 7))
		return -EINVAL;
	err = read_u64(rn->pid, a, &flags);
	if (err)
		return err;
	if ((flags & CP_RB_T_MASK) != CP_RB_T_ARRAY)
		return -EINVAL;
	if (flags & CP_RB_FL_USER1) { /* RARRAY_EMBED_FLAG: the length in the flags */
		len = (flags >> (CP_RB_FL_USHIFT + 3)) &
		      (o->version < CP_RB_VER(3, 2, 0) ? 0x3 : 0x7f);
		data = a + o->rarray_embed;
	} else {
		if ((err = read_u64(rn->pid, a + o->rstring_len, &len)) || /* as.heap.len */
		    (err = read_u64(rn->pid, a + o->rarray_heap_ptr, &data)))
			return err;
	}
	if (i >= len)
		return -ENOENT;
	return read_u64(rn->pid, data + 8 * i, v);
}

int rb_names_id(struct rb_names *rn, uint64_t id, char *buf, size_t size)
{
	struct id_slot *sl = &rn->ids[slot_of(id)];
	uint64_t serial, ids, sub, str;
	uint32_t last_id;
	int err;

	buf[0] = 0;
	if (sl->valid && sl->id == id) {
		rn->hits++;
		snprintf(buf, size, "%s", sl->name);
		return 0;
	}
	rn->misses++;
	if (!rn->symbols)
		return -ENOENT;
	serial = id > rn->last_op_id ? id >> CP_RB_ID_SCOPE_SHIFT : id;
	if ((err = pmem_read(rn->pid, rn->symbols + rn->o.symbols_last_id, &last_id,
			     sizeof(last_id))) ||
	    (err = read_u64(rn->pid, rn->symbols + rn->o.symbols_ids, &ids)))
		return err;
	if (!serial || serial > last_id)
		return -ENOENT;
	if ((err = array_at(rn, ids, serial / CP_RB_ID_ENTRY_UNIT, &sub)) ||
	    (err = array_at(rn, sub, (serial % CP_RB_ID_ENTRY_UNIT) * CP_RB_ID_ENTRY_SIZE, &str)) ||
	    (err = read_string(rn, str, sl->name, sizeof(sl->name))))
		return err == -EINVAL ? -ENOENT : err;
	sl->id = id;
	sl->valid = true;
	snprintf(buf, size, "%s", sl->name);
	return 0;
}

/* A C method's name from its callable method entry (ep[-2] of its frame). */
static int cfunc_name(struct rb_names *rn, uint64_t me, char *buf, size_t size)
{
	struct me_slot *sl = &rn->mes[slot_of(me)];
	uint64_t flags, def, id;
	int err;

	if (sl->valid && sl->me == me) {
		rn->hits++;
		snprintf(buf, size, "%s", sl->name);
		return 0;
	}
	if (!me || (me & 7))
		return -ENOENT;
	if ((err = read_u64(rn->pid, me, &flags)))
		return err;
	/* an imemo of type ment; anything else (a cref, an svar) names nothing */
	if ((flags & CP_RB_T_MASK) != CP_RB_T_IMEMO ||
	    ((flags >> CP_RB_FL_USHIFT) & 0xf) != CP_RB_IMEMO_MENT)
		return -ENOENT;
	if ((err = read_u64(rn->pid, me + rn->o.me_def, &def)) || !def ||
	    (err = read_u64(rn->pid, def + rn->o.def_original_id, &id)))
		return err ? err : -ENOENT;
	err = rb_names_id(rn, id, sl->name, sizeof(sl->name));
	if (err)
		return err;
	sl->me = me;
	sl->valid = true;
	snprintf(buf, size, "%s", sl->name);
	return 0;
}

static struct iseq_slot *iseq_info(struct rb_names *rn, uint64_t body, int *errp)
{
	const struct cp_rb_offsets *o = &rn->o;
	struct iseq_slot *sl = &rn->iseqs[slot_of(body)];
	uint64_t loc[4], path = 0, first;
	uint8_t head[256];
	uint32_t n;
	int err;

	if (sl->valid && sl->body == body) {
		rn->hits++;
		return sl;
	}
	rn->misses++;
	sl->valid = false;
	if (o->body_succ_index + 8u > sizeof(head) || o->body_location + 32u > sizeof(head)) {
		*errp = -EINVAL;
		return NULL;
	}
	err = pmem_read(rn->pid, body, head, o->body_succ_index + 8u);
	if (err) {
		*errp = err;
		return NULL;
	}
	memcpy(loc, head + o->body_location, sizeof(loc));
	memcpy(&sl->encoded, head + o->body_iseq_encoded, 8);
	memcpy(&sl->entries, head + o->body_insns_info, 8);
	memcpy(&n, head + o->body_insns_size, 4);
	memcpy(&sl->succ, head + o->body_succ_index, 8);
	sl->n_entries = n;
	/* pathobj: a String, or [path, realpath] */
	path = loc[o->loc_pathobj / 8];
	if (read_string(rn, path, sl->file, sizeof(sl->file)) == -EINVAL) {
		uint64_t p0 = 0;

		err = array_at(rn, path, 0, &p0);
		if (!err)
			err = read_string(rn, p0, sl->file, sizeof(sl->file));
		if (err) {
			*errp = err == -ENOENT ? -EINVAL : err;
			return NULL;
		}
	}
	err = read_string(rn, loc[o->loc_label / 8], sl->name, sizeof(sl->name));
	if (err) {
		*errp = err;
		return NULL;
	}
	first = loc[o->loc_first_lineno / 8];
	sl->firstline = (first & 1) ? (int)((int64_t)first >> 1) : 0; /* a Fixnum */
	sl->body = body;
	sl->valid = true;
	return sl;
}

/* The line of instruction index pc_index (cp_rt_frame.pos) of iseq sl; -1 when unknown. */
static int iseq_line(struct rb_names *rn, const struct iseq_slot *sl, uint32_t pc_index)
{
	uint32_t pos = rb_insn_pos(pc_index), idx;
	uint8_t buf[RB_SUCC_BLOCK_SIZE];
	int32_t line;
	size_t off, len;

	if (pc_index == ~0u || !sl->entries || !sl->n_entries || sl->n_entries > RB_MAX_INSNS)
		return -1;
	if (sl->n_entries == 1) {
		idx = 0;
	} else {
		if (!sl->succ)
			return -1;
		rb_succ_span(pos, &off, &len);
		if (pmem_read(rn->pid, sl->succ + off, buf, len))
			return -1;
		idx = rb_succ_rank(pos, buf, len);
		if (!idx || idx > sl->n_entries)
			return -1;
		idx--;
	}
	/* line_no is the entry's first field */
	if (pmem_read(rn->pid, sl->entries + (uint64_t)idx * rn->o.insn_info_size, &line,
		      sizeof(line)))
		return -1;
	return line;
}

int rb_names_frame(struct rb_names *rn, const struct cp_rt_frame *f, struct rt_frame_info *out)
{
	const struct iseq_slot *sl;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->line = -1;
	if (f->kind == CP_RB_FRAME_CFUNC) {
		err = cfunc_name(rn, f->ptr, out->name, sizeof(out->name));
		if (err == -ENOENT || err == -EINVAL || err == -EFAULT)
			snprintf(out->name, sizeof(out->name), "<cfunc>");
		return err == -ENOENT || err == -EINVAL || err == -EFAULT ? 0 : err;
	}
	if (f->kind != CP_RB_FRAME_ISEQ)
		return -EINVAL;
	sl = iseq_info(rn, f->ptr, &err);
	if (!sl)
		return err;
	snprintf(out->name, sizeof(out->name), "%s", sl->name);
	snprintf(out->file, sizeof(out->file), "%s", sl->file);
	out->firstline = sl->firstline;
	out->line = iseq_line(rn, sl, f->pos);
	return 0;
}
