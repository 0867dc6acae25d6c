// SPDX-License-Identifier: GPL-2.0
/*
 * elf_unpack: a file with compressed debug sections copied with them inflated, checked against
 * libelf's own inflation of the same sections; the sections cpuprof never reads left out;
 * refusals (nothing compressed, damaged streams, caps, a directory in memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "cmocka_inc.h"
#include "elf/elf_unpack.h"

static const char *fixdir(void)
{
	const char *d = getenv("CPUPROF_FIXTURES");

	return d ? d : "build/rel/fixtures";
}

/* the whole file, malloc'ed */
static uint8_t *slurp(const char *name, size_t *size)
{
	char path[4096];
	struct stat st;
	uint8_t *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fixdir(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size);
	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return p;
}

/* A directory on disk for the unpacked files (cmocka_inc.h). */
static const char *dir(void)
{
	return cp_disk_dir(fixdir());
}

static bool drop_abbrev(const char *name)
{
	return !strcmp(name, ".debug_abbrev");
}

/* Section name's data in elf, inflated by libelf when compressed (a copy of the image's). */
static Elf_Data *section(Elf *elf, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		assert_non_null(gelf_getshdr(scn, &sh));
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, name))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED) {
			assert_int_equal(elf_compress(scn, 0, 0), 1);
			assert_non_null(gelf_getshdr(scn, &sh));
		}
		*out = sh;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

static void test_inflated_like_libelf(void **state)
{
	static const char *const names[] = {".debug_info", ".debug_abbrev", ".debug_line",
					    ".debug_str",  ".symtab",	    ".strtab"};
	size_t size, usize;
	uint8_t *img = slurp("inl_fix.zlib", &size), *copy;
	struct stat st;
	Elf *orig, *un;
	void *map;
	int fd;

	(void)state;
	if (!dir())
		cp_skip("no directory on disk to unpack to");
	elf_version(EV_CURRENT);
	fd = elf_unpack(img, size, dir(), 1u << 30, NULL);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	usize = (size_t)st.st_size;
	map = mmap(NULL, usize, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	/* libelf may write to the image it inflates in */
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, img, size);
	orig = elf_memory((char *)copy, size);
	un = elf_memory(map, usize);
	assert_non_null(orig);
	assert_non_null(un);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		GElf_Shdr so, su;
		Elf_Data *a = section(orig, names[i], &so), *b;

		if (!a)
			continue;
		b = section(un, names[i], &su);
		assert_non_null(b);
		/* stored plainly: nothing left for libdw to inflate */
		assert_false(su.sh_flags & SHF_COMPRESSED);
		assert_int_equal(a->d_size, b->d_size);
		assert_memory_equal(a->d_buf, b->d_buf, a->d_size);
	}
	{
		GElf_Shdr sh;

		/* the fixture has compressed DWARF, or this test checks nothing */
		assert_non_null(section(orig, ".debug_info", &sh));
	}
	elf_end(orig);
	elf_end(un);
	munmap(map, usize);
	free(copy);
	free(img);
}

/* A dropped section has no name and no bytes left. */
static void test_drop(void **state)
{
	size_t size;
	uint8_t *img = slurp("inl_fix.zlib", &size);
	int fd, n_loc = 0, n_info = 0;
	struct stat st;
	Elf *elf;
	void *map;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	(void)state;
	if (!dir())
		cp_skip("no directory on disk to unpack to");
	elf_version(EV_CURRENT);
	fd = elf_unpack(img, size, dir(), 1u << 30, drop_abbrev);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	elf = elf_memory(map, (size_t)st.st_size);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		assert_non_null(gelf_getshdr(scn, &sh));
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		assert_false(sh.sh_flags & SHF_COMPRESSED);
		if (n && drop_abbrev(n))
			n_loc++;
		n_info += n && !strcmp(n, ".debug_info") && sh.sh_size > 0;
	}
	/* .debug_abbrev gone, .debug_info kept */
	assert_int_equal(n_loc, 0);
	assert_int_equal(n_info, 1);
	elf_end(elf);
	munmap(map, (size_t)st.st_size);
	free(img);
}

static void test_refusals(void **state)
{
	size_t size, zsize;
	uint8_t *plain = slurp("inl_fix", &size), *z = slurp("inl_fix.zlib", &zsize);
	struct statfs sf;

	(void)state;
	if (!dir())
		cp_skip("no directory on disk to unpack to");
	/* nothing compressed */
	assert_int_equal(elf_unpack(plain, size, dir(), 1u << 30, NULL), -ENOENT);
	/* not ELF, cut short */
	assert_int_equal(elf_unpack(plain + 1, size - 1, dir(), 1u << 30, NULL), -ENOEXEC);
	assert_int_equal(elf_unpack(z, 40, dir(), 1u << 30, NULL), -ENOEXEC);
	/* over the cap */
	assert_int_equal(elf_unpack(z, zsize, dir(), 100, NULL), -EFBIG);
	assert_int_equal(elf_unpack(z, zsize, NULL, 1u << 30, NULL), -EINVAL);
	/* a directory in memory: the bytes would stay in memory */
	if (!statfs("/dev/shm", &sf) && (unsigned long)sf.f_type == 0x01021994)
		assert_int_equal(elf_unpack(z, zsize, "/dev/shm", 1u << 30, NULL), -EXDEV);
	free(plain);
	free(z);
}

/* Every compressed stream damaged in turn: refused, never a file of wrong bytes. */
static void test_damaged(void **state)
{
	size_t size;
	uint8_t *img = slurp("inl_fix.zlib", &size);
	Elf64_Ehdr eh;
	int refused = 0;

	(void)state;
	if (!dir())
		cp_skip("no directory on disk to unpack to");
	memcpy(&eh, img, sizeof(eh));
	for (unsigned int i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		Elf64_Chdr ch;
		uint8_t saved[16];
		int fd;

		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (!(sh.sh_flags & SHF_COMPRESSED) || sh.sh_size < sizeof(ch) + sizeof(saved))
			continue;
		/* the stated size one more than the stream holds */
		memcpy(&ch, img + sh.sh_offset, sizeof(ch));
		ch.ch_size++;
		memcpy(img + sh.sh_offset, &ch, sizeof(ch));
		assert_int_equal(elf_unpack(img, size, dir(), 1u << 30, NULL), -EINVAL);
		ch.ch_size -= 2;
		memcpy(img + sh.sh_offset, &ch, sizeof(ch));
		assert_int_equal(elf_unpack(img, size, dir(), 1u << 30, NULL), -EINVAL);
		ch.ch_size++;
		memcpy(img + sh.sh_offset, &ch, sizeof(ch));
		/* the stream's first bytes garbage */
		memcpy(saved, img + sh.sh_offset + sizeof(ch), sizeof(saved));
		memset(img + sh.sh_offset + sizeof(ch), 0xa5, sizeof(saved));
		fd = elf_unpack(img, size, dir(), 1u << 30, NULL);
		assert_int_equal(fd, -EINVAL);
		memcpy(img + sh.sh_offset + sizeof(ch), saved, sizeof(saved));
		refused++;
	}
	assert_true(refused > 0);
	free(img);
}

/* the whole content of the unpacked file fd, malloc'ed, its size in *size; fd closed */
static uint8_t *read_fd(int fd, size_t *size)
{
	struct stat st;
	uint8_t *p;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size);
	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return p;
}

/*
 * A stream's zlib checksum (its last 4 bytes) damaged: the same file all the same (the raw
 * inflation never reads it); its header's method changed: refused.
 */
static void test_checksum_not_read(void **state)
{
	size_t size, n_good, n_bad;
	uint8_t *img = slurp("inl_fix.zlib", &size), *good, *bad;
	Elf64_Ehdr eh;
	int damaged = 0;

	(void)state;
	if (!dir())
		cp_skip("no directory on disk to unpack to");
	good = read_fd(elf_unpack(img, size, dir(), 1u << 30, NULL), &n_good);
	memcpy(&eh, img, sizeof(eh));
	for (unsigned int i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		uint8_t *z;

		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (!(sh.sh_flags & SHF_COMPRESSED) || sh.sh_size < sizeof(Elf64_Chdr) + 8)
			continue;
		img[sh.sh_offset + sh.sh_size - 1] ^= 0xff;
		damaged++;
		/* CM 8 (deflate) to 7: not deflate */
		z = img + sh.sh_offset + sizeof(Elf64_Chdr);
		z[0] = (uint8_t)((z[0] & 0xf0) | 7);
		assert_int_equal(elf_unpack(img, size, dir(), 1u << 30, NULL), -EINVAL);
		z[0] = (uint8_t)((z[0] & 0xf0) | 8);
	}
	assert_true(damaged > 0);
	bad = read_fd(elf_unpack(img, size, dir(), 1u << 30, NULL), &n_bad);
	assert_int_equal(n_bad, n_good);
	assert_memory_equal(bad, good, n_good);
	free(good);
	free(bad);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflated_like_libelf),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_checksum_not_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
