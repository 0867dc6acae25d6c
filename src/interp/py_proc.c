// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "interp/pmem.h"
#include "interp/py_detect.h"
#include "interp/py_lines.h"
#include "interp/py_offsets.h"
#include "interp/py_proc.h"

int py_attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
	      struct cp_py_proc *out, struct py_attach_why *why)
{
	struct py_process proc;
	struct cp_py_offsets off;
	enum py_offsets_source src;
	int err;

	*why = (struct py_attach_why){0};
	err = py_detect_process(ps, pid, gen, plain, &proc);
	if (err != -ENOENT)
		why->hexversion = proc.info.hexversion;
	if (err == -EFAULT || err == -EIO)
		return -EAGAIN; /* sys.version's data is not mapped yet (2.7, 3.6, 3.7) */
	if (err)
		return err;
	/* 3.7's offsets need the patch level, read from sys.version, written at initialisation */
	err = py_offsets_for_process((pid_t)pid, &proc, &off, &src);
	if (err == -EFAULT || err == -EIO)
		return -EAGAIN; /* 3.13's _Py_DebugOffsets are not mapped yet */
	if (err)
		return err;
	/*
	 * Initialised first (-EAGAIN): before, libpython's data may not be relocated yet, and
	 * the check below would read pointers that lead nowhere.
	 */
	err = py_proc_build((pid_t)pid, &proc, &off, out);
	if (err == -EFAULT || err == -EIO)
		return -EAGAIN; /* its data is not mapped yet */
	if (err)
		return err;
	err = py_offsets_check_code((pid_t)pid, &proc, &off, &why->mismatch);
	if (err >= 0 && why->mismatch)
		return -EPROTO;
	/*
	 * 2.7, 3.6: the interpreter pointer read above may be the bytes of a data segment not
	 * mapped in place yet, and PyCode_Type's member table then leads nowhere: not yet.
	 */
	if (err == -EFAULT || err == -EIO || err == -EINVAL)
		return -EAGAIN;
	if (err < 0)
		return err;
	out->gen = gen;
	return 0;
}

/* Line tables longer than this are not read (a 70000-line function has ~100 KiB). */
#define PY_MAX_LINETABLE (1u << 20)

static int read_u64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return pmem_read(pid, addr, v, sizeof(*v));
}

int py_proc_build(pid_t pid, const struct py_process *pp, const struct cp_py_offsets *o,
		  struct cp_py_proc *out)
{
	const struct py_object_info *in = &pp->info;
	uint64_t b = pp->bias;
	int err;

	memset(out, 0, sizeof(*out));
	out->off = *o;
	out->tss_key = -1;
	out->code_type = in->code_type + b;
	out->none = in->none ? in->none + b : 0;
	out->eval_start = in->eval_start + b;
	out->eval_end = in->eval_end + b;
	if (in->eval_cold_start) {
		out->eval_cold_start = in->eval_cold_start + b;
		out->eval_cold_end = in->eval_cold_end + b;
	}
	if (in->runtime) {
		/* 3.7+: Py_tss_t {int _is_initialized; pthread_key_t _key} in _PyRuntime */
		int32_t tss[2];

		out->interp_head = in->runtime + b + o->runtime_interpreters_head;
		err = pmem_read(pid, in->runtime + b + o->runtime_autotss_key, tss, sizeof(tss));
		if (err)
			return err;
		if (tss[0] != 1)
			return -EAGAIN;
		out->tss_key = tss[1];
		return 0;
	}
	/* 2.7, 3.6 */
	if (in->interp_head) {
		out->interp_head = in->interp_head + b;
	} else {
		uint64_t ts = 0, interp = 0;

		err = read_u64(pid, in->tstate_current + b, &ts);
		if (!err && ts)
			err = read_u64(pid, ts + o->tstate_interp, &interp);
		if (err)
			return err;
		out->interp = interp;
		if (!out->interp)
			return -EAGAIN;
	}
	/* 3.6 binds tstates to the pthread key autoTLSkey; 2.7's keys are its own list */
	if (PY_HEX_MINOR_OF(in->hexversion) == PY_HEX(3, 6, 0) && in->auto_tls_key) {
		int32_t key = -1;

		err = pmem_read(pid, in->auto_tls_key + b, &key, sizeof(key));
		if (err)
			return err;
		out->tss_key = key;
	}
	return 0;
}

/* Append code point c as UTF-8 to buf (size max, used *n), keeping room for the NUL. */
static void put_utf8(char *buf, size_t max, size_t *n, uint32_t c)
{
	char t[4];
	size_t k, len;

	if (c < 0x80) {
		t[0] = (char)c;
		len = 1;
	} else if (c < 0x800) {
		t[0] = (char)(0xc0 | (c >> 6));
		t[1] = (char)(0x80 | (c & 0x3f));
		len = 2;
	} else if (c < 0x10000) {
		t[0] = (char)(0xe0 | (c >> 12));
		t[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		t[2] = (char)(0x80 | (c & 0x3f));
		len = 3;
	} else {
		if (c > 0x10ffff)
			c = 0xfffd;
		t[0] = (char)(0xf0 | (c >> 18));
		t[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		t[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		t[3] = (char)(0x80 | (c & 0x3f));
		len = 4;
	}
	if (*n + len >= max)
		return;
	for (k = 0; k < len; k++)
		buf[(*n)++] = t[k];
}

/*
 * A str object's text as UTF-8 (2.7: a PyStringObject's bytes). Compact strings only: every
 * name and file name of a code object is one (interned, or made by the compiler).
 */
static int read_str(pid_t pid, const struct cp_py_offsets *o, uint64_t s, char *buf, size_t max)
{
	uint64_t len;
	uint32_t state, kind;
	uint64_t data;
	size_t n = 0, i, want;
	uint8_t raw[1024];
	int err;

	buf[0] = 0;
	if (!s)
		return -EINVAL;
	err = read_u64(pid, s + 16, &len); /* ob_size / PyASCIIObject.length */
	if (err)
		return err;
	if (len > (1u << 20))
		return -EINVAL;
	if (o->str_ascii_data == o->bytes_sval) { /* 2.7: bytes */
		kind = 1;
		data = s + o->bytes_sval;
	} else {
		err = pmem_read(pid, s + 32, &state, sizeof(state));
		if (err)
			return err;
		/* interned:2 kind:3 compact:1 ascii:1 (CPython's PyASCIIObject.state, 3.3+) */
		kind = (state >> 2) & 7;
		if (!((state >> 5) & 1) || (kind != 1 && kind != 2 && kind != 4))
			return -EINVAL;
		/* non-ASCII: after a PyCompactUnicodeObject, 24 (16 from 3.12) bytes more */
		data = s + o->str_ascii_data;
		if (!((state >> 6) & 1))
			data += o->str_ascii_data == 40 ? 16 : 24;
	}
	want = (size_t)len * kind;
	if (want > sizeof(raw))
		want = sizeof(raw) - sizeof(raw) % kind;
	err = pmem_read(pid, data, raw, want);
	if (err)
		return err;
	for (i = 0; i + kind <= want; i += kind) {
		uint32_t c = kind == 1	 ? raw[i]
			     : kind == 2 ? (uint32_t)(raw[i] | raw[i + 1] << 8)
					 : (uint32_t)(raw[i] | raw[i + 1] << 8 | raw[i + 2] << 16 |
						      (uint32_t)raw[i + 3] << 24);

		/* 2.7's bytes are already UTF-8 (or anything): keep them as they are */
		if (o->str_ascii_data == o->bytes_sval) {
			if (n + 1 < max)
				buf[n++] = (char)raw[i];
			continue;
		}
		put_utf8(buf, max, &n, c);
	}
	buf[n] = 0;
	return 0;
}

int py_code_read(pid_t pid, const struct cp_py_offsets *o, uint64_t code, uint32_t instr,
		 struct rt_frame_info *out)
{
	uint64_t name = 0, file = 0, table = 0, tlen = 0;
	uint8_t *bytes = NULL;
	int32_t first = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->line = -1;
	if ((err = read_u64(
		     pid, code + (o->code_qualname != CP_PY_NONE ? o->code_qualname : o->code_name),
		     &name)) ||
	    (err = read_u64(pid, code + o->code_filename, &file)) ||
	    (err = pmem_read(pid, code + o->code_firstlineno, &first, sizeof(first))) ||
	    (err = read_u64(pid, code + o->code_linetable, &table)))
		return err;
	if ((err = read_str(pid, o, name, out->name, sizeof(out->name))) ||
	    (err = read_str(pid, o, file, out->file, sizeof(out->file))))
		return err;
	out->firstline = first;
	if (!table || read_u64(pid, table + 16, &tlen) || tlen > PY_MAX_LINETABLE)
		return 0; /* names without the line */
	bytes = malloc(tlen ? (size_t)tlen : 1);
	if (!bytes)
		return -ENOMEM;
	if (!pmem_read(pid, table + o->bytes_sval, bytes, (size_t)tlen))
		out->line = py_line_at(py_linetable_format(o->version), bytes, (size_t)tlen, first,
				       py_instr_offset(o, instr));
	free(bytes);
	return 0;
}
