// SPDX-License-Identifier: GPL-2.0
/*
 * Ruby detection: versions from the ruby_version string and from file names; where the
 * thread-local execution context is (the TLS offset of an executable's variable, checked on
 * this test's own __thread variable against the thread pointer; Debian's libruby's
 * ruby_current_ec and its DTPMOD64 GOT slot); ruby_global_symbols decoded from rb_id2str's
 * code (synthetic code, and the stripped libruby); a live process's Ruby found among its
 * mappings, and the per-process values the walker gets, with the module id the loader wrote.
 */
#include <elf.h>
#include "cmocka_inc.h"
#include "interp_fixture.h"
#include "elf/elf_named.h"
#include "interp/rb_detect.h"
#include "interp/rb_offsets.h"
#include "interp/rb_proc.h"
#include "proc/proc_snapshot.h"

/* Two TLS variables of this executable, the second aligned, for rb_tls_exec_tpoff(). */
__thread char cp_rb_tls_pad[40] = {1};
__thread long cp_rb_tls_var __attribute__((aligned(64))) = 7;

static void test_version_parse(void **state)
{
	(void)state;
	assert_int_equal(rb_version_parse("3.1.2", 5), CP_RB_VER(3, 1, 2));
	assert_int_equal(rb_version_parse("3.1.2\0\0", 7), CP_RB_VER(3, 1, 2));
	assert_int_equal(rb_version_parse("2.6.10", 6), CP_RB_VER(2, 6, 10));
	assert_int_equal(rb_version_parse("3.1", 3), 0);
	assert_int_equal(rb_version_parse("3.1.2p20", 8), 0);
	assert_int_equal(rb_version_parse("x.1.2", 5), 0);
	assert_int_equal(rb_version_from_name("libruby-3.1.so.3.1.2"), CP_RB_VER(3, 1, 2));
	assert_int_equal(rb_version_from_name("libruby-3.1.so.3.1"), CP_RB_VER(3, 1, 0));
	assert_int_equal(rb_version_from_name("libruby.so.2.7.8"), CP_RB_VER(2, 7, 8));
	assert_int_equal(rb_version_from_name("libruby-static.a"), 0);
	assert_int_equal(rb_version_from_name("libpython3.11.so.1.0"), 0);
	assert_int_equal(rb_version_from_name("ruby3.1"), 0);
	assert_int_equal(rb_version_from_name(NULL), 0);
	assert_true(rb_version_supported(CP_RB_VER(2, 6, 0)));
	assert_true(rb_version_supported(CP_RB_VER(3, 3, 9)));
	assert_false(rb_version_supported(CP_RB_VER(2, 5, 9)));
	assert_false(rb_version_supported(CP_RB_VER(3, 4, 0)));
}

/* The offset rule for an executable's own TLS, against where the variable really is. */
static void test_tls_exec(void **state)
{
	struct elf_named_tls tls;
	struct elf_named_sym sym;
	struct elf_named *en;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	long real;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(elf_named__open(fd, &en), 0);
	assert_int_equal(elf_named__tls(en, &tls), 0);
	assert_int_equal(elf_named__sym(en, "cp_rb_tls_var", &sym), 0);
	assert_int_equal(sym.type, STT_TLS);
	assert_true(tls.align >= 64);
	real = (long)((char *)&cp_rb_tls_var - (char *)__builtin_thread_pointer());
	assert_int_equal(rb_tls_exec_tpoff(&tls, sym.value), real);
	assert_int_equal(cp_rb_tls_var + cp_rb_tls_pad[0], 8);
	elf_named__free(en);
	close(fd);

	/* p_vaddr not aligned to p_align: the block keeps the same misalignment below tp */
	tls = (struct elf_named_tls){.vaddr = 0x1008, .memsz = 0x10, .align = 16};
	assert_int_equal(rb_tls_exec_tpoff(&tls, 0), -24);
	tls = (struct elf_named_tls){.vaddr = 0x1000, .memsz = 0x11, .align = 16};
	assert_int_equal(rb_tls_exec_tpoff(&tls, 8), 8 - 0x20);
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

static void test_decode_id2str(void **state)
{
	/* rb_id2str at 0x1000: mov; shr; cmp $0xa9,%rdi; cmova; xor; jmp 0x2000 */
	uint8_t code[32] = {0x48, 0x89, 0xf8, 0x48, 0xc1, 0xe8, 0x04, 0x48, 0x81, 0xff,
			    0xa9, 0,	0,    0,    0x0f, 0x47, 0xf8, 0x31, 0xf6, 0xe9};
	uint8_t target[64] = {0};
	uint64_t t = 0, symbols = 0;
	uint32_t op = 0;

	(void)state;
	put32(code + 20, 0x2000 - (0x1000 + 24));
	assert_int_equal(
		rb_decode_id2str(code, sizeof(code), 0x1000, NULL, 0, &t, 16, &symbols, &op),
		-EAGAIN);
	assert_int_equal(t, 0x2000);
	/* at 0x2000 + 10: cmp %edi, 0x5000(%rip); at 0x2000 + 20: mov 0x5010(%rip), %rdi */
	target[10] = 0x39;
	target[11] = 0x3d;
	put32(target + 12, 0x5000 - (0x2000 + 16));
	target[20] = 0x48;
	target[21] = 0x8b;
	target[22] = 0x3d;
	put32(target + 23, 0x5010 - (0x2000 + 27));
	assert_int_equal(rb_decode_id2str(code, sizeof(code), 0x1000, target, sizeof(target), &t,
					  16, &symbols, &op),
			 0);
	assert_int_equal(symbols, 0x5000);
	assert_int_equal(op, 0xa9);
	/* the two addresses not 16 bytes apart: not global_symbols */
	put32(target + 23, 0x5018 - (0x2000 + 27));
	assert_int_equal(rb_decode_id2str(code, sizeof(code), 0x1000, target, sizeof(target), &t,
					  16, &symbols, &op),
			 -ENOENT);
	/* no comparison with tLAST_OP_ID: another function */
	code[9] = 0xfe;
	assert_int_equal(
		rb_decode_id2str(code, sizeof(code), 0x1000, NULL, 0, &t, 16, &symbols, &op),
		-ENOENT);
}

/* The libruby ruby links, by path ("" when there is none). */
static void libruby_path(char *buf, size_t size)
{
	FILE *f = tool_output("ldd \"$(command -v ruby)\" 2>/dev/null | "
			      "sed -n 's/.*libruby[^ ]* => \\([^ ]*\\) .*/\\1/p'");

	buf[0] = 0;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	pclose(f);
}

static void test_debian_libruby(void **state)
{
	struct rb_object_info info;
	char path[PATH_MAX];
	const char *base;
	int fd;

	(void)state;
	if (system("command -v ruby >/dev/null 2>&1"))
		cp_skip("ruby is missing (make deps)");
	libruby_path(path, sizeof(path));
	if (!path[0])
		cp_skip("ruby is not linked with libruby (a static ruby)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	base = strrchr(path, '/') + 1;
	assert_int_equal(rb_detect_object(fd, base, &info), 0);
	close(fd);
	print_message("%s: %u.%u.%u stripped %d ec tls off %llu dtpmod got 0x%llx tpoff got "
		      "0x%llx; PT_TLS %llu bytes; global_symbols 0x%llx last_op_id 0x%x\n",
		      path, info.version >> 16, (info.version >> 8) & 0xff, info.version & 0xff,
		      info.stripped, (unsigned long long)info.ec_tls_off,
		      (unsigned long long)info.ec_dtpmod_got, (unsigned long long)info.ec_tpoff_got,
		      (unsigned long long)info.tls.memsz, (unsigned long long)info.global_symbols,
		      info.last_op_id);
	assert_int_equal(info.source, RB_VER_SYMBOL);
	assert_true(rb_version_supported(info.version));
	assert_false(info.executable);
	assert_true(info.vm_exec_end > info.vm_exec_start);
	assert_true(info.has_ec_tls);
	assert_true(info.tls.memsz > info.ec_tls_off);
	/* general dynamic (Debian's 3.1) or initial exec: one of the two slots */
	assert_true(info.ec_dtpmod_got || info.ec_tpoff_got);
	/* exported, or decoded from rb_id2str on a stripped build */
	assert_true(info.global_symbols != 0);
	if (info.version >> 8 == CP_RB_VER(3, 1, 0) >> 8) {
		/* interpreters.md 2.1/4.3, measured on Debian's 3.1.2 */
		assert_int_equal(info.ec_tls_off, 8);
		assert_true(info.ec_dtpmod_got != 0);
		assert_int_equal(info.last_op_id, 0xa9);
		assert_true(info.main_ractor != 0);
	}
}

/* The ruby launcher is not Ruby; a running ruby is, and its EC is reached per thread. */
static void test_live(void **state)
{
	struct proc_snapshot *ps;
	struct cp_rb_offsets off;
	struct cp_rb_proc proc;
	struct rb_process rp;
	int err = -EAGAIN, i;
	char line[16];
	pid_t pid;
	FILE *f;

	(void)state;
	if (system("command -v ruby >/dev/null 2>&1"))
		cp_skip("ruby is missing (make deps)");
	pid = interp_start((const char *const[]){"ruby", "--disable-gems", "-e",
						 "$stdout.sync = true; puts 'up'; sleep 30", NULL},
			   &f, line, sizeof(line));
	ps = proc_snapshot__new("/proc");
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
	assert_int_equal(rb_detect_process(ps, (uint32_t)pid, 0, NULL, &rp), 0);
	assert_int_equal(rb_offsets_table(rp.info.version, &off), 0);
	for (i = 0; i < 50 && err == -EAGAIN; i++) {
		err = rb_proc_build(pid, &rp, &off, &proc);
		if (err == -EAGAIN)
			usleep(20000);
	}
	assert_int_equal(err, 0);
	assert_true(proc.ec_mode == CP_RB_EC_TLS_DTV || proc.ec_mode == CP_RB_EC_TLS_TP);
	if (proc.ec_mode == CP_RB_EC_TLS_DTV) {
		/* ruby itself has no TLS: libruby is module 1 (interpreters.md 2.1) */
		assert_int_equal(proc.tls_modid, 1);
		assert_int_equal(proc.tls_off, (int64_t)rp.info.ec_tls_off);
	}
	assert_true(proc.vm_exec_start == rp.info.vm_exec_start + rp.bias);
	interp_stop(pid, f);
	proc_snapshot__free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse), cmocka_unit_test(test_tls_exec),
		cmocka_unit_test(test_decode_id2str), cmocka_unit_test(test_debian_libruby),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
