// SPDX-License-Identifier: GPL-2.0
/*
 * debug_minidebuginfo on the MiniDebugInfo fixture (inl_fix.mini) and on a decompression
 * bomb: 256 MiB of zeros xz-compressed into .gnu_debugdata of a copy of it, which must be
 * refused at the cap instead of inflated.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "symbol/debug_find.h"

static int minidebug(const char *path, size_t *size)
{
	void *image = NULL;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	err = debug_minidebuginfo(elf, &image, size);
	if (!err)
		assert_true(*size > 0 && *size <= CP_MAX_MINIDEBUG);
	free(image);
	elf_end(elf);
	close(fd);
	return err;
}

static void test_fixture(void **state)
{
	char path[PATH_MAX];
	size_t size = 0;

	(void)state;
	fixture(path, sizeof(path), "inl_fix.mini");
	assert_int_equal(minidebug(path, &size), 0);
	/* an ELF image: the symbols of inl_fix */
	assert_true(size > 64);
	fixture(path, sizeof(path), "inl_fix");
	assert_int_equal(minidebug(path, &size), -ENOENT);
}

static void test_bomb(void **state)
{
	char path[PATH_MAX], dir[] = "/tmp/cpuprof-bomb-XXXXXX";
	size_t size = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fixture(path, sizeof(path), "inl_fix.nolink");
	tool_done(tool_output("head -c 256M /dev/zero | xz -0 -T1 > '%s/zeros.xz' && "
			      "objcopy --add-section .gnu_debugdata='%s/zeros.xz' '%s' '%s/bomb'",
			      dir, dir, path, dir));
	snprintf(path, sizeof(path), "%s/bomb", dir);
	assert_int_equal(minidebug(path, &size), -EFBIG);
	tool_done(tool_output("rm -rf '%s'", dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_bomb),
	};

	elf_version(EV_CURRENT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
