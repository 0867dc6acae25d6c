// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "interp/interp_version.h"
#include "interp/interp_find.h"
#include "interp/pmem.h"
#include "interp/py_detect.h"
#include "proc/proc_snapshot.h"

/* _Py_DebugOffsets (3.13+) starts _PyRuntime: cookie[8], version u64, free_threaded u64
 * (CPython Include/internal/pycore_runtime.h, 3.13.0). */
#define PY_DEBUG_COOKIE "xdebugpy"

bool py_version_supported(uint32_t h)
{
	uint32_t mm = PY_HEX_MINOR_OF(h);

	return mm == PY_HEX(2, 7, 0) || (mm >= PY_HEX(3, 6, 0) && mm <= PY_HEX(3, 13, 0));
}

uint32_t py_version_parse(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	unsigned int v[3], maj, min, mic;
	uint32_t level = 0xf0; /* final */

	if (interp_version_parse(&p, end, v, 3) != 3)
		return 0;
	maj = v[0];
	min = v[1];
	mic = v[2];
	if (maj < 2 || maj > 3 || min > 99 || mic > 99)
		return 0;
	/* a pre-release: 3.13.0rc1, 3.12.0a4, 3.11.0b2 (serial ignored) */
	if (p < end && (*p == 'a' || *p == 'b' || *p == 'r')) {
		level = *p == 'a' ? 0xa0 : *p == 'b' ? 0xb0 : 0xc0;
		while (p < end && *p != ' ' && *p != '+')
			p++;
	}
	if (p < end && *p == '+') /* 3.12.1+ (a distribution's build between releases) */
		p++;
	if (p >= end || *p != ' ')
		return 0;
	return PY_HEX(maj, min, mic) | level;
}

uint32_t py_version_from_name(const char *name)
{
	const char *p = name ? strstr(name, "python") : NULL;
	const char *end;
	unsigned int v[2], maj, min;

	if (!p)
		return 0;
	p += strlen("python");
	end = p + strlen(p);
	if (interp_version_parse(&p, end, v, 2) != 2)
		return 0;
	maj = v[0];
	min = v[1];
	/* what may follow: nothing, the ABI flags (3.6m, 3.13t, 3.7dm), ".so", "-config"... */
	if (maj < 2 || maj > 3)
		return 0;
	return PY_HEX(maj, min, 0);
}

static uint64_t sym_value(const struct elf_named *en, const char *name, uint64_t *size)
{
	struct elf_named_sym s;

	if (elf_named__sym(en, name, &s))
		return 0;
	if (size)
		*size = s.size;
	return s.value;
}

/* Py_Version: PY_VERSION_HEX as a const u32 in .rodata (3.11+). */
static uint32_t version_from_py_version(const struct elf_named *en)
{
	struct elf_named_sym s;
	uint32_t v;

	if (elf_named__sym(en, "Py_Version", &s) || s.type != STT_OBJECT || s.size < 4 ||
	    elf_named__read(en, s.value, &v, sizeof(v)))
		return 0;
	return v;
}

/* _Py_DebugOffsets at the start of _PyRuntime's initial value in .data (3.13+). */
static uint32_t version_from_debug_offsets(const struct elf_named *en, uint64_t runtime,
					   bool *free_threaded)
{
	uint8_t head[24];
	uint64_t ver, ft;

	if (!runtime || elf_named__read(en, runtime, head, sizeof(head)) ||
	    memcmp(head, PY_DEBUG_COOKIE, 8))
		return 0;
	memcpy(&ver, head + 8, 8);
	memcpy(&ft, head + 16, 8);
	*free_threaded = ft != 0;
	return (uint32_t)ver;
}

int py_detect_named(const struct elf_named *en, const char *name, struct py_object_info *info)
{
	uint32_t v, from_name;
	uint64_t size = 0;

	memset(info, 0, sizeof(*info));
	info->tss_tstate_tlsoff = -1;
	info->stripped = !elf_named__has_symtab(en);
	info->runtime = sym_value(en, "_PyRuntime", &info->runtime_size);
	info->tstate_current = sym_value(en, "_PyThreadState_Current", NULL);
	info->eval_start = sym_value(en, "_PyEval_EvalFrameDefault", &size);
	if (!info->eval_start)
		info->eval_start = sym_value(en, "PyEval_EvalFrameEx", &size); /* 2.7 */
	info->eval_end = info->eval_start + size;
	if (!(info->runtime || info->tstate_current) || !info->eval_start)
		return -ENOENT;
	info->code_type = sym_value(en, "PyCode_Type", NULL);
	info->none = sym_value(en, "_Py_NoneStruct", NULL);
	if (!info->code_type)
		return -ENOENT;
	/* .symtab only: absent from stripped builds, which do without them */
	info->eval_cold_start = sym_value(en, "_PyEval_EvalFrameDefault.cold", &size);
	info->eval_cold_end = info->eval_cold_start ? info->eval_cold_start + size : 0;
	info->interp_head = sym_value(en, "interp_head", NULL);
	info->auto_tls_key = sym_value(en, "autoTLSkey", NULL);
	{
		struct elf_named_sym s;

		if (!elf_named__sym(en, "_Py_tss_tstate", &s) && s.type == STT_TLS)
			info->tss_tstate_tlsoff = (int64_t)s.value;
	}

	from_name = py_version_from_name(name);
	if ((v = version_from_py_version(en))) {
		info->source = PY_VER_PY_VERSION;
		info->micro_known = true;
	} else if ((v = version_from_debug_offsets(en, info->runtime, &info->free_threaded))) {
		info->source = PY_VER_DEBUG_OFFSETS;
		info->micro_known = true;
	} else if ((v = from_name)) {
		info->source = PY_VER_NAME;
	}
	info->hexversion = v;
	if (info->source == PY_VER_PY_VERSION && PY_HEX_MINOR_OF(v) >= PY_HEX(3, 13, 0))
		version_from_debug_offsets(en, info->runtime, &info->free_threaded);
	/* libpython3.13t: the free-threaded ABI (its debug offsets may not be readable) */
	if (name && strstr(name, "python3.") && from_name && strstr(name, "t.so"))
		info->free_threaded = true;
	if (!v)
		return -ENOTSUP; /* CPython, but which? (a renamed static build before 3.11) */
	if (info->free_threaded || !py_version_supported(v))
		return -ENOTSUP;
	return 0;
}

static int detect_named(const struct elf_named *en, const char *name, void *info)
{
	return py_detect_named(en, name, info);
}

int py_detect_object(int fd, const char *name, struct py_object_info *info)
{
	return interp_detect_elf(fd, name, info, sizeof(*info), detect_named);
}

/* sys.version: "X.Y.Z[...] (" right after a NUL (the buffer's start). */
static uint32_t scan_version(const char *buf, size_t len, uint32_t minor)
{
	size_t i;

	for (i = 0; i + 8 < len; i++) {
		uint32_t v;

		if ((i && buf[i - 1]) || buf[i] != '0' + (char)PY_HEX_MAJOR(minor) ||
		    buf[i + 1] != '.')
			continue;
		v = py_version_parse(buf + i, len - i);
		if (!v || PY_HEX_MINOR_OF(v) != minor)
			continue;
		/* "X.Y.Z (" then the build info in parentheses */
		{
			const char *sp = memchr(buf + i, ' ', len - i);

			if (sp && sp + 1 < buf + len && sp[1] == '(')
				return v;
		}
	}
	return 0;
}

int py_detect_version_in_process(pid_t pid, const struct elf_named *en, uint64_t bias,
				 struct py_object_info *info)
{
	static const char *const sections[] = {".bss", ".data"};
	enum { CHUNK = 64 * 1024, OVERLAP = 256 };
	char *buf = malloc(CHUNK);
	int err = -ENOENT;
	size_t k;

	if (!buf)
		return -ENOMEM;
	for (k = 0; k < sizeof(sections) / sizeof(sections[0]) && err == -ENOENT; k++) {
		uint64_t start, end, at;

		if (elf_named__section(en, sections[k], &start, &end))
			continue;
		for (at = start; at < end; at += CHUNK - OVERLAP) {
			size_t len = end - at < CHUNK ? (size_t)(end - at) : CHUNK;
			uint32_t v;
			int r = pmem_read(pid, at + bias, buf, len);

			if (r) {
				err = r;
				goto cleanup;
			}
			v = scan_version(buf, len, PY_HEX_MINOR_OF(info->hexversion));
			if (v) {
				info->hexversion = v;
				info->micro_known = true;
				info->source = PY_VER_PROCESS;
				err = 0;
				goto cleanup;
			}
			if (len < CHUNK)
				break;
		}
	}
cleanup:
	free(buf);
	return err;
}

static int detect_py(int fd, const char *name, void *info)
{
	return py_detect_object(fd, name, info);
}

int py_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct py_process *out)
{
	struct interp_found at;
	struct elf_named *en = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_py, &out->info, sizeof(out->info), &at);
	out->bias = at.bias;
	out->dev = at.dev;
	out->ino = at.ino;
	out->fd = at.fd;
	if (err || out->info.micro_known)
		return err;
	err = elf_named__open(out->fd, &en);
	if (err)
		return err;
	err = py_detect_version_in_process((pid_t)pid, en, out->bias, &out->info);
	elf_named__free(en);
	/* no sys.version yet (the process has not initialised): the minor version stands */
	return err == -ENOENT ? 0 : err;
}
