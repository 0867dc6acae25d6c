// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <pthread.h>
#include "symbol/debug_find.h"
#include "util/safe_file.h"

/* ELF gABI: ch_type of a zstd-compressed section (not in elfutils 0.188's elf.h) */
#define CP_ELFCOMPRESS_ZSTD 2

static const char *const host_root[] = {"", NULL};
static const char *const default_dirs[] = {DEBUG_FIND_DEFAULT_DIR, NULL};

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

int debug_build_id(Elf *elf, const uint8_t **id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, name_off, desc_off;
		Elf_Data *data;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
				*id = (const uint8_t *)data->d_buf + desc_off;
				*len = nh.n_descsz;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* True when the file open on fd has the same build-id as (id, len). */
static bool same_build_id(int fd, const uint8_t *id, size_t len)
{
	/* read, not mapped: a candidate truncated meanwhile makes a read fail, not SIGBUS */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	const uint8_t *other;
	size_t olen;
	bool same;

	if (!elf)
		return false;
	same = debug_build_id(elf, &other, &olen) == 0 && olen == len && !memcmp(id, other, len);
	elf_end(elf);
	return same;
}

static bool crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return n == 0 && (uint32_t)crc == want;
}

/*
 * Open a candidate debug file: any user can plant one (a FIFO, a link to /dev/zero), so only
 * a regular file of sane size is read. The descriptor or -errno.
 */
static int open_file(const char *path)
{
	return safe_open(path, CP_MAX_DEBUG_FILE, NULL);
}

static int by_build_id(const uint8_t *id, size_t len, const struct debug_paths *dp, char *found,
		       size_t found_size)
{
	char hex[2 * 64 + 1], path[PATH_MAX];

	if (len < 2 || len > 64)
		return -ENOENT;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (const char *const *r = dp->roots; *r; r++) {
		for (const char *const *d = dp->debug_dirs; *d; d++) {
			int fd;

			if ((size_t)snprintf(path, sizeof(path), "%s%s/.build-id/%.2s/%s.debug", *r,
					     *d, hex, hex + 2) >= sizeof(path))
				continue;
			fd = open_file(path);
			if (fd < 0)
				continue;
			if (same_build_id(fd, id, len)) {
				snprintf(found, found_size, "%s", path);
				return fd;
			}
			close(fd);
		}
	}
	return -ENOENT;
}

/* .gnu_debuglink: the file name, NUL, padding to 4, then the CRC32 of the debug file. */
static int read_debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t nlen, crc_off;

	if (!data || !data->d_buf || data->d_size < 8)
		return -ENOENT;
	nlen = strnlen(data->d_buf, data->d_size);
	crc_off = (nlen + 4) & ~(size_t)3;
	if (nlen == 0 || crc_off + 4 > data->d_size)
		return -ENOENT;
	*name = data->d_buf;
	/* the CRC is in the object's byte order: little-endian on the x86_64 we support */
	memcpy(crc, (const char *)data->d_buf + crc_off, 4);
	return 0;
}

/* Open candidate path; keep it when it is the debug file the object asks for. */
static int try_candidate(const char *path, const uint8_t *id, size_t len, uint32_t crc, char *found,
			 size_t found_size)
{
	int fd = open_file(path);

	if (fd < 0)
		return fd;
	/* a build-id is the stronger check; the CRC covers objects built without one */
	if (id ? same_build_id(fd, id, len) : crc_matches(fd, crc)) {
		snprintf(found, found_size, "%s", path);
		return fd;
	}
	close(fd);
	return -ENOENT;
}

static int by_debuglink(Elf *elf, const char *objpath, const struct debug_paths *dp, char *found,
			size_t found_size)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const uint8_t *id = NULL;
	const char *name, *slash;
	size_t len = 0;
	uint32_t crc;
	int fd;

	if (read_debuglink(elf, &name, &crc) || !objpath || objpath[0] != '/')
		return -ENOENT;
	if (debug_build_id(elf, &id, &len))
		id = NULL;
	slash = strrchr(objpath, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - objpath), objpath);
	for (const char *const *r = dp->roots; *r; r++) {
		/* next to the object (unless that is the object itself: same build-id) */
		if (strcmp(name, slash + 1) != 0 &&
		    (size_t)snprintf(path, sizeof(path), "%s%s/%s", *r, dir, name) < sizeof(path) &&
		    (fd = try_candidate(path, id, len, crc, found, found_size)) >= 0)
			return fd;
		if ((size_t)snprintf(path, sizeof(path), "%s%s/.debug/%s", *r, dir, name) <
			    sizeof(path) &&
		    (fd = try_candidate(path, id, len, crc, found, found_size)) >= 0)
			return fd;
		for (const char *const *d = dp->debug_dirs; *d; d++)
			if ((size_t)snprintf(path, sizeof(path), "%s%s%s/%s", *r, *d, dir, name) <
				    sizeof(path) &&
			    (fd = try_candidate(path, id, len, crc, found, found_size)) >= 0)
				return fd;
	}
	return -ENOENT;
}

/*
 * libdebuginfod, loaded at the first question (dlopen): linked, it and the 28 libraries it
 * needs (libcurl, GnuTLS, Kerberos...) were loaded and relocated at every start of cpuprof,
 * about 10 ms, with or without --debuginfod.
 */
static struct {
	void *handle; /* kept open for the life of the process */
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find;
	__typeof__(debuginfod_end) *end;
} dbgd;
static pthread_once_t dbgd_once = PTHREAD_ONCE_INIT;

static void dbgd_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&dbgd.begin = dlsym(h, "debuginfod_begin");
	*(void **)&dbgd.find = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&dbgd.end = dlsym(h, "debuginfod_end");
	if (!dbgd.begin || !dbgd.find || !dbgd.end) {
		dbgd.begin = NULL;
		dlclose(h);
		return;
	}
	dbgd.handle = h;
}

/*
 * The debug file of build-id id from a debuginfod server ($DEBUGINFOD_URLS; client cache).
 * A failure other than "not found" is noted in *net_err (when 0 and not NULL); without
 * libdebuginfod that is -ELIBACC.
 */
static int by_debuginfod(const uint8_t *id, size_t len, char *found, size_t found_size,
			 int *net_err)
{
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	pthread_once(&dbgd_once, dbgd_load);
	if (!dbgd.begin) {
		if (net_err && !*net_err)
			*net_err = -ELIBACC;
		return -ENOENT;
	}
	c = dbgd.begin();
	if (!c)
		return -ENOENT;
	fd = dbgd.find(c, id, (int)len, &path);
	dbgd.end(c);
	if (fd < 0 && fd != -ENOENT && net_err && !*net_err)
		*net_err = fd;
	if (fd < 0) {
		free(path);
		return -ENOENT;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	snprintf(found, found_size, "%s", path ? path : "");
	free(path);
	return fd;
}

int debug_find_file(Elf *elf, const char *path, const struct debug_paths *dp, char *found,
		    size_t found_size)
{
	struct debug_paths d = {host_root, default_dirs, false, NULL, NULL};
	const uint8_t *id = NULL;
	size_t len = 0;
	int fd;

	if (dp && dp->roots)
		d.roots = dp->roots;
	if (dp && dp->debug_dirs)
		d.debug_dirs = dp->debug_dirs;
	if (debug_build_id(elf, &id, &len) == 0) {
		fd = by_build_id(id, len, &d, found, found_size);
		if (fd >= 0)
			return fd;
	} else {
		id = NULL;
	}
	fd = by_debuglink(elf, path, &d, found, found_size);
	/* the network last, and only when asked for */
	if (fd < 0 && id && dp && dp->debuginfod)
		fd = by_debuginfod(id, len, found, found_size, dp->debuginfod_err);
	return fd;
}

int debug_minidebuginfo(Elf *elf, void **image, size_t *size)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = 0, len = 0;
	Elf_Data *data;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	lzma_ret ret;
	char *buf = NULL;
	int err = 0;

	*image = NULL;
	*size = 0;
	scn = find_section(elf, ".gnu_debugdata", &shdr);
	data = scn && shdr.sh_type == SHT_PROGBITS ? elf_rawdata(scn, NULL) : NULL;
	if (!data || !data->d_size)
		return -ENOENT;
	if (lzma_stream_decoder(&strm, CP_MAX_MINIDEBUG, 0) != LZMA_OK)
		return -ENOMEM;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	do {
		if (len == cap) {
			char *nb;

			if (cap == CP_MAX_MINIDEBUG) {
				err = -EFBIG;
				goto out;
			}
			cap = cap ? 2 * cap : 4 * data->d_size + 4096;
			if (cap > CP_MAX_MINIDEBUG)
				cap = CP_MAX_MINIDEBUG;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		strm.next_out = (uint8_t *)buf + len;
		strm.avail_out = cap - len;
		ret = lzma_code(&strm, LZMA_FINISH);
		len = cap - strm.avail_out;
	} while (ret == LZMA_OK);
	if (ret != LZMA_STREAM_END) {
		err = ret == LZMA_MEMLIMIT_ERROR ? -EFBIG
		      : ret == LZMA_MEM_ERROR	 ? -ENOMEM
						 : -EINVAL;
		goto out;
	}
	*image = buf;
	*size = len;
	buf = NULL;
out:
	lzma_end(&strm);
	free(buf);
	return err;
}

static bool is_debug_section(Elf *elf, size_t shstrndx, const GElf_Shdr *shdr)
{
	const char *n = elf_strptr(elf, shstrndx, shdr->sh_name);

	return n && strncmp(n, ".debug_", 7) == 0;
}

bool debug_has_zstd_sections(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Chdr chdr;

		if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_COMPRESSED) ||
		    !is_debug_section(elf, shstrndx, &shdr))
			continue;
		if (gelf_getchdr(scn, &chdr) && chdr.ch_type == CP_ELFCOMPRESS_ZSTD)
			return true;
	}
	return false;
}

bool debug_has_dwarf(Elf *elf)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, ".debug_info", &shdr);

	if (!scn)
		scn = find_section(elf, ".zdebug_info", &shdr);
	return scn && shdr.sh_type != SHT_NOBITS;
}
