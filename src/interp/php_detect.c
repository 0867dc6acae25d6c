// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "elf/elf_named.h"
#include "interp/interp_find.h"
#include "interp/interp_version.h"
#include "interp/php_detect.h"

/* the rodata string the version follows (main/SAPI.c, PHP 5-8) */
static const char POWERED[] = "X-Powered-By: PHP/";
/* .rodata is read in chunks this large, overlapping by the string's length */
#define RODATA_CHUNK 65536

uint32_t php_version_parse(const char *s, size_t len)
{
	unsigned int v[3];
	const char *p = s;

	if (interp_version_parse(&p, s + len, v, 3) != 3 || v[0] < 5 || v[0] > 9 || v[1] > 99 ||
	    v[2] > 255)
		return 0;
	return CP_PHP_VER(v[0], v[1], v[2]);
}

int php_offsets_table(uint32_t version, struct cp_php_offsets *off)
{
	if (version < CP_PHP_VER(7, 3, 0) || version >= CP_PHP_VER(8, 6, 0))
		return -ENOTSUP;
	memset(off, 0, sizeof(*off));
	off->version = version;
	/*
	 * OTel eBPF profiler interpreter/php/php.go (7.3-8.5); the 8.2 values checked against
	 * Debian's php8.2-dev headers by scripts/php-offsets-headers.sh (offsetof), the others
	 * untested here.
	 */
	off->eg_current_execute_data = version >= CP_PHP_VER(8, 5, 0) ? 512 : 488;
	off->ed_opline = 0;	 /* zend_execute_data.opline */
	off->ed_func = 24;	 /* .func */
	off->ed_type_info = 40;	 /* .This (32) + zval.u1.type_info (8) */
	off->ed_prev = 48;	 /* .prev_execute_data */
	off->func_name = 8;	 /* zend_function.common.function_name */
	off->func_scope = 16;	 /* .common.scope */
	off->zstr_val = 24;	 /* zend_string.val */
	off->ce_name = 8;	 /* zend_class_entry.name */
	off->opline_lineno = 24; /* zend_op.lineno */
	/* zend_op_array.filename / line_start: the only fields that move from 7.3 to 8.5 */
	if (version >= CP_PHP_VER(8, 4, 0))
		off->op_filename = 168;
	else if (version >= CP_PHP_VER(8, 3, 0))
		off->op_filename = 144;
	else if (version >= CP_PHP_VER(8, 2, 0))
		off->op_filename = 152;
	else if (version >= CP_PHP_VER(8, 0, 0))
		off->op_filename = 144;
	else if (version >= CP_PHP_VER(7, 4, 0))
		off->op_filename = 136;
	else
		off->op_filename = 128;
	off->op_line_start = off->op_filename + 8;
	return 0;
}

/* The version after "X-Powered-By: PHP/" in .rodata; 0 when not found. */
static uint32_t rodata_version(const struct elf_named *en)
{
	uint64_t start, end, at;
	size_t plen = sizeof(POWERED) - 1;
	uint32_t v = 0;
	char *buf;

	if (elf_named__section(en, ".rodata", &start, &end) || end <= start ||
	    end - start > (256u << 20))
		return 0;
	buf = malloc(RODATA_CHUNK);
	if (!buf)
		return 0;
	for (at = start; at < end && !v; at += RODATA_CHUNK - plen - 16) {
		size_t n = end - at < RODATA_CHUNK ? (size_t)(end - at) : RODATA_CHUNK;
		const char *p;

		if (elf_named__read(en, at, buf, n))
			break;
		p = memmem(buf, n, POWERED, plen);
		if (p && (size_t)(p - buf) + plen < n)
			v = php_version_parse(p + plen, n - (size_t)(p - buf) - plen);
		if (n < RODATA_CHUNK)
			break;
	}
	free(buf);
	return v;
}

static int detect_named(const struct elf_named *en, const char *name, void *out)
{
	struct php_object_info *info = out;
	struct elf_named_sym eg, ex, egoff;
	struct cp_php_offsets off;

	(void)name;
	memset(info, 0, sizeof(*info));
	/* ZTS exports executor_globals_offset instead (TSRM): refused */
	if (!elf_named__sym(en, "executor_globals_offset", &egoff) &&
	    !elf_named__sym(en, "execute_ex", &ex))
		return -ENOTSUP;
	if (elf_named__sym(en, "executor_globals", &eg) || elf_named__sym(en, "execute_ex", &ex) ||
	    ex.type != 2 /* STT_FUNC */)
		return -ENOENT;
	info->eg = eg.value;
	info->exec_start = ex.value;
	info->exec_end = ex.value + (ex.size ? ex.size : 1);
	info->version = rodata_version(en);
	return php_offsets_table(info->version, &off);
}

int php_detect_object(int fd, const char *name, struct php_object_info *info)
{
	return interp_detect_elf(fd, name, info, sizeof(*info), detect_named);
}

static int detect_php(int fd, const char *name, void *info)
{
	return php_detect_object(fd, name, info);
}

int php_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		       struct interp_plain *plain, struct cp_php_proc *out)
{
	struct php_object_info info;
	struct interp_found at;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_php, &info, sizeof(info), &at);
	if (err)
		return err;
	err = php_offsets_table(info.version, &out->off);
	if (err)
		return err;
	out->eg = info.eg + at.bias;
	out->exec_start = info.exec_start + at.bias;
	out->exec_end = info.exec_end + at.bias;
	out->gen = gen;
	return 0;
}
