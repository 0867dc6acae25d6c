// SPDX-License-Identifier: GPL-2.0
/*
 * Sources of the numbers below, x86_64, bytes:
 * [D] the DWARF of the pyenv builds 2.7.18, 3.6.15, 3.7.16, 3.8.18, 3.9.18, 3.10.13, 3.11.7,
 *     3.12.1, 3.13.0 (GCC 12, -O3), read with scripts/py-offsets-dwarf.py; each frame-walk
 *     number was also validated by a live walk of /proc/PID/mem (interpreters.md 1.4), and
 *     tests/unit/test_py_offsets.c compares the whole table with the DWARF when the builds are
 *     there. Debian's python3.11 (3.11.2) walks with the 3.11 numbers (interpreters.md 4.5).
 * [P] Parca runtime-data @553deb4, initialstate/amd64/3.7.0 - 3.7.3.yaml (py-spy agrees on
 *     tstate_current 1392): 3.7.0-3.7.3 only.
 * [C] CPython's headers: the meaning of the fields (Include/cpython/pystate.h, frameobject.h,
 *     code.h; Include/internal/pycore_frame.h, pycore_runtime.h for _Py_DebugOffsets 3.13).
 */
#include <errno.h>
#include <string.h>
#include "interp/pmem.h"
#include "interp/py_detect.h"
#include "interp/py_offsets.h"
#include "elf/elf_named.h"

#define N CP_PY_NONE

/* Fields common to a family, the version-specific ones set per entry. */
static void none_all(struct cp_py_offsets *o)
{
	memset(o, 0xff, sizeof(*o));
	o->version = 0;
	o->pad0 = 0;
	memset(o->pad1, 0, sizeof(o->pad1));
}

static int table_27(struct cp_py_offsets *o)
{
	/* [D] 2.7.18: no _PyRuntime; PyThreadState has no pthread-key path (thread.c's own key
	 * list: interpreters.md 1.1); strings are PyStringObject (ob_sval 36) */
	o->interp_tstate_head = 8;
	o->tstate_next = 0;
	o->tstate_interp = 8;
	o->tstate_thread_id = 144;
	o->tstate_frame = 16;
	o->frame_back = 24;
	o->frame_code = 32;
	o->frame_lasti = 120;
	o->code_argcount = 16;
	o->code_flags = 28;
	o->code_firstlineno = 96;
	o->code_filename = 80;
	o->code_name = 88;
	o->code_linetable = 104;
	o->code_code = 32;
	o->bytes_sval = 36;
	o->str_ascii_data = 36;
	return 0;
}

/* 3.6-3.10: PyFrameObject chains. */
static void frames_objects(struct cp_py_offsets *o, unsigned int minor)
{
	o->frame_model = CP_PY_FRAMES_OBJECT;
	o->entry_model = CP_PY_ENTRY_ONE;
	/* [C] 3.10 (PEP 626): f_lasti counts code units; before, bytes */
	o->instr_unit = minor >= 10 ? CP_PY_INSTR_CODEUNITS : CP_PY_INSTR_BYTES;
	o->interp_tstate_head = 8;		      /* [D] 3.6-3.10 */
	o->tstate_next = 8;			      /* [D] 3.6-3.10 */
	o->tstate_interp = 16;			      /* [D] 3.6-3.10 */
	o->tstate_thread_id = minor == 6 ? 152 : 176; /* [D] */
	o->tstate_frame = 24; /* [D] tstate->frame, 3.6-3.10 (3.10's cframe: tracing only) */
	o->frame_back = 24;   /* [D] 3.6-3.10 */
	o->frame_code = 32;   /* [D] 3.6-3.10 */
	o->frame_lasti = minor == 6 ? 120 : minor == 10 ? 96 : 104; /* [D] */
	o->code_argcount = 16;					    /* [D] 3.6-3.10 */
	/* [D] 3.8 added co_posonlyargcount before co_kwonlyargcount */
	o->code_kwonlyargcount = minor <= 7 ? 20 : 24;
	o->code_flags = minor <= 7 ? 32 : 36;
	o->code_firstlineno = minor <= 7 ? 36 : 40;
	o->code_filename = minor <= 7 ? 96 : 104;
	o->code_name = minor <= 7 ? 104 : 112;
	o->code_linetable = minor <= 7 ? 112 : 120; /* co_lnotab; 3.10 co_linetable */
	o->code_code = minor <= 7 ? 40 : 48;
	o->bytes_sval = 32;	/* [D] 3.x */
	o->str_ascii_data = 48; /* [D] sizeof(PyASCIIObject) 3.6-3.11 */
}

static int table_3(unsigned int minor, unsigned int micro, bool micro_known,
		   struct cp_py_offsets *o)
{
	if (minor >= 6 && minor <= 10)
		frames_objects(o, minor);
	switch (minor) {
	case 6:
		/* [D] 3.6.15: no _PyRuntime; _PyThreadState_Current and interp_head instead */
		return 0;
	case 7:
		if (!micro_known)
			return -EAGAIN;
		o->runtime_interpreters_head = 24; /* [D] 3.7.16; [P] for 3.7.0-3.7.3 too */
		if (micro <= 3) {
			o->runtime_tstate_current = 1392; /* [P] 3.7.0-3.7.3 */
			o->runtime_autotss_key = 1416;	  /* [P] */
		} else {
			o->runtime_tstate_current = 1480; /* [D] 3.7.16 */
			o->runtime_autotss_key = 1504;	  /* [D] */
		}
		return 0;
	case 8:
		o->runtime_tstate_current = 1368; /* [D] 3.8.18 */
		o->runtime_autotss_key = 1392;
		o->runtime_interpreters_head = 32;
		return 0;
	case 9:
	case 10:
		o->runtime_tstate_current = 568; /* [D] 3.9.18, 3.10.13 */
		o->runtime_autotss_key = 584;
		o->runtime_interpreters_head = 32;
		return 0;
	}
	if (minor < 11 || minor > 13)
		return -ENOTSUP;

	/* 3.11+: _PyInterpreterFrame chains, instruction index in code units */
	o->frame_model = CP_PY_FRAMES_INTERP;
	o->instr_unit = CP_PY_INSTR_CODEUNITS;
	o->tstate_next = 8;	/* [D] 3.11-3.13 */
	o->tstate_interp = 16;	/* [D] */
	o->iframe_instr = 56;	/* [D] prev_instr (3.11, 3.12), instr_ptr (3.13) */
	o->code_flags = 48;	/* [D] 3.11-3.13 */
	o->code_filename = 112; /* [D] */
	o->code_name = 120;
	o->code_qualname = 128;
	o->code_linetable = 136; /* co_linetable: the 3.11+ location table */
	o->bytes_sval = 32;
	switch (minor) {
	case 11:
		o->entry_model = CP_PY_ENTRY_FLAG;
		o->runtime_tstate_current = 576; /* [D] 3.11.7 */
		o->runtime_autotss_key = 592;
		o->runtime_interpreters_head = 40;
		o->interp_tstate_head = 16; /* threads.head */
		o->tstate_thread_id = 152;
		o->tstate_native_thread_id = 160;
		o->tstate_frame = 56; /* cframe */
		o->cframe_current_frame = 8;
		o->iframe_code = 32; /* f_code */
		o->iframe_previous = 48;
		o->iframe_is_entry = 68;
		o->iframe_owner = 69;
		o->code_argcount = 56;
		o->code_kwonlyargcount = 64;
		o->code_firstlineno = 72;
		o->code_code = 184; /* co_code_adaptive = PyCode_Type.tp_basicsize */
		o->str_ascii_data = 48;
		return 0;
	case 12:
		o->entry_model = CP_PY_ENTRY_SHIM;
		o->runtime_autotss_key = 1544; /* [D] 3.12.1, moved out of gilstate */
		o->runtime_interpreters_head = 40;
		o->interp_tstate_head = 72;
		o->tstate_thread_id = 136;
		o->tstate_native_thread_id = 144;
		o->tstate_frame = 56; /* cframe */
		o->cframe_current_frame = 0;
		o->iframe_code = 0; /* f_code */
		o->iframe_previous = 8;
		o->iframe_owner = 70;
		o->code_argcount = 52;
		o->code_kwonlyargcount = 60;
		o->code_firstlineno = 68;
		o->code_code = 192;
		o->str_ascii_data = 40; /* [D] wstr removed in 3.12 */
		return 0;
	default: /* 13 */
		o->entry_model = CP_PY_ENTRY_SHIM;
		o->runtime_autotss_key = 2160; /* [D] 3.13.0 (Parca's pre-release 1864 is wrong) */
		o->runtime_interpreters_head = 632;
		o->interp_tstate_head = 7344;
		o->tstate_thread_id = 152;
		o->tstate_native_thread_id = 160;
		o->tstate_frame = 72; /* current_frame: _PyCFrame removed */
		o->iframe_code = 0;   /* f_executable */
		o->iframe_previous = 8;
		o->iframe_owner = 70;
		o->code_argcount = 52;
		o->code_kwonlyargcount = 60;
		o->code_firstlineno = 68;
		o->code_code = 200;
		o->str_ascii_data = 40;
		return 0;
	}
}

int py_offsets_table(uint32_t hexversion, bool micro_known, struct cp_py_offsets *out)
{
	unsigned int major = PY_HEX_MAJOR(hexversion), minor = PY_HEX_MINOR(hexversion);
	int err;

	none_all(out);
	if (major == 2 && minor == 7) {
		out->frame_model = CP_PY_FRAMES_OBJECT;
		out->entry_model = CP_PY_ENTRY_ONE;
		out->instr_unit = CP_PY_INSTR_BYTES;
		err = table_27(out);
	} else if (major == 3) {
		err = table_3(minor, PY_HEX_MICRO(hexversion), micro_known, out);
	} else {
		err = -ENOTSUP;
	}
	if (err) {
		none_all(out);
		return err;
	}
	out->version = hexversion;
	return 0;
}

/* _Py_DebugOffsets of 3.13 as u64 word indexes (CPython 3.13.0 pycore_runtime.h [C]). */
enum {
	DO_COOKIE = 0,
	DO_VERSION = 1,
	DO_FREE_THREADED = 2,
	DO_RT_INTERPRETERS_HEAD = 3 + 2,
	DO_IS_THREADS_HEAD = 6 + 3,
	DO_TS_NEXT = 19 + 2,
	DO_TS_INTERP = 19 + 3,
	DO_TS_CURRENT_FRAME = 19 + 4,
	DO_TS_THREAD_ID = 19 + 5,
	DO_TS_NATIVE_THREAD_ID = 19 + 6,
	DO_IF_PREVIOUS = 28 + 1,
	DO_IF_EXECUTABLE = 28 + 2,
	DO_IF_INSTR_PTR = 28 + 3,
	DO_IF_OWNER = 28 + 5,
	DO_CO_FILENAME = 34 + 1,
	DO_CO_NAME = 34 + 2,
	DO_CO_QUALNAME = 34 + 3,
	DO_CO_LINETABLE = 34 + 4,
	DO_CO_FIRSTLINENO = 34 + 5,
	DO_CO_ARGCOUNT = 34 + 6,
	DO_CO_CODE_ADAPTIVE = 34 + 9,
	DO_BYTES_SVAL = 64 + 2,
	DO_UNICODE_ASCII_SIZE = 67 + 3,
	DO_WORDS = 73,
};
_Static_assert(DO_WORDS * 8 == PY_DEBUG_OFFSETS_313_SIZE, "_Py_DebugOffsets 3.13 size");

int py_offsets_from_debug(const void *buf, size_t len, struct cp_py_offsets *out)
{
	static const struct {
		unsigned int word;
		size_t field;
	} map[] = {
		{DO_RT_INTERPRETERS_HEAD,
		 offsetof(struct cp_py_offsets, runtime_interpreters_head)},
		{DO_IS_THREADS_HEAD, offsetof(struct cp_py_offsets, interp_tstate_head)},
		{DO_TS_NEXT, offsetof(struct cp_py_offsets, tstate_next)},
		{DO_TS_INTERP, offsetof(struct cp_py_offsets, tstate_interp)},
		{DO_TS_CURRENT_FRAME, offsetof(struct cp_py_offsets, tstate_frame)},
		{DO_TS_THREAD_ID, offsetof(struct cp_py_offsets, tstate_thread_id)},
		{DO_TS_NATIVE_THREAD_ID, offsetof(struct cp_py_offsets, tstate_native_thread_id)},
		{DO_IF_PREVIOUS, offsetof(struct cp_py_offsets, iframe_previous)},
		{DO_IF_EXECUTABLE, offsetof(struct cp_py_offsets, iframe_code)},
		{DO_IF_INSTR_PTR, offsetof(struct cp_py_offsets, iframe_instr)},
		{DO_IF_OWNER, offsetof(struct cp_py_offsets, iframe_owner)},
		{DO_CO_FILENAME, offsetof(struct cp_py_offsets, code_filename)},
		{DO_CO_NAME, offsetof(struct cp_py_offsets, code_name)},
		{DO_CO_QUALNAME, offsetof(struct cp_py_offsets, code_qualname)},
		{DO_CO_LINETABLE, offsetof(struct cp_py_offsets, code_linetable)},
		{DO_CO_FIRSTLINENO, offsetof(struct cp_py_offsets, code_firstlineno)},
		{DO_CO_ARGCOUNT, offsetof(struct cp_py_offsets, code_argcount)},
		{DO_CO_CODE_ADAPTIVE, offsetof(struct cp_py_offsets, code_code)},
		{DO_BYTES_SVAL, offsetof(struct cp_py_offsets, bytes_sval)},
		{DO_UNICODE_ASCII_SIZE, offsetof(struct cp_py_offsets, str_ascii_data)},
	};
	struct cp_py_offsets o = *out;
	uint64_t w[DO_WORDS];
	size_t i;

	if (len < sizeof(w))
		return -EINVAL;
	memcpy(w, buf, sizeof(w));
	if (memcmp(&w[DO_COOKIE], "xdebugpy", 8))
		return -EINVAL;
	if (w[DO_FREE_THREADED])
		return -ENOTSUP;
	/* the layout read here is 3.13's, and the numbers must be for the version we have */
	if (PY_HEX_MINOR_OF((uint32_t)w[DO_VERSION]) != PY_HEX(3, 13, 0) ||
	    PY_HEX_MINOR_OF((uint32_t)w[DO_VERSION]) != PY_HEX_MINOR_OF(out->version) ||
	    w[DO_VERSION] >> 32)
		return -ENOTSUP;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint64_t v = w[map[i].word];
		__u16 v16;

		if (v >= CP_PY_NONE)
			return -EINVAL;
		v16 = (__u16)v;
		memcpy((char *)&o + map[i].field, &v16, sizeof(v16));
	}
	o.version = (uint32_t)w[DO_VERSION];
	*out = o;
	return 0;
}

int py_offsets_for_process(pid_t pid, const struct py_process *pp, struct cp_py_offsets *out,
			   enum py_offsets_source *src)
{
	uint8_t buf[PY_DEBUG_OFFSETS_313_SIZE];
	struct elf_named *en = NULL;
	int err;

	*src = PY_OFF_TABLE;
	err = py_offsets_table(pp->info.hexversion, pp->info.micro_known, out);
	if (err || pp->info.hexversion < PY_HEX(3, 13, 0) || !pp->info.runtime)
		return err;
	/* the process's own copy first: what it runs with */
	if (pid > 0 && !pmem_read(pid, pp->info.runtime + pp->bias, buf, sizeof(buf)) &&
	    !py_offsets_from_debug(buf, sizeof(buf), out)) {
		*src = PY_OFF_DEBUG_PROCESS;
		return 0;
	}
	if (pp->fd >= 0 && !elf_named__open(pp->fd, &en) &&
	    !elf_named__read(en, pp->info.runtime, buf, sizeof(buf)) &&
	    !py_offsets_from_debug(buf, sizeof(buf), out))
		*src = PY_OFF_DEBUG_FILE;
	elf_named__free(en);
	return 0;
}

static const struct {
	const char *name;
	size_t off;
} fields[] = {
#define F(n, f)                                      \
	{                                            \
		n, offsetof(struct cp_py_offsets, f) \
	}
	F("runtime.tstate_current", runtime_tstate_current),
	F("runtime.autotss_key", runtime_autotss_key),
	F("runtime.interpreters_head", runtime_interpreters_head),
	F("interp.tstate_head", interp_tstate_head),
	F("tstate.next", tstate_next),
	F("tstate.interp", tstate_interp),
	F("tstate.thread_id", tstate_thread_id),
	F("tstate.native_thread_id", tstate_native_thread_id),
	F("tstate.frame", tstate_frame),
	F("cframe.current_frame", cframe_current_frame),
	F("frame.f_back", frame_back),
	F("frame.f_code", frame_code),
	F("frame.f_lasti", frame_lasti),
	F("iframe.code", iframe_code),
	F("iframe.previous", iframe_previous),
	F("iframe.instr", iframe_instr),
	F("iframe.is_entry", iframe_is_entry),
	F("iframe.owner", iframe_owner),
	F("code.argcount", code_argcount),
	F("code.kwonlyargcount", code_kwonlyargcount),
	F("code.flags", code_flags),
	F("code.firstlineno", code_firstlineno),
	F("code.filename", code_filename),
	F("code.name", code_name),
	F("code.qualname", code_qualname),
	F("code.linetable", code_linetable),
	F("code.code", code_code),
	F("bytes.sval", bytes_sval),
	F("str.ascii_data", str_ascii_data),
#undef F
};

bool py_offsets_field(const struct cp_py_offsets *o, size_t i, const char **name, __u16 *value)
{
	if (i >= sizeof(fields) / sizeof(fields[0]))
		return false;
	*name = fields[i].name;
	memcpy(value, (const char *)o + fields[i].off, sizeof(*value));
	return true;
}

/* PyTypeObject.tp_basicsize and tp_members, the same from 2.7 to 3.13; PyMemberDef is
 * {name @0, type @8, offset @16, flags @24, doc @32} (interpreters.md 1.4, "constant"). */
#define TP_BASICSIZE	 32
#define TP_MEMBERS	 240
#define MEMBERDEF_SIZE	 40
#define MEMBERDEF_OFFSET 16
#define MAX_CODE_MEMBERS 64

int py_offsets_check_code(pid_t pid, const struct py_process *pp, const struct cp_py_offsets *o,
			  const char **mismatch)
{
	static const struct {
		const char *member;
		size_t field;
	} names[] = {
		{"co_argcount", offsetof(struct cp_py_offsets, code_argcount)},
		{"co_kwonlyargcount", offsetof(struct cp_py_offsets, code_kwonlyargcount)},
		{"co_flags", offsetof(struct cp_py_offsets, code_flags)},
		{"co_firstlineno", offsetof(struct cp_py_offsets, code_firstlineno)},
		{"co_filename", offsetof(struct cp_py_offsets, code_filename)},
		{"co_name", offsetof(struct cp_py_offsets, code_name)},
		{"co_qualname", offsetof(struct cp_py_offsets, code_qualname)},
		{"co_lnotab", offsetof(struct cp_py_offsets, code_linetable)},
		{"co_linetable", offsetof(struct cp_py_offsets, code_linetable)},
		{"co_code", offsetof(struct cp_py_offsets, code_code)},
	};
	uint64_t type = pp->info.code_type + pp->bias, members, basicsize;
	int compared = 0, err, i;
	size_t k;

	*mismatch = NULL;
	if ((err = pmem_read(pid, type + TP_MEMBERS, &members, sizeof(members))) ||
	    (err = pmem_read(pid, type + TP_BASICSIZE, &basicsize, sizeof(basicsize))))
		return err;
	if (!members)
		return -EINVAL;
	/* from 3.11 the bytecode is inline after the fixed part */
	if (o->frame_model == CP_PY_FRAMES_INTERP) {
		compared++;
		if (basicsize != o->code_code) {
			*mismatch = "code.code";
			return compared;
		}
	}
	for (i = 0; i < MAX_CODE_MEMBERS; i++) {
		uint8_t def[MEMBERDEF_SIZE];
		uint64_t name_at, off;
		char name[32];

		err = pmem_read(pid, members + (uint64_t)i * MEMBERDEF_SIZE, def, sizeof(def));
		if (err)
			return err;
		memcpy(&name_at, def, sizeof(name_at));
		memcpy(&off, def + MEMBERDEF_OFFSET, sizeof(off));
		if (!name_at)
			break; /* the table's sentinel */
		if (pmem_read(pid, name_at, name, sizeof(name)))
			continue; /* a name at the end of a mapping: not one of ours (all short) */
		name[sizeof(name) - 1] = 0;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			__u16 want;

			if (strcmp(name, names[k].member))
				continue;
			memcpy(&want, (const char *)o + names[k].field, sizeof(want));
			/* co_code is a member only while it is a pointer (<= 3.10) */
			if (want == CP_PY_NONE ||
			    (!strcmp(name, "co_code") && o->frame_model != CP_PY_FRAMES_OBJECT))
				break;
			compared++;
			if (off != want) {
				*mismatch = names[k].member;
				return compared;
			}
			break;
		}
	}
	return compared ? compared : -EINVAL;
}
