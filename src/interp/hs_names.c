// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/hs_names.h"
#include "interp/pmem.h"
#include "interp/runtime.h"

/* Line tables read at most (a method's bytecodes are < 64 KiB; so is its table, nearly) */
#define HS_LINE_TABLE 4096
/* ConstMethod::_has_linenumber_table, JDK 9-20 (gHotSpotVMIntConstants of JDK 17: 1) */
#define HS_HAS_LINES 0x0001

/*
 * A compressed int at t[*at] (JDK 9-20 CompressedReadStream::read_int: a byte below 192 ends
 * it, each byte 6 bits more, 5 at most). -1 past len.
 */
static int64_t read_int(const uint8_t *t, size_t len, size_t *at)
{
	uint64_t sum = 0;

	for (int k = 0; k < 5; k++) {
		uint32_t b;

		if (*at >= len)
			return -1;
		b = t[(*at)++];
		sum += (uint64_t)b << (6 * k);
		if (b < 192)
			break;
	}
	return (int64_t)(sum & 0xffffffffu);
}

/* read_signed_int: the sign in the low bit (CompressedStream::decode_sign). */
static int read_signed(const uint8_t *t, size_t len, size_t *at, int32_t *v)
{
	int64_t u = read_int(t, len, at);

	if (u < 0)
		return -1;
	*v = (int32_t)(((uint32_t)u >> 1) ^ (0u - ((uint32_t)u & 1)));
	return 0;
}

int hs_line_of(const uint8_t *t, size_t len, uint32_t bci)
{
	int64_t b = 0, line = 0, best_bci = 0, best = -1;
	size_t at = 0;

	while (at < len) {
		uint8_t next = t[at++];
		int32_t db, dl;

		if (next == 0)
			return (int)best;
		if (next == 0xff) {
			if (read_signed(t, len, &at, &db) || read_signed(t, len, &at, &dl))
				return -1;
		} else {
			db = next >> 3;
			dl = next & 7;
		}
		b += db;
		line += dl;
		if (b < 0 || line < 0 || line > (1 << 30))
			return -1;
		if (b == bci)
			return (int)line;
		if (b < bci && b >= best_bci) {
			best_bci = b;
			best = line;
		}
	}
	return -1; /* no end marker within what was read */
}

/* The bytes of the Symbol at sym into buf (size bytes, NUL-terminated). */
static int read_symbol(pid_t pid, const struct cp_hs_offsets *o, uint64_t sym, char *buf,
		       size_t size)
{
	uint16_t len = 0;
	int err;

	if (!sym)
		return -EFAULT;
	err = pmem_read(pid, sym + o->sym_length, &len, sizeof(len));
	if (err)
		return err;
	if (len >= size)
		len = (uint16_t)(size - 1);
	err = len ? pmem_read(pid, sym + o->sym_body, buf, len) : 0;
	if (err)
		return err;
	buf[len] = 0;
	/* HotSpot's bytes are modified UTF-8: anything but printable ASCII is shown as '?' */
	for (uint16_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
	return 0;
}

static int read_ptr(pid_t pid, uint64_t addr, uint64_t *v)
{
	*v = 0;
	return addr ? pmem_read(pid, addr, v, sizeof(*v)) : -EFAULT;
}

/* The line of bci in method m's ConstMethod cm; -1 when unknown. */
static int method_line(pid_t pid, const struct cp_hs_proc *p, const struct hs_line_offsets *lo,
		       uint64_t cm, uint32_t bci)
{
	static uint8_t t[HS_LINE_TABLE];
	uint16_t flags = 0, code = 0;
	uint64_t at;
	size_t n;

	if (!lo || !lo->ok || bci == ~0u ||
	    pmem_read(pid, cm + lo->cm_flags, &flags, sizeof(flags)) ||
	    pmem_read(pid, cm + lo->cm_code_size, &code, sizeof(code)) || !(flags & HS_HAS_LINES) ||
	    bci >= code)
		return -1;
	/* the table follows the bytecodes, which follow the ConstMethod */
	at = cm + p->off.cmethod_size + code;
	for (n = sizeof(t); n >= 64; n /= 4)
		if (!pmem_read(pid, at, t, n))
			return hs_line_of(t, n, bci);
	return -1;
}

int hs_name_frame(pid_t pid, const struct cp_hs_proc *p, const struct hs_line_offsets *lines,
		  const struct cp_rt_frame *f, struct rt_frame_info *out)
{
	const struct cp_hs_offsets *o = &p->off;
	uint64_t cm, cp, klass, ksym, msym, fsym, name;
	uint16_t ni = 0, si = 0;
	char cls[160], meth[96];
	int err;

	memset(out, 0, sizeof(*out));
	out->line = -1;
	if (f->kind == CP_HS_FRAME_STUB) {
		/* a C string of the VM's: 64 bytes, or 16 near the end of a mapping */
		memset(cls, 0, sizeof(cls));
		err = read_ptr(pid, f->ptr + o->cb_name, &name);
		if (!err && !name)
			err = -EFAULT;
		if (!err && pmem_read(pid, name, cls, 63))
			err = pmem_read(pid, name, cls, 15);
		if (err)
			return err;
		for (size_t i = 0; cls[i]; i++)
			if ((unsigned char)cls[i] < 0x20 || (unsigned char)cls[i] >= 0x7f)
				cls[i] = '?';
		snprintf(out->name, sizeof(out->name), "[%s]", cls);
		return 0;
	}
	err = read_ptr(pid, f->ptr + o->method_const, &cm);
	err = err ?: read_ptr(pid, cm + o->cmethod_constants, &cp);
	err = err ?: read_ptr(pid, cp + o->cpool_holder, &klass);
	err = err ?: read_ptr(pid, klass + o->klass_name, &ksym);
	err = err ?: pmem_read(pid, cm + o->cmethod_name, &ni, sizeof(ni));
	err = err ?: read_ptr(pid, cp + o->cpool_size + 8 * (uint64_t)ni, &msym);
	err = err ?: read_symbol(pid, o, ksym, cls, sizeof(cls));
	err = err ?: read_symbol(pid, o, msym & ~1ull, meth, sizeof(meth));
	if (err)
		return err;
	/* packages with '.' (a hidden class keeps its "+0x..." suffix, as the JVM names it) */
	for (char *c = cls; *c; c++)
		if (*c == '/')
			*c = '.';
	snprintf(out->name, sizeof(out->name), "%s.%s", cls, meth);
	if (o->cpool_source && !pmem_read(pid, cp + o->cpool_source, &si, sizeof(si)) && si &&
	    !read_ptr(pid, cp + o->cpool_size + 8 * (uint64_t)si, &fsym))
		(void)read_symbol(pid, o, fsym & ~1ull, out->file, sizeof(out->file));
	out->line = method_line(pid, p, lines, cm, f->pos);
	return 0;
}
