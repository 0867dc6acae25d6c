// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "elf/elf_named.h"

struct elf_named {
	struct elf_file file; /* guarded: the file may shrink under a read (elf_file.h) */
	Elf *elf;	      /* file.elf */
	int fd;
	int type;
	Elf_Scn *dynsym, *symtab, *dynamic;
	Elf_Scn *gnu_hash; /* .dynsym's GNU hash table (SHT_GNU_HASH linked to it), or NULL */
};

int elf_named__open(int fd, struct elf_named **out)
{
	struct elf_named *en;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err = -ENOEXEC;

	*out = NULL;
	en = calloc(1, sizeof(*en));
	if (!en)
		return -ENOMEM;
	en->fd = fd;
	if (elf_file_open(fd, &en->file))
		goto cleanup;
	en->elf = en->file.elf;
	if (elf_kind(en->elf) != ELF_K_ELF || gelf_getclass(en->elf) != ELFCLASS64 ||
	    !gelf_getehdr(en->elf, &eh))
		goto cleanup;
	en->type = eh.e_type;
	while ((scn = elf_nextscn(en->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && !en->dynsym)
			en->dynsym = scn;
		else if (sh.sh_type == SHT_SYMTAB && !en->symtab)
			en->symtab = scn;
		else if (sh.sh_type == SHT_DYNAMIC && !en->dynamic)
			en->dynamic = scn;
		else if (sh.sh_type == SHT_GNU_HASH && !en->gnu_hash)
			en->gnu_hash = scn;
	}
	/* the hash table of .dynsym only */
	if (en->gnu_hash) {
		GElf_Shdr sh;

		if (!en->dynsym || !gelf_getshdr(en->gnu_hash, &sh) ||
		    sh.sh_link != elf_ndxscn(en->dynsym))
			en->gnu_hash = NULL;
	}
	if (elf_file_changed(&en->file)) {
		err = -ESTALE;
		goto cleanup;
	}
	*out = en;
	return 0;
cleanup:
	elf_named__free(en);
	return err;
}

void elf_named__free(struct elf_named *en)
{
	if (!en)
		return;
	elf_file_close(&en->file);
	free(en);
}

/* err, or -ESTALE once the file shrank under a read: what was read may be zeros. */
static int stale(const struct elf_named *en, int err)
{
	return elf_file_changed(&en->file) ? -ESTALE : err;
}

static bool nobits_section(const struct elf_named *en, size_t shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(en->elf, shndx);
	return scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOBITS;
}

/*
 * Where a pass over .dynsym looking for name may start: the index of the first symbol of name's
 * chain in the GNU hash table (glibc's dl-lookup.c, the format of binutils' .gnu.hash: nbuckets,
 * symoffset, bloom_size, bloom_shift, bloom_size 64-bit words, nbuckets 32-bit buckets, then a
 * 32-bit chain value per symbol from symoffset, its hash with bit 0 set at a chain's end; the
 * hash is h * 33 + c from 5381). *last: the index of its chain's last symbol. 0 when the table
 * says name is not there; -1 when there is no usable table (a pass over all then). A table read
 * from the file is bounded by its size at every index.
 */
static long gnu_hash_start(const struct elf_named *en, size_t nsyms, const char *name, size_t *last)
{
	Elf_Data *d = en->gnu_hash ? elf_getdata(en->gnu_hash, NULL) : NULL;
	const uint32_t *w;
	size_t words, nb, off, bloom, first, i;
	uint32_t h = 5381;

	if (!d || !d->d_buf || d->d_size < 16 || (d->d_size & 3))
		return -1;
	w = d->d_buf;
	words = d->d_size / 4;
	nb = w[0];
	off = w[1];
	bloom = w[2];
	/* header, bloom words (two 32-bit halves each), buckets: in the table */
	if (!nb || bloom > words || 4 + 2 * bloom + nb > words || off > nsyms)
		return -1;
	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	first = w[4 + 2 * bloom + h % nb];
	if (!first)
		return 0;
	if (first < off || first >= nsyms)
		return -1;
	/* the chain: to the value flagged last, each within the table and the symbols */
	for (i = first;; i++) {
		size_t at = 4 + 2 * bloom + nb + (i - off);

		if (i >= nsyms || at >= words)
			return -1;
		if (w[at] & 1)
			break;
	}
	*last = i;
	return (long)first;
}

static int find_in(const struct elf_named *en, Elf_Scn *scn, const char *name,
		   struct elf_named_sym *out)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t i, n, last = 0;
	long start = -1;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	/* .dynsym: name's chain in its hash table (node's: 75,000 symbols, some 60 looked up) */
	if (scn == en->dynsym)
		start = gnu_hash_start(en, n, name, &last);
	if (start == 0)
		return -ENOENT;
	if (start > 0)
		n = last + 1;
	for (i = start > 0 ? (size_t)start : 1; i < n; i++) {
		const char *s;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_name)
			continue;
		s = elf_strptr(en->elf, sh.sh_link, sym.st_name);
		if (!s || strcmp(s, name))
			continue;
		out->value = sym.st_value;
		out->size = sym.st_size;
		out->type = GELF_ST_TYPE(sym.st_info);
		out->bind = GELF_ST_BIND(sym.st_info);
		out->shndx = sym.st_shndx;
		out->dynamic = sh.sh_type == SHT_DYNSYM;
		out->nobits = nobits_section(en, sym.st_shndx);
		return 0;
	}
	return -ENOENT;
}

static int sym_of(const struct elf_named *en, const char *name, struct elf_named_sym *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (!find_in(en, en->dynsym, name, sym))
		return 0;
	return find_in(en, en->symtab, name, sym);
}

static int read_of(const struct elf_named *en, uint64_t vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(en->elf, scn))) {
		size_t done = 0;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & SHF_TLS) || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (vaddr - sh.sh_addr))
			continue;
		if (sh.sh_type == SHT_NOBITS)
			return -ENODATA;
		while (done < len) {
			ssize_t r = pread(en->fd, (char *)buf + done, len - done,
					  (off_t)(sh.sh_offset + (vaddr - sh.sh_addr) + done));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -EIO;
			done += (size_t)r;
		}
		return 0;
	}
	return -ENOENT;
}

static int section_of(const struct elf_named *en, const char *name, uint64_t *start, uint64_t *end)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(en->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(en->elf, scn))) {
		const char *s;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		s = elf_strptr(en->elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name)) {
			*start = sh.sh_addr;
			*end = sh.sh_addr + sh.sh_size;
			return 0;
		}
	}
	return -ENOENT;
}

static bool needs_of(const struct elf_named *en, const char *prefix)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t i, n;

	if (!en->dynamic || !gelf_getshdr(en->dynamic, &sh) || !sh.sh_entsize)
		return false;
	data = elf_getdata(en->dynamic, NULL);
	if (!data)
		return false;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		const char *s;
		GElf_Dyn dyn;

		if (!gelf_getdyn(data, (int)i, &dyn))
			break;
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED)
			continue;
		s = elf_strptr(en->elf, sh.sh_link, dyn.d_un.d_val);
		if (s && !strncmp(s, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

bool elf_named__has_symtab(const struct elf_named *en)
{
	return en->symtab != NULL;
}

int elf_named__type(const struct elf_named *en)
{
	return en->type;
}

static int tls_of(const struct elf_named *en, struct elf_named_tls *tls)
{
	size_t i, n;

	memset(tls, 0, sizeof(*tls));
	if (elf_getphdrnum(en->elf, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(en->elf, (int)i, &ph) || ph.p_type != PT_TLS)
			continue;
		tls->vaddr = ph.p_vaddr;
		tls->memsz = ph.p_memsz;
		tls->align = ph.p_align ? ph.p_align : 1;
		return 0;
	}
	return -ENOENT;
}

static int reloc_of(const struct elf_named *en, const char *name, uint32_t rtype, uint64_t *offset,
		    int64_t *addend)
{
	Elf_Scn *scn = NULL;

	if (!en->dynsym)
		return -ENOENT;
	while ((scn = elf_nextscn(en->elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *symdata;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    elf_getscn(en->elf, sh.sh_link) != en->dynsym)
			continue;
		data = elf_getdata(scn, NULL);
		symdata = elf_getdata(en->dynsym, NULL);
		if (!data || !symdata || !gelf_getshdr(en->dynsym, &symsh))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *s;
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(data, (int)i, &r) || GELF_R_TYPE(r.r_info) != rtype ||
			    !GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			s = elf_strptr(en->elf, symsh.sh_link, sym.st_name);
			if (!s || strcmp(s, name))
				continue;
			*offset = r.r_offset;
			*addend = r.r_addend;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_named__sym(const struct elf_named *en, const char *name, struct elf_named_sym *sym)
{
	return stale(en, sym_of(en, name, sym));
}

int elf_named__read(const struct elf_named *en, uint64_t vaddr, void *buf, size_t len)
{
	return stale(en, read_of(en, vaddr, buf, len));
}

int elf_named__section(const struct elf_named *en, const char *name, uint64_t *start, uint64_t *end)
{
	return stale(en, section_of(en, name, start, end));
}

int elf_named__tls(const struct elf_named *en, struct elf_named_tls *tls)
{
	return stale(en, tls_of(en, tls));
}

int elf_named__reloc(const struct elf_named *en, const char *name, uint32_t rtype, uint64_t *offset,
		     int64_t *addend)
{
	return stale(en, reloc_of(en, name, rtype, offset, addend));
}

bool elf_named__needs(const struct elf_named *en, const char *prefix)
{
	return needs_of(en, prefix) && !elf_file_changed(&en->file);
}
