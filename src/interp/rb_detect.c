// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "interp/interp_version.h"
#include "interp/interp_find.h"
#include "interp/rb_detect.h"
#include "interp/rb_offsets.h"
#include "proc/proc_snapshot.h"
#include "ruby_shared.h"

bool rb_version_supported(uint32_t v)
{
	return v >= CP_RB_VER(2, 6, 0) && v < CP_RB_VER(3, 4, 0);
}

uint32_t rb_version_parse(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	unsigned int v[3], maj, min, teeny;

	if (interp_version_parse(&p, end, v, 3) != 3)
		return 0;
	maj = v[0];
	min = v[1];
	teeny = v[2];
	if (p < end && *p)
		return 0; /* "3.1.2" exactly (then the NUL) */
	if (maj < 1 || maj > 9 || min > 99 || teeny > 99)
		return 0;
	return CP_RB_VER(maj, min, teeny);
}

uint32_t rb_version_from_name(const char *name)
{
	const char *p = name ? strstr(name, "libruby") : NULL;
	const char *end;
	unsigned int v[3] = {0, 0, 0};
	int i;

	if (!p)
		return 0;
	p += strlen("libruby");
	end = p + strlen(p);
	/* libruby-3.1.so.3.1.2: the numbers after ".so." are the ones to trust */
	p = strstr(p, ".so.");
	if (!p)
		return 0;
	p += 4;
	i = interp_version_parse(&p, end, v, 3);
	if (i < 2 || v[0] < 1 || v[0] > 9)
		return 0;
	return CP_RB_VER(v[0], v[1], v[2]);
}

int64_t rb_tls_exec_tpoff(const struct elf_named_tls *tls, uint64_t st_value)
{
	uint64_t align = tls->align ? tls->align : 1;
	uint64_t firstbyte = (-(tls->vaddr & (align - 1))) & (align - 1);
	uint64_t off = ((tls->memsz - firstbyte + align - 1) / align) * align + firstbyte;

	return (int64_t)st_value - (int64_t)off;
}

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* A ModRM byte addressing disp32(%rip): mod 00, r/m 101. */
static bool rip_modrm(uint8_t m)
{
	return (m & 0xc7) == 0x05;
}

int rb_decode_id2str(const uint8_t *code, size_t n, uint64_t at, const uint8_t *target_code,
		     size_t n2, uint64_t *target, unsigned int ids_minus_last_id, uint64_t *symbols,
		     uint32_t *last_op_id)
{
	uint32_t op = 0;
	size_t i, j;

	/* cmp $imm32, %rdi (48 81 ff imm32), then jmp rel32 (e9) to the lookup */
	for (i = 0; i + 7 <= n; i++)
		if (code[i] == 0x48 && code[i + 1] == 0x81 && code[i + 2] == 0xff) {
			op = (uint32_t)le32(code + i + 3);
			break;
		}
	if (!op || op > 0x1000)
		return -ENOENT;
	for (i += 7; i + 5 <= n; i++)
		if (code[i] == 0xe9)
			break;
	if (i + 5 > n)
		return -ENOENT;
	*target = at + i + 5 + (uint64_t)(int64_t)le32(code + i + 1);
	if (!target_code)
		return -EAGAIN;
	/* cmp %r32, disp32(%rip) (39 /r), then mov disp32(%rip), %r64 (REX.W 8b /r) */
	for (i = 0; i + 6 <= n2; i++) {
		uint64_t last_id;

		if (target_code[i] != 0x39 || !rip_modrm(target_code[i + 1]))
			continue;
		last_id = *target + i + 6 + (uint64_t)(int64_t)le32(target_code + i + 2);
		for (j = i + 6; j + 7 <= n2 && j < i + 64; j++) {
			uint64_t ids;

			if ((target_code[j] & 0xf8) != 0x48 || target_code[j + 1] != 0x8b ||
			    !rip_modrm(target_code[j + 2]))
				continue;
			ids = *target + j + 7 + (uint64_t)(int64_t)le32(target_code + j + 3);
			if (ids == last_id + ids_minus_last_id) {
				*symbols = last_id;
				*last_op_id = op;
				return 0;
			}
		}
	}
	return -ENOENT;
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

/* ruby_global_symbols from rb_id2str's code (stripped builds: the symbol is not exported). */
static void find_global_symbols(const struct elf_named *en, struct rb_object_info *info)
{
	struct cp_rb_offsets off;
	uint8_t code[32], target_code[128];
	uint64_t id2str, target = 0;
	int err;

	info->global_symbols = sym_value(en, "ruby_global_symbols", NULL);
	id2str = sym_value(en, "rb_id2str", NULL);
	if (!id2str || rb_offsets_table(info->version, &off) ||
	    elf_named__read(en, id2str, code, sizeof(code)))
		return;
	err = rb_decode_id2str(code, sizeof(code), id2str, NULL, 0, &target,
			       off.symbols_ids - off.symbols_last_id, &info->global_symbols,
			       &info->last_op_id);
	if (err != -EAGAIN || elf_named__read(en, target, target_code, sizeof(target_code)))
		return;
	{
		uint64_t symbols = 0;

		if (!rb_decode_id2str(code, sizeof(code), id2str, target_code, sizeof(target_code),
				      &target, off.symbols_ids - off.symbols_last_id, &symbols,
				      &info->last_op_id) &&
		    (!info->global_symbols || info->global_symbols == symbols))
			info->global_symbols = symbols;
	}
}

int rb_detect_named(const struct elf_named *en, const char *name, struct rb_object_info *info)
{
	struct elf_named_sym s;
	uint64_t size = 0, start, end;
	char ver[16];

	memset(info, 0, sizeof(*info));
	if (elf_named__sym(en, "ruby_version", &s) || s.type != STT_OBJECT)
		return -ENOENT;
	info->vm_exec_start = sym_value(en, "rb_vm_exec", &size);
	if (!info->vm_exec_start)
		return -ENOENT;
	info->vm_exec_end = info->vm_exec_start + size;
	info->stripped = !elf_named__has_symtab(en);
	info->executable =
		elf_named__type(en) == ET_EXEC || !elf_named__section(en, ".interp", &start, &end);

	memset(ver, 0, sizeof(ver));
	if (s.size > 0 && s.size < sizeof(ver) &&
	    !elf_named__read(en, s.value, ver, (size_t)s.size) &&
	    (info->version = rb_version_parse(ver, strnlen(ver, sizeof(ver)))))
		info->source = RB_VER_SYMBOL;
	else if ((info->version = rb_version_from_name(name)))
		info->source = RB_VER_NAME;

	info->ec_ptr = sym_value(en, "ruby_current_execution_context_ptr", NULL);
	info->main_ractor = sym_value(en, "ruby_single_main_ractor", NULL);
	info->vm_ptr = sym_value(en, "ruby_current_vm_ptr", NULL);
	if (!elf_named__sym(en, "ruby_current_ec", &s) && s.type == STT_TLS) {
		int64_t addend;

		info->has_ec_tls = true;
		info->ec_tls_off = s.value;
		if (elf_named__reloc(en, "ruby_current_ec", R_X86_64_DTPMOD64, &info->ec_dtpmod_got,
				     &addend))
			info->ec_dtpmod_got = 0;
		if (elf_named__reloc(en, "ruby_current_ec", R_X86_64_TPOFF64, &info->ec_tpoff_got,
				     &addend))
			info->ec_tpoff_got = 0;
	}
	elf_named__tls(en, &info->tls);
	if (!info->version)
		return -ENOTSUP;
	find_global_symbols(en, info);
	if (!rb_version_supported(info->version))
		return -ENOTSUP;
	return 0;
}

static int detect_named(const struct elf_named *en, const char *name, void *info)
{
	return rb_detect_named(en, name, info);
}

int rb_detect_object(int fd, const char *name, struct rb_object_info *info)
{
	return interp_detect_elf(fd, name, info, sizeof(*info), detect_named);
}

static int detect_rb(int fd, const char *name, void *info)
{
	return rb_detect_object(fd, name, info);
}

int rb_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct rb_process *out)
{
	struct interp_found at;
	int err;

	memset(out, 0, sizeof(*out));
	err = interp_find(ps, pid, gen, plain, detect_rb, &out->info, sizeof(out->info), &at);
	out->bias = at.bias;
	out->dev = at.dev;
	out->ino = at.ino;
	out->fd = at.fd;
	return err;
}
