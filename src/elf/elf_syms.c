// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbol index of one ELF object, built with libelf. Everything the lookups need is
 * copied out (names, source files and build-id into one arena, segments and address ranges into
 * arrays), so no Elf handle, mapping or fd outlives the constructor; but for
 * elf_syms__from_fd when the string tables are not small (BORROW_MIN): their names stay in the
 * file's guarded mapping (util/fmap.h), which the index keeps, its pages given back to the page
 * cache once built (librustc_driver's .strtab alone is 19 MB of mangled names); and for
 * elf_syms__from_elf, whose names stay in the caller's Elf data: the DWARF index keeps its Elf
 * open anyway, and fresh memory is what building costs most (each page touched is a fault, and
 * a copy of every name was most of the index's size). The two rule sets of
 * elf_syms.h differ only in which tables are read (read_sections), the alias order (cand_cmp)
 * and how far a function reaches (reduce); the reading and the lookups are shared.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "elf/elf_file.h"
#include "elf/elf_image.h"
#include "elf/elf_syms.h"

/*
 * A string of the index: the string table in its top 2 bits (elf_syms.strtab), the offset in it
 * below. REF_NONE for no string.
 */
#define REF_TABLES  4
#define REF_SHIFT   30
#define REF_MAX_OFF ((1u << REF_SHIFT) - 2) /* so that no reference is REF_NONE */
#define REF_NONE    UINT32_MAX
#define LEN_BIG	    UINT32_MAX /* fn_range.len: end and addr are in elf_syms.big */
#define LEN_UNREAD  UINT32_MAX /* cand.len: not measured yet (cand_len) */
/* elf_syms__from_fd: string tables of this many bytes in all are read from the mapping */
#define BORROW_MIN (64u << 10)

/*
 * A piece [start, start + len) of the address space attributed to the function starting at
 * start - back. The pieces are disjoint and sorted, so a lookup is one binary search even when
 * symbols nest. Kept to 24 bytes (a large program has a million functions): what does not fit
 * 32 bits (a size-0 symbol reaching the end of the address space) goes to the big table.
 */
struct fn_range {
	uint64_t start;
	uint32_t len;  /* or LEN_BIG */
	uint32_t back; /* start - the function's address: the part after a nested function */
	uint32_t name; /* references, in the arena or in the caller's Elf data */
	uint32_t file;
};

/* The end and function address of a range with len LEN_BIG; sorted by idx. */
struct big_range {
	size_t idx;
	uint64_t end;
	uint64_t addr;
};

struct elf_syms {
	struct fn_range *ranges;
	size_t nr_ranges;
	struct big_range *big;
	size_t nr_big;
	const char *strtab[REF_TABLES]; /* the string tables references point into */
	size_t nr_syms;
	struct elf_load *segs;
	size_t nr_segs;
	char *arena; /* build-id bytes, then the NUL-terminated names and files unless borrowed */
	struct fmap map; /* the file, when names are borrowed from it (elf_syms__from_fd) */
	bool borrows;
	size_t build_id_len;
	int type;
	unsigned int tables; /* ELF_SYMS_* */
	bool go_note;	     /* has Go's build ID note: a Go program */
};

/*
 * A symbol table entry while building; name and file point into libelf's data (into the arena
 * after fill_arena). reduce keeps one per address, the alias winner, in place at the front of
 * the array: one function per address. Kept small: the array is as long as the tables.
 */
struct cand {
	uint64_t addr;
	uint64_t size;
	union {
		uint64_t sec_end; /* while reading: end of the symbol's section, 0 when unknown */
		uint64_t end;	  /* after reduce: where the function ends */
	};
	const char *name;
	const char *file;    /* a local symbol's STT_FILE name, else NULL */
	uint32_t len;	     /* the name's length, or LEN_UNREAD (read_symtab) */
	uint32_t order : 30; /* position over all tables read: the llvm-symbolizer tie rule */
	uint32_t rank : 2;   /* 0 global, 1 weak, 2 local, 3 code label or entry: the alias order */
};

/* A string table the candidates' names and files may point into. */
struct str_tab {
	const char *base;
	size_t size;
};

struct sec_span {
	uint64_t start; /* start and end: 0 unless allocated with contents in the file */
	uint64_t end;
	bool exec; /* SHF_EXECINSTR, whatever the type (NOBITS in a debug file) */
};

/* Scratch state of one construction; none of it survives. */
struct builder {
	Elf *elf;
	Elf *extra; /* another object's .symtab (MiniDebugInfo), or NULL */
	enum elf_syms_rules rules;
	bool copy;		/* names into the arena */
	const struct fmap *map; /* from_fd: names may be borrowed from this mapping instead */
	bool borrowed;		/* they were: the index keeps the mapping */
	bool interp; /* has a PT_INTERP: a PIE program, or a library that runs (libc.so.6) */
	bool pie;    /* DT_FLAGS_1 has DF_1_PIE */
	struct elf_syms *es;
	bool headers_only; /* segments, type and build-id, no symbols */
	const void *build_id;
	size_t build_id_len;
	struct sec_span *secs; /* of the Elf whose table is being read */
	size_t nr_secs;
	struct cand *cands; /* after reduce, the functions are the first nr_fns */
	size_t nr_cands;
	size_t cap_cands;
	size_t nr_fns;
	struct str_tab *tabs; /* string tables read, and the entry point's name */
	size_t nr_tabs;
	size_t cap_big;
};

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

/* Section data, inflated first when the section is SHF_COMPRESSED. */
static int scn_data(Elf_Scn *scn, Elf_Data **data)
{
	GElf_Shdr shdr;

	if (!gelf_getshdr(scn, &shdr))
		return -EIO;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -EIO;
	*data = elf_getdata(scn, NULL);
	return *data ? 0 : -EIO;
}

/*
 * Looks for NT_GNU_BUILD_ID owned by "GNU" in a note buffer, and for Go's build ID note (name
 * "Go", type 4: a Go program); true when the GNU one was found.
 */
static bool note_build_id(struct builder *b, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) &&
		    nh.n_descsz > 0 && !b->build_id) {
			b->build_id = base + desc_off;
			b->build_id_len = nh.n_descsz;
		} else if (nh.n_type == 4 && (nh.n_namesz == 3 || nh.n_namesz == 4) &&
			   !memcmp(base + name_off, "Go", 3)) {
			/* Go's linker writes the name "Go\0\0" (cmd/link/internal/ld/elf.go) */
			b->es->go_note = true;
		}
		off = next;
	}
	return b->build_id != NULL;
}

/* PT_LOAD segments, and the build-id from PT_NOTE (what stays mapped at run time). */
/* DF_1_PIE from the dynamic segment; a broken one only loses that flag. */
static void read_dynamic(struct builder *b, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(b->elf, ph->p_offset, ph->p_filesz, ELF_T_DYN);
	size_t entsz = gelf_fsize(b->elf, ELF_T_DYN, 1, EV_CURRENT);
	GElf_Dyn dyn;

	if (!data || !entsz)
		return;
	for (size_t i = 0; i < data->d_size / entsz && gelf_getdyn(data, (int)i, &dyn); i++) {
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			b->pie = true;
	}
}

/*
 * The extent of the function at the entry point, from its call frame information (the FDE
 * covering it); 0 when there is none.
 */
static uint64_t entry_size(Elf *elf, uint64_t entry)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start, end;
	uint64_t size = 0;

	if (!cfi)
		return 0;
	if (dwarf_cfi_addrframe(cfi, entry, &frame) == 0 &&
	    dwarf_frame_info(frame, &start, &end, NULL) >= 0 && start == entry && end > start)
		size = end - start;
	free(frame);
	dwarf_cfi_end(cfi);
	return size;
}

static int read_phdrs(struct builder *b)
{
	struct elf_syms *es = b->es;
	size_t phnum, i;
	GElf_Phdr ph;
	int err = 0;

	if (elf_getphdrnum(b->elf, &phnum)) {
		err = -ENOEXEC;
		goto out;
	}
	if (!phnum)
		goto out;
	es->segs = calloc(phnum, sizeof(*es->segs));
	if (!es->segs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(b->elf, i, &ph)) {
			err = -ENOEXEC;
			goto out;
		}
		if (ph.p_type == PT_INTERP)
			b->interp = true;
		else if (ph.p_type == PT_DYNAMIC)
			read_dynamic(b, &ph);
		if (ph.p_type == PT_LOAD) {
			es->segs[es->nr_segs++] = (struct elf_load){
				.offset = ph.p_offset,
				.filesz = ph.p_filesz,
				.vaddr = ph.p_vaddr,
				.memsz = ph.p_memsz,
				.flags = ph.p_flags,
			};
		} else if (ph.p_type == PT_NOTE && (!b->build_id || !es->go_note)) {
			Elf_Data *data;

			/* notes aligned to 8 use the 8-byte note layout */
			data = elf_getdata_rawchunk(b->elf, ph.p_offset, ph.p_filesz,
						    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			/* a bad note segment only costs the build-id */
			if (data)
				note_build_id(b, data);
		}
	}
out:
	return err;
}

/* Room for more candidates: at least n, else twice as many. */
static int reserve(struct builder *b, size_t more)
{
	struct cand *tmp;
	size_t cap;

	if (b->cap_cands - b->nr_cands >= more)
		return 0;
	cap = b->cap_cands ? b->cap_cands * 2 : 256;
	if (cap - b->nr_cands < more)
		cap = b->nr_cands + more;
	tmp = reallocarray(b->cands, cap, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	b->cands = tmp;
	b->cap_cands = cap;
	return 0;
}

/* cand.order's width: tables of more symbols than this break llvm-symbolizer's tie rule only */
#define ORDER_MAX ((1u << 30) - 1)

static int add_cand(struct builder *b, const struct cand *c)
{
	int err = reserve(b, 1);

	if (!err)
		b->cands[b->nr_cands++] = *c;
	return err;
}

/* A string table names may come from (a table read again is there once). */
static int add_tab(struct builder *b, const char *base, size_t size)
{
	struct str_tab *t;

	for (size_t i = 0; i < b->nr_tabs; i++)
		if (b->tabs[i].base == base)
			return 0;
	t = reallocarray(b->tabs, b->nr_tabs + 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	b->tabs = t;
	b->tabs[b->nr_tabs++] = (struct str_tab){base, size};
	return 0;
}

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* Function symbols of one .symtab or .dynsym of elf, whose sections b->secs describes. */
static int read_symtab(struct builder *b, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *syms, *strs;
	Elf_Scn *strscn;
	size_t n, i, entsz;
	const char *file = NULL;
	bool terminated;
	GElf_Sym sym;
	int err;

	err = scn_data(scn, &syms);
	if (err)
		goto out;
	strscn = elf_getscn(elf, shdr->sh_link);
	if (!strscn) {
		err = -EIO;
		goto out;
	}
	err = scn_data(strscn, &strs);
	if (err)
		goto out;
	entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!entsz || !syms->d_buf || !strs->d_buf) {
		err = -EIO;
		goto out;
	}
	err = add_tab(b, strs->d_buf, strs->d_size);
	if (err)
		goto out;
	/*
	 * then every name in it ends, and shorter than 4 GiB: no need to look for each one's end
	 * now (a third of the time it took); the few lengths wanted later are measured then
	 */
	terminated = strs->d_size && strs->d_size <= UINT32_MAX &&
		     ((const char *)strs->d_buf)[strs->d_size - 1] == '\0';
	n = syms->d_size / entsz;
	/* one allocation for the whole table rather than doubling through it */
	err = reserve(b, n);
	if (err)
		goto out;
	for (i = 1; i < n; i++) {
		unsigned char type;
		bool notype;
		const char *name;
		const char *nul;
		struct cand c;

		if (!gelf_getsym(syms, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		name = sym.st_name < strs->d_size ? (const char *)strs->d_buf + sym.st_name : NULL;
		/* nul: the name's end, when not terminated; else name itself or name + 1 (empty or
		 * not) */
		if (!name)
			nul = NULL;
		else if (!terminated)
			nul = memchr(name, '\0', strs->d_size - sym.st_name);
		else
			nul = name + (*name != '\0');
		if (nul && nul - name > UINT32_MAX)
			continue;
		/* the source file of the local symbols after it */
		if (type == STT_FILE)
			file = nul && nul > name ? name : NULL;
		/*
		 * Functions; and local untyped labels in code, which is what hand-written entry
		 * code is (ld.so's _start and _dl_start_user), below any function at the same
		 * address.
		 */
		notype = type == STT_NOTYPE && sym.st_shndx < b->nr_secs &&
			 b->secs[sym.st_shndx].exec && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
			 !sym.st_size;
		/* an empty name names nothing, whether its offset is 0 or not */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && !notype) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value || !nul || nul == name)
			continue;
		c = (struct cand){
			.addr = sym.st_value,
			.size = sym.st_size,
			.name = name,
			.len = terminated ? LEN_UNREAD : (uint32_t)(nul - name),
			.file = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL,
			.order = b->nr_cands & ORDER_MAX,
			.rank = notype ? 3 : bind_rank(GELF_ST_BIND(sym.st_info)),
		};
		if (sym.st_shndx < b->nr_secs && sym.st_value >= b->secs[sym.st_shndx].start &&
		    sym.st_value < b->secs[sym.st_shndx].end)
			c.sec_end = b->secs[sym.st_shndx].end;
		err = add_cand(b, &c);
		if (err)
			goto out;
	}
out:
	return err;
}

/* Address spans of elf's allocated sections (to bound size-0 symbols) and which hold code. */
static int scan_sections(struct builder *b, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shnum;
	GElf_Shdr shdr;
	int err = 0;

	free(b->secs);
	b->secs = NULL;
	b->nr_secs = 0;
	if (elf_getshdrnum(elf, &shnum)) {
		err = -ENOEXEC;
		goto out;
	}
	if (!shnum)
		goto out;
	b->secs = calloc(shnum, sizeof(*b->secs));
	if (!b->secs) {
		err = -ENOMEM;
		goto out;
	}
	b->nr_secs = shnum;
	while ((scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &shdr) || idx >= shnum)
			continue;
		b->secs[idx].exec = (shdr.sh_flags & SHF_EXECINSTR) != 0;
		if ((shdr.sh_flags & SHF_ALLOC) && shdr.sh_type != SHT_NOBITS) {
			b->secs[idx].start = shdr.sh_addr;
			b->secs[idx].end = shdr.sh_addr + shdr.sh_size;
		}
	}
out:
	return err;
}

/* The build-id from the section notes when no PT_NOTE had it; which symbol tables there are. */
static void scan_notes(struct builder *b)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(b->elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_NOTE && (!b->build_id || !b->es->go_note)) {
			/* as for PT_NOTE, a broken note only loses the build-id */
			if (!scn_data(scn, &data))
				note_build_id(b, data);
		} else if (shdr.sh_type == SHT_SYMTAB) {
			b->es->tables |= ELF_SYMS_SYMTAB;
		} else if (shdr.sh_type == SHT_DYNSYM) {
			b->es->tables |= ELF_SYMS_DYNSYM;
		}
	}
}

/* The symbol tables of elf of type a or b (0: none), in section order; true when there was one. */
static int read_tables(struct builder *b, Elf *elf, Elf64_Word ta, Elf64_Word tb, bool *found)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int err;

	*found = false;
	err = scan_sections(b, elf);
	if (err)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || (shdr.sh_type != ta && shdr.sh_type != tb))
			continue;
		*found = true;
		err = read_symtab(b, elf, scn, &shdr);
		if (err)
			goto out;
	}
out:
	return err;
}

/* Notes, then the symbol tables the rules read (elf_syms.h). */
static int read_sections(struct builder *b)
{
	bool found = false, profile = b->rules == ELF_SYMS_PROFILE;
	int err;

	scan_notes(b);
	if (b->headers_only)
		return 0;
	if (profile || (b->es->tables & ELF_SYMS_SYMTAB))
		err = read_tables(b, b->elf, SHT_SYMTAB, profile ? SHT_DYNSYM : 0, &found);
	else
		err = read_tables(b, b->elf, SHT_DYNSYM, 0, &found);
	if (!err && b->extra && (profile || !(b->es->tables & ELF_SYMS_SYMTAB))) {
		err = read_tables(b, b->extra, SHT_SYMTAB, 0, &found);
		if (found)
			b->es->tables |= ELF_SYMS_EXTRA;
	}
	return err;
}

/*
 * A stripped program still has its entry point: name it _start (glibc's name for it), below
 * every real symbol, so that any symbol at the same address wins. Only for programs (ET_EXEC,
 * or PIE: PT_INTERP and DF_1_PIE), not libc.so.6, which runs too (it prints its version) but
 * is not where stacks start; and only with the function's extent known from its FDE (ld.so's
 * _start has none, so it stays unnamed when stripped).
 */
static int add_entry(struct builder *b, uint64_t entry)
{
	static const char start_name[] = "_start";
	struct cand c = {.addr = entry, .name = start_name, .len = 6, .rank = 3};
	int err;

	/* without its extent it would swallow every function after it */
	c.size = entry_size(b->elf, entry);
	if (!c.size)
		return 0;
	err = add_tab(b, start_name, sizeof(start_name));
	return err ? err : add_cand(b, &c);
}

/* c's name's length: LEN_UNREAD only for names of a table that ends with a NUL, under 4 GiB */
static uint32_t cand_len(const struct cand *c)
{
	return c->len != LEN_UNREAD ? c->len : (uint32_t)strlen(c->name);
}

/* Address, then ELF_SYMS_PROFILE's alias order: binding, name length, bytes. */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	uint32_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	la = cand_len(a);
	lb = cand_len(b);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Address, then ELF_SYMS_LLVM's alias order: the largest size, then the last read. */
static int cand_cmp_llvm(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->order > b->order ? -1 : a->order < b->order;
}

/* A candidate's place in sort_cands: its address above the lowest one, and its index. */
struct cand_key {
	uint32_t rel;
	uint32_t idx;
};

/* bits of the address per pass of the radix sort: 2,048 counters */
#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

/* below this many candidates qsort is as quick (the unit tests' crafted tables have more) */
#define RADIX_MIN 16

/*
 * v[0..n) sorted by cmp, equal elements kept in their order (a merge sort; tmp holds n);
 * runs of aliases are short, so small runs go by insertion.
 */
static void stable_sort(struct cand *v, struct cand *tmp, size_t n,
			int (*cmp)(const void *, const void *))
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n <= 8) {
		for (i = 1; i < n; i++) {
			struct cand c = v[i];

			for (j = i; j > 0 && cmp(&v[j - 1], &c) > 0; j--)
				v[j] = v[j - 1];
			v[j] = c;
		}
		return;
	}
	stable_sort(v, tmp, h, cmp);
	stable_sort(v + h, tmp, n - h, cmp);
	while (i < h && j < n)
		tmp[k++] = cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	/* what is left of the second half is where it belongs */
	memcpy(v, tmp, k * sizeof(*v));
}

/*
 * The candidates sorted by cmp (whose first key is the address) as a stable sort would
 * (glibc's qsort, a merge sort, took this place, at a third of the build's time): a radix sort
 * of compact keys by address, the candidates moved once into that order, then each run of
 * aliases sorted by cmp. Objects whose functions span 4 GiB or more go to qsort as before.
 */
static int sort_cands(struct builder *b, int (*cmp)(const void *, const void *))
{
	struct cand *v = b->cands, *tmp = NULL;
	size_t n = b->nr_cands, i, j, run = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct cand_key *key, *key2;
	uint32_t count[RADIX_SIZE];
	unsigned int shift;

	for (i = 0; i < n; i++) {
		lo = v[i].addr < lo ? v[i].addr : lo;
		hi = v[i].addr > hi ? v[i].addr : hi;
	}
	if (n < RADIX_MIN || n > UINT32_MAX || hi - lo > UINT32_MAX) {
		qsort(v, n, sizeof(*v), cmp);
		return 0;
	}
	key = malloc(2 * n * sizeof(*key));
	if (!key)
		return -ENOMEM;
	key2 = key + n;
	for (i = 0; i < n; i++)
		key[i] = (struct cand_key){(uint32_t)(v[i].addr - lo), (uint32_t)i};
	/* least significant digit first; every pass stable, so the indexes stay in order */
	for (shift = 0; shift < 32 && (hi - lo) >> shift; shift += RADIX_BITS) {
		struct cand_key *t;
		uint32_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(key[i].rel >> shift) & (RADIX_SIZE - 1)]++;
		for (i = 0; i < RADIX_SIZE; i++) {
			uint32_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			key2[count[(key[i].rel >> shift) & (RADIX_SIZE - 1)]++] = key[i];
		t = key;
		key = key2;
		key2 = t;
	}
	/*
	 * The candidates into that order, each cycle of the permutation followed once: position
	 * j takes the candidate at key[j].idx; a position done points at itself.
	 */
	for (i = 0; i < n; i++) {
		struct cand c;

		if (key[i].idx == i)
			continue;
		c = v[i];
		for (j = i; key[j].idx != i;) {
			size_t from = key[j].idx;

			v[j] = v[from];
			key[j].idx = (uint32_t)j;
			j = from;
		}
		v[j] = c;
		key[j].idx = (uint32_t)j;
	}
	free(key < key2 ? key : key2);
	/* then the aliases, each run by cmp, in the order read when equal */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].addr == v[i].addr;)
			j++;
		if (j - i > run)
			run = j - i;
	}
	if (run > 8) {
		tmp = malloc(run * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].addr == v[i].addr;)
			j++;
		if (j - i > 1)
			stable_sort(v + i, tmp, j - i, cmp);
	}
	free(tmp);
	return 0;
}

/* End of the PT_LOAD holding vaddr, 0 when none does. */
static uint64_t seg_end(const struct elf_syms *es, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct elf_load *s = &es->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->memsz)
			return s->vaddr + s->memsz;
	}
	return 0;
}

/*
 * Sorts the candidates and keeps one function per address: the alias winner, covering as far
 * as the largest alias says. ELF_SYMS_PROFILE: a size-0 symbol runs to the next function, but
 * not past its own section (or segment), so e.g. _init does not swallow the PLT.
 * ELF_SYMS_LLVM: a function ends where the next one starts, so that none nests (flatten then
 * keeps them as they are); a size-0 one at the end reaches the end of the address space.
 */
static int reduce(struct builder *b)
{
	struct elf_syms *es = b->es;
	bool llvm = b->rules == ELF_SYMS_LLVM;
	size_t i, j, k;
	int err;

	if (!b->nr_cands)
		return 0;
	err = sort_cands(b, llvm ? cand_cmp_llvm : cand_cmp);
	if (err)
		return err;
	for (i = 0, k = 0; i < b->nr_cands; i = j, k++) {
		uint64_t addr = b->cands[i].addr, size = 0, sec_end = 0, end;
		uint64_t next;

		for (j = i; j < b->nr_cands && b->cands[j].addr == addr; j++) {
			if (b->cands[j].size > size)
				size = b->cands[j].size;
			if (!sec_end)
				sec_end = b->cands[j].sec_end;
		}
		next = j < b->nr_cands ? b->cands[j].addr : UINT64_MAX;
		if (llvm) {
			end = size && addr + size > addr && addr + size < next ? addr + size : next;
		} else if (size) {
			end = addr + size < addr ? UINT64_MAX : addr + size;
		} else {
			uint64_t bound = sec_end ? sec_end : seg_end(es, addr);

			if (bound && bound < next)
				next = bound;
			/* with nothing to bound it, a size-0 symbol covers its own address only */
			end = next == UINT64_MAX ? addr + 1 : next;
		}
		/* k <= i: the winner moves down over entries already read */
		b->cands[k] = b->cands[i];
		b->cands[k].end = end;
	}
	b->nr_fns = k;
	es->nr_syms = k;
	return 0;
}

/*
 * One allocation for the build-id and, when copying, all names and source files; the functions'
 * names and files then point into it. A file is copied once for a run of functions that name
 * it (locals of one file lie together).
 */
static int fill_arena(struct builder *b)
{
	struct elf_syms *es = b->es;
	size_t total = b->build_id_len, pos, i;
	const char *file = NULL, *copied = NULL;

	/* large tables inside the file's mapping: borrowed from it rather than copied */
	if (b->copy && b->map && b->map->p && b->nr_tabs <= REF_TABLES) {
		size_t all = 0;
		bool inside = true;

		for (i = 0; i < b->nr_tabs; i++) {
			const char *base = b->tabs[i].base, *m = b->map->p;

			all += b->tabs[i].size;
			inside &= base >= m && b->tabs[i].size <= b->map->size &&
				  (size_t)(base - m) <= b->map->size - b->tabs[i].size;
		}
		if (inside && all >= BORROW_MIN)
			b->copy = false;
	}
	/* borrowed names need a reference each: few tables, none too large, else copies */
	if (!b->copy && b->nr_tabs > REF_TABLES)
		b->copy = true;
	for (i = 0; !b->copy && i < b->nr_tabs; i++) {
		if (b->tabs[i].size > REF_MAX_OFF)
			b->copy = true;
		else
			es->strtab[i] = b->tabs[i].base;
	}
	/* the lengths read_symtab did not measure, of the names kept */
	for (i = 0; b->copy && i < b->nr_fns; i++)
		b->cands[i].len = cand_len(&b->cands[i]);
	for (i = 0; b->copy && i < b->nr_fns; i++) {
		total += b->cands[i].len + 1;
		if (b->cands[i].file && b->cands[i].file != file)
			total += strlen(b->cands[i].file) + 1;
		file = b->cands[i].file;
	}
	b->borrowed = b->map && !b->copy;
	if (!total)
		return 0;
	if (b->copy && total > REF_MAX_OFF)
		return -ENOMEM;
	es->arena = malloc(total);
	if (!es->arena)
		return -ENOMEM;
	if (b->copy) {
		memset(es->strtab, 0, sizeof(es->strtab));
		es->strtab[0] = es->arena;
		free(b->tabs);
		b->tabs = NULL;
		b->nr_tabs = 1;
		b->tabs = malloc(sizeof(*b->tabs));
		if (!b->tabs)
			return -ENOMEM;
		b->tabs[0] = (struct str_tab){es->arena, total};
	}
	if (b->build_id_len)
		memcpy(es->arena, b->build_id, b->build_id_len);
	es->build_id_len = b->build_id_len;
	pos = b->build_id_len;
	file = NULL;
	for (i = 0; b->copy && i < b->nr_fns; i++) {
		struct cand *f = &b->cands[i];

		memcpy(es->arena + pos, f->name, f->len);
		es->arena[pos + f->len] = '\0';
		f->name = es->arena + pos;
		pos += f->len + 1;
		if (f->file && f->file != file) {
			size_t len = strlen(f->file) + 1;

			file = f->file;
			memcpy(es->arena + pos, f->file, len);
			copied = es->arena + pos;
			pos += len;
		}
		if (f->file)
			f->file = copied;
	}
	return 0;
}

/* The reference of s, a name or file of a candidate (fill_arena made sure there is one). */
static uint32_t ref(const struct builder *b, const char *s)
{
	if (!s)
		return REF_NONE;
	for (size_t i = 0; i < b->nr_tabs; i++) {
		const struct str_tab *t = &b->tabs[i];

		if (s >= t->base && s < t->base + t->size)
			return (uint32_t)i << REF_SHIFT | (uint32_t)(s - t->base);
	}
	return REF_NONE;
}

/* Range i's end and function start; -ENOMEM. */
static int add_big(struct builder *b, size_t i, uint64_t end, uint64_t addr)
{
	struct elf_syms *es = b->es;

	if (es->nr_big == b->cap_big) {
		size_t cap = b->cap_big ? b->cap_big * 2 : 4;
		struct big_range *t = reallocarray(es->big, cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		es->big = t;
		b->cap_big = cap;
	}
	es->big[es->nr_big++] = (struct big_range){i, end, addr};
	return 0;
}

/* Range i: [start, end) of f. */
static int set_range(struct builder *b, struct fn_range *r, size_t i, const struct cand *f,
		     uint64_t start, uint64_t end)
{
	*r = (struct fn_range){
		.start = start,
		.len = (uint32_t)(end - start),
		.back = (uint32_t)(start - f->addr),
		.name = ref(b, f->name),
		.file = ref(b, f->file),
	};
	if (end - start < LEN_BIG && start - f->addr <= UINT32_MAX)
		return 0;
	r->len = LEN_BIG;
	r->back = 0;
	return add_big(b, i, end, f->addr);
}

static int emit(struct builder *b, const struct cand *f, uint64_t start, uint64_t end)
{
	struct elf_syms *es = b->es;
	size_t i = es->nr_ranges++;

	return set_range(b, &es->ranges[i], i, f, start, end);
}

/*
 * Turns the sorted, possibly nested functions into disjoint ranges where the innermost
 * (latest starting) function wins; the enclosing one resumes after it. Each function is pushed
 * once and each step emits at most one range per push or pop, so there are at most 2n ranges.
 * Under ELF_SYMS_LLVM no function nests (reduce): one range each, written over the functions
 * themselves, which saves an array as large as the index (a range is smaller than a candidate,
 * so range i only covers candidates up to i, already read).
 */
static int flatten(struct builder *b)
{
	struct elf_syms *es = b->es;
	bool llvm = b->rules == ELF_SYMS_LLVM;
	size_t *stack = NULL, depth = 0, i;
	uint64_t cur = 0;
	int err = 0;

	if (!b->nr_fns)
		goto out;
	if (llvm) {
		struct fn_range *r = (struct fn_range *)(void *)b->cands;

		_Static_assert(sizeof(*r) <= sizeof(*b->cands), "ranges written over candidates");
		for (i = 0; i < b->nr_fns; i++) {
			struct cand c = b->cands[i];

			err = set_range(b, &r[i], i, &c, c.addr, c.end);
			if (err)
				goto out;
		}
		b->cands = NULL;
		es->ranges = r;
		es->nr_ranges = b->nr_fns;
		/* give the rest back; keeping it on failure is harmless */
		r = reallocarray(es->ranges, es->nr_ranges, sizeof(*r));
		if (r)
			es->ranges = r;
		goto out;
	}
	es->ranges = reallocarray(NULL, 2 * b->nr_fns, sizeof(*es->ranges));
	stack = reallocarray(NULL, b->nr_fns, sizeof(*stack));
	if (!es->ranges || !stack) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= b->nr_fns; i++) {
		uint64_t next = i < b->nr_fns ? b->cands[i].addr : UINT64_MAX;

		while (depth) {
			const struct cand *top = &b->cands[stack[depth - 1]];
			uint64_t stop = top->end < next ? top->end : next;

			if (cur < stop) {
				err = emit(b, top, cur, stop);
				if (err)
					goto out;
				cur = stop;
			}
			if (top->end > next)
				break;
			depth--;
		}
		if (i < b->nr_fns) {
			stack[depth++] = i;
			cur = next;
		}
	}
	/* at most twice as many were needed: give the rest back (harmless to keep on failure) */
	if (es->nr_ranges) {
		struct fn_range *r = reallocarray(es->ranges, es->nr_ranges, sizeof(*r));

		if (r)
			es->ranges = r;
	}
out:
	free(stack);
	return err;
}

/*
 * Give back the page tables of the borrowed string tables: what was read of them while building
 * faults in again from the page cache when a lookup names something. Whole pages inside a
 * table only; nothing was written to them (the mapping is private: a written page would be
 * lost).
 */
static void release_tabs(const struct builder *b)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < b->nr_tabs; i++) {
		uintptr_t lo = ((uintptr_t)b->tabs[i].base + page - 1) & ~(page - 1);
		uintptr_t hi = ((uintptr_t)b->tabs[i].base + b->tabs[i].size) & ~(page - 1);

		if (lo < hi)
			(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
}

static int build(Elf *elf, Elf *extra, enum elf_syms_rules rules, bool copy, bool headers_only,
		 const struct fmap *map, struct elf_syms **out)
{
	struct builder b = {.elf = elf,
			    .extra = extra,
			    .rules = rules,
			    .copy = copy,
			    .map = map,
			    .headers_only = headers_only};
	GElf_Ehdr ehdr;
	int err;

	*out = NULL;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		err = -ENOEXEC;
		goto out;
	}
	b.es = calloc(1, sizeof(*b.es));
	if (!b.es) {
		err = -ENOMEM;
		goto out;
	}
	b.es->type = ehdr.e_type;
	err = read_phdrs(&b);
	if (err)
		goto out;
	err = read_sections(&b);
	if (!err && !headers_only && rules == ELF_SYMS_PROFILE && ehdr.e_entry &&
	    (ehdr.e_type == ET_EXEC || (b.interp && b.pie)))
		err = add_entry(&b, ehdr.e_entry);
	if (err)
		goto out;
	err = reduce(&b);
	if (err)
		goto out;
	err = fill_arena(&b);
	if (err)
		goto out;
	err = flatten(&b);
	if (!err && b.borrowed)
		release_tabs(&b);
out:
	free(b.secs);
	free(b.cands);
	free(b.tabs);
	if (err) {
		elf_syms__free(b.es);
	} else {
		*out = b.es;
		b.es->borrows = b.borrowed; /* from_fd then hands the mapping over */
	}
	return err;
}

static struct elf_syms *from_fd(int fd, bool headers_only)
{
	unsigned char magic[SELFMAG];
	struct elf_syms *es = NULL;
	struct elf_file ef = {.map.slot = -1};
	ssize_t n;
	int err;

	/* cheap check first, so a non-ELF file reports ENOEXEC rather than a libelf error */
	n = pread(fd, magic, sizeof(magic), 0);
	if (n < 0) {
		err = -EIO;
		goto out;
	}
	if (n != SELFMAG || memcmp(magic, ELFMAG, SELFMAG)) {
		err = -ENOEXEC;
		goto out;
	}
	pthread_once(&libelf_once, libelf_init);
	if (elf_file_open(fd, &ef)) {
		err = -EIO;
		goto out;
	}
	err = build(ef.elf, NULL, ELF_SYMS_PROFILE, true, headers_only, &ef.map, &es);
	/* what a truncation left of the file is zeros: nothing built from it is kept */
	if (!err && elf_file_changed(&ef)) {
		elf_syms__free(es);
		es = NULL;
		err = -ESTALE;
	}
	/* borrowed names: the index keeps the mapping (elf_end leaves it alone) */
	if (!err && es->borrows) {
		es->map = ef.map;
		ef.map = (struct fmap){.slot = -1};
	}
out:
	elf_file_close(&ef);
	if (err)
		errno = -err;
	return es;
}

struct elf_syms *elf_syms__from_fd(int fd)
{
	return from_fd(fd, false);
}

struct elf_syms *elf_syms__headers_from_fd(int fd)
{
	return from_fd(fd, true);
}

struct elf_syms *elf_syms__from_mem(const void *image, size_t size)
{
	struct elf_syms *es = NULL;
	void *copy = NULL;
	Elf *elf = NULL;
	int err;

	pthread_once(&libelf_once, libelf_init);
	err = elf_image_open(image, size, &elf, &copy);
	if (err)
		goto out;
	err = build(elf, NULL, ELF_SYMS_PROFILE, true, false, NULL, &es);
out:
	elf_end(elf);
	free(copy);
	if (err)
		errno = -err;
	return es;
}

struct elf_syms *elf_syms__from_elf(Elf *elf, Elf *extra, enum elf_syms_rules rules)
{
	struct elf_syms *es = NULL;
	int err = -EINVAL;

	if (!elf || (rules != ELF_SYMS_PROFILE && rules != ELF_SYMS_LLVM))
		goto out;
	err = build(elf, extra, rules, false, false, NULL, &es);
out:
	if (err)
		errno = -err;
	return es;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->ranges);
	free(es->big);
	free(es->segs);
	free(es->arena);
	if (es->map.p)
		fmap_close(&es->map);
	free(es);
}

int elf_syms__offset_to_vaddr(const struct elf_syms *es, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	if (!es || !vaddr)
		return -EINVAL;
	for (i = 0; i < es->nr_segs; i++) {
		const struct elf_load *s = &es->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

size_t elf_syms__loads(const struct elf_syms *es, const struct elf_load **segs)
{
	*segs = es ? es->segs : NULL;
	return es ? es->nr_segs : 0;
}

int elf_syms__map_vaddr(const struct elf_syms *es, const struct elf_map *m, uint64_t *vaddr)
{
	if (!es)
		return -EINVAL;
	return elf_layout_map_vaddr(es->segs, es->nr_segs, es->type == ET_EXEC, m, vaddr);
}

/* The string of reference r. */
static const char *ref_str(const struct elf_syms *es, uint32_t r)
{
	return r == REF_NONE ? NULL : es->strtab[r >> REF_SHIFT] + (r & ((1u << REF_SHIFT) - 1));
}

/* The function at vaddr into *out; false when none covers it. */
static bool find_fn(const struct elf_syms *es, uint64_t vaddr, struct elf_sym *out)
{
	const struct fn_range *r;
	size_t lo = 0, hi;
	uint64_t end, addr;

	if (!es)
		return false;
	/* lo ends as the number of ranges starting at or before vaddr */
	hi = es->nr_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->ranges[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	r = &es->ranges[lo - 1];
	end = r->start + r->len;
	addr = r->start - r->back;
	if (r->len == LEN_BIG) {
		size_t i = lo - 1, blo = 0, bhi = es->nr_big;

		while (blo < bhi) {
			size_t mid = blo + (bhi - blo) / 2;

			if (es->big[mid].idx < i)
				blo = mid + 1;
			else
				bhi = mid;
		}
		if (blo == es->nr_big || es->big[blo].idx != i)
			return false; /* cannot happen: every LEN_BIG range has its entry */
		end = es->big[blo].end;
		addr = es->big[blo].addr;
	}
	if (vaddr >= end)
		return false;
	*out = (struct elf_sym){
		.name = ref_str(es, r->name), .file = ref_str(es, r->file), .addr = addr};
	return true;
}

const char *elf_syms__lookup(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off)
{
	struct elf_sym sym;

	if (!find_fn(es, vaddr, &sym))
		return NULL;
	if (sym_off)
		*sym_off = vaddr - sym.addr;
	return sym.name;
}

bool elf_syms__get(const struct elf_syms *es, uint64_t vaddr, struct elf_sym *out)
{
	return find_fn(es, vaddr, out);
}

const struct elf_sym *elf_syms__find(const struct elf_syms *es, uint64_t vaddr)
{
	static _Thread_local struct elf_sym found;

	return find_fn(es, vaddr, &found) ? &found : NULL;
}

unsigned int elf_syms__tables(const struct elf_syms *es)
{
	return es ? es->tables : 0;
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr_syms : 0;
}

bool elf_syms__go_note(const struct elf_syms *es)
{
	return es && es->go_note;
}

const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *len)
{
	size_t n = es ? es->build_id_len : 0;

	if (len)
		*len = n;
	return n ? (const uint8_t *)es->arena : NULL;
}

int elf_syms__type(const struct elf_syms *es)
{
	return es ? es->type : ET_NONE;
}
