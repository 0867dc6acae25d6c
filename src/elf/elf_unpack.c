// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <zlib.h>
#include "elf/elf_unpack.h"

/* statfs(2)'s f_type of the file systems held in memory (linux/magic.h) */
#define UNPACK_TMPFS_MAGIC 0x01021994
#define UNPACK_RAMFS_MAGIC 0x858458f6

/* bytes of other sections copied at any rate (else no more than the inflated ones) */
#define UNPACK_SMALL_COPY (4u << 20)

/*
 * bytes inflated per write: an output buffer much larger than zlib's 32 KiB window spares it
 * most copies into that window (64 KiB took 7 % more time)
 */
#define UNPACK_CHUNK (1u << 20)

/* what one section of the copy is, beside its header */
enum sec_kind {
	SEC_NONE, /* no bytes in the file (NOBITS, empty, or dropped) */
	SEC_COPY, /* its bytes copied where they were */
	SEC_ZLIB, /* inflated at the end */
};

struct unpack {
	const uint8_t *img;
	size_t size;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;	     /* the copy's headers, patched */
	enum sec_kind *kind; /* per section */
	uint64_t copy, inflate;
	int fd;
};

static bool in_image(const struct unpack *u, uint64_t off, uint64_t len)
{
	return off <= u->size && len <= u->size - off;
}

/* Section i's name, or NULL when it has none that is readable. */
static const char *sec_name(const struct unpack *u, const Elf64_Shdr *sh, uint32_t name)
{
	const Elf64_Shdr *st;
	const char *s;

	if (u->eh.e_shstrndx == SHN_UNDEF || u->eh.e_shstrndx >= u->eh.e_shnum)
		return NULL;
	st = &sh[u->eh.e_shstrndx];
	if (st->sh_type == SHT_NOBITS || (st->sh_flags & SHF_COMPRESSED) ||
	    !in_image(u, st->sh_offset, st->sh_size) || name >= st->sh_size)
		return NULL;
	s = (const char *)u->img + st->sh_offset + name;
	return memchr(s, '\0', st->sh_size - name) ? s : NULL;
}

/* The ELF header and the section headers read; each section sorted out. */
static int plan(struct unpack *u, uint64_t max_bytes, bool (*drop)(const char *))
{
	const Elf64_Shdr *orig;
	uint64_t n;

	if (u->size < sizeof(u->eh))
		return -ENOEXEC;
	memcpy(&u->eh, u->img, sizeof(u->eh));
	if (memcmp(u->eh.e_ident, ELFMAG, SELFMAG) || u->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    u->eh.e_ident[EI_DATA] != ELFDATA2LSB || u->eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    u->eh.e_shnum == 0 || u->eh.e_shstrndx == SHN_XINDEX)
		return -ENOEXEC;
	n = u->eh.e_shnum;
	if (!in_image(u, u->eh.e_shoff, n * sizeof(Elf64_Shdr)) ||
	    (u->eh.e_phnum && (u->eh.e_phentsize != sizeof(Elf64_Phdr) ||
			       !in_image(u, u->eh.e_phoff, u->eh.e_phnum * sizeof(Elf64_Phdr)))))
		return -ENOEXEC;
	u->sh = malloc(n * sizeof(*u->sh));
	u->kind = calloc(n, sizeof(*u->kind));
	if (!u->sh || !u->kind)
		return -ENOMEM;
	memcpy(u->sh, u->img + u->eh.e_shoff, n * sizeof(*u->sh));
	orig = (const Elf64_Shdr *)(const void *)u->sh;
	u->copy = sizeof(u->eh) + u->eh.e_phnum * sizeof(Elf64_Phdr);
	for (uint64_t i = 0; i < n; i++) {
		Elf64_Shdr *s = &u->sh[i];
		Elf64_Chdr ch;
		const char *name;

		if (s->sh_type == SHT_NOBITS || !s->sh_size)
			continue;
		if (!in_image(u, s->sh_offset, s->sh_size))
			return -ENOEXEC;
		if (!(s->sh_flags & SHF_COMPRESSED) || s->sh_size < sizeof(ch)) {
			u->kind[i] = SEC_COPY;
			u->copy += s->sh_size;
			continue;
		}
		memcpy(&ch, u->img + s->sh_offset, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB) {
			u->kind[i] = SEC_COPY; /* zstd: as it was (libdw says what it can read) */
			u->copy += s->sh_size;
			continue;
		}
		name = sec_name(u, orig, s->sh_name);
		if (drop && name && drop(name)) {
			s->sh_name = 0;
			s->sh_size = 0;
			s->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			continue;
		}
		if (ch.ch_size > max_bytes)
			return -EFBIG;
		u->kind[i] = SEC_ZLIB;
		u->inflate += ch.ch_size;
	}
	if (!u->inflate)
		return -ENOENT;
	if ((u->copy > u->inflate && u->copy > UNPACK_SMALL_COPY) || u->copy > max_bytes ||
	    u->inflate > max_bytes - u->copy)
		return -EFBIG;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* a zlib stream's header: CMF and FLG (RFC 1950) */
#define ZLIB_HEADER 2

/*
 * Whether p starts a zlib stream that raw inflation can take: deflate with a window of at most
 * 32 KiB, no preset dictionary, and the header's check (a multiple of 31).
 */
static bool zlib_header(const uint8_t *p)
{
	return (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 && !(p[1] & 0x20) &&
	       ((unsigned)p[0] << 8 | p[1]) % 31 == 0;
}

/* Section s (zlib) inflated at off: exactly its stated size, the stream whole. */
static int inflate_at(struct unpack *u, const Elf64_Shdr *s, uint64_t off, uint8_t *buf)
{
	Elf64_Chdr ch;
	z_stream z = {0};
	uint64_t done = 0;
	int zr, err = 0;

	memcpy(&ch, u->img + s->sh_offset, sizeof(ch));
	/* sh_size fits the image, so size_t; zlib counts in uInt */
	if (s->sh_size - sizeof(ch) > UINT32_MAX)
		return -EFBIG;
	if (s->sh_size - sizeof(ch) < ZLIB_HEADER ||
	    !zlib_header(u->img + s->sh_offset + sizeof(ch)))
		return -EINVAL;
	/*
	 * The deflate stream after the header, raw: zlib then skips the Adler-32 of the inflated
	 * bytes (a tenth of the work). Its check added nothing here: the bytes are as hostile with
	 * a checksum that matches (they are bounded by the stated size, which is checked).
	 */
	if (inflateInit2(&z, -15) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)(u->img + s->sh_offset + sizeof(ch) + ZLIB_HEADER);
	z.avail_in = (uInt)(s->sh_size - sizeof(ch) - ZLIB_HEADER);
	do {
		z.next_out = buf;
		z.avail_out = UNPACK_CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			err = -EINVAL;
			break;
		}
		if (UNPACK_CHUNK - z.avail_out > ch.ch_size - done) {
			err = -EINVAL; /* more than stated */
			break;
		}
		err = write_all(u->fd, buf, UNPACK_CHUNK - z.avail_out, off + done);
		done += UNPACK_CHUNK - z.avail_out;
		/* no progress with input left: a truncated stream */
		if (!err && zr == Z_OK && !z.avail_in && z.avail_out)
			err = -EINVAL;
	} while (!err && zr != Z_STREAM_END);
	inflateEnd(&z);
	return err ? err : done == ch.ch_size ? 0 : -EINVAL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The file written: copied bytes where they were, inflated ones and the headers after. */
static int write_file(struct unpack *u)
{
	uint64_t end = align_up(u->size, 16);
	uint8_t *buf = malloc(UNPACK_CHUNK);
	int err = buf ? 0 : -ENOMEM;

	if (!err && u->eh.e_phnum)
		err = write_all(u->fd, u->img + u->eh.e_phoff, u->eh.e_phnum * sizeof(Elf64_Phdr),
				u->eh.e_phoff);
	for (uint16_t i = 0; !err && i < u->eh.e_shnum; i++) {
		Elf64_Shdr *s = &u->sh[i];
		Elf64_Chdr ch;
		uint64_t a;

		if (u->kind[i] == SEC_COPY)
			err = write_all(u->fd, u->img + s->sh_offset, s->sh_size, s->sh_offset);
		if (u->kind[i] != SEC_ZLIB || err)
			continue;
		memcpy(&ch, u->img + s->sh_offset, sizeof(ch));
		/* a power of two up to a page, else 8 */
		a = ch.ch_addralign && ch.ch_addralign <= 4096 &&
				    !(ch.ch_addralign & (ch.ch_addralign - 1))
			    ? ch.ch_addralign
			    : 8;
		end = align_up(end, a);
		err = inflate_at(u, s, end, buf);
		s->sh_offset = end;
		s->sh_size = ch.ch_size;
		s->sh_addralign = a;
		s->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		end += ch.ch_size;
	}
	free(buf);
	if (err)
		return err;
	u->eh.e_shoff = align_up(end, 8);
	err = write_all(u->fd, u->sh, u->eh.e_shnum * sizeof(*u->sh), u->eh.e_shoff);
	return err ? err : write_all(u->fd, &u->eh, sizeof(u->eh), 0);
}

int elf_unpack(const void *image, size_t size, const char *dir, uint64_t max_bytes,
	       bool (*drop)(const char *name))
{
	struct unpack u = {.img = image, .size = size, .fd = -1};
	struct statfs sf;
	int err;

	if (!image || !dir)
		return -EINVAL;
	err = plan(&u, max_bytes, drop);
	if (!err && statfs(dir, &sf))
		err = -errno;
	if (!err && ((unsigned long)sf.f_type == UNPACK_TMPFS_MAGIC ||
		     (unsigned long)sf.f_type == UNPACK_RAMFS_MAGIC))
		err = -EXDEV;
	/* not the last of the disk: twice what is written stays free for everyone else */
	if (!err && (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize / 2 < u.copy + u.inflate)
		err = -ENOSPC;
	if (!err) {
		u.fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (u.fd < 0)
			err = -errno;
	}
	if (!err)
		err = write_file(&u);
	free(u.sh);
	free(u.kind);
	if (err) {
		if (u.fd >= 0)
			close(u.fd);
		return err;
	}
	return u.fd;
}
