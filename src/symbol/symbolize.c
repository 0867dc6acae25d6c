// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <search.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "elf/elf_syms.h"
#include "elf/gopclntab.h"
#include "proc/proc_maps.h"
#include "proc/proc_snapshot.h"
#include "symbol/dwarf_index.h"
#include "symbol/ksyms.h"
#include "symbol/perfmap.h"
#include "symbol/symbolize.h"
#include "util/file_id.h"
#include "util/safe_file.h"
#include "util/strset.h"
#include "util/u64set.h"

/* What the symbolizer knows of one object of the proc_snapshot. */
struct sym_object {
	struct ps_object *obj; /* the key */
	struct elf_syms *es;   /* symbol index, built at the first lookup; NULL: none */
	bool es_tried;
	const struct gopclntab *gp; /* Go's function table, read at the first address es cannot
				       name (from sy->go, shared, else gp_own) */
	struct gopclntab *gp_own;
	struct go_tables *gp_from; /* gp is held from it (given back with the object) */
	bool gp_tried;
	struct dwarf_index *di; /* built at the first source-level lookup; NULL when it failed */
	bool di_tried;
	bool di_own;  /* di is not shared through symbolizer.indexes: freed with this */
	bool changed; /* its file or debug file shrank under a read: named by nothing any more */
	struct index_entry *ie; /* the shared entry di comes from, NULL when di_own or none */
	unsigned int used;	/* symbolizer.epoch of its last lookup */
};

/* One DWARF index per build-id (or per object when it has none). */
struct index_entry {
	const char *build_id; /* interned by the proc_snapshot; "" never enters the tree */
	struct dwarf_index *di;
	unsigned int used;		/* symbolizer.epoch of its last lookup */
	const struct ps_object *opener; /* whose files it reads (compared, never followed) */
};

/* The perf map of one process (JIT symbols), read at its first use; pm NULL when none. */
struct pm_cache {
	uint32_t pid;
	struct perfmap *pm; /* borrowed from a struct pm_file */
};

/*
 * One perf map file, read once however many processes name it (hard links, the same file
 * through several containers' roots): by device, inode, size and modification time.
 */
struct pm_file {
	struct file_id id;
	struct perfmap *pm;
};

/* Why a perf map was not read (the low bits of symbolizer.pm_refused). */
enum { PM_FOREIGN = 1, PM_LINK = 2, PM_OVER_BUDGET = 3 };

struct symbolizer {
	struct proc_snapshot *ps; /* borrowed: the mappings and objects of the processes */
	void *objs;		  /* tsearch tree of struct sym_object *, by object */
	struct strset strs;	  /* names, paths, labels */
	struct ksyms *ks;
	struct elf_syms *vdso;
	bool vdso_tried;
	void *indexes;		    /* tsearch tree of struct index_entry * */
	void *perfmaps;		    /* tsearch tree of struct pm_cache * */
	void *pm_files;		    /* tsearch tree of struct pm_file *: what perfmaps point to */
	size_t pm_bytes;	    /* what the perf maps of pm_files take */
	size_t pm_budget;	    /* the most they may take: CP_PERF_MAP_BUDGET */
	size_t pm_read;		    /* perf map files read, over the whole recording */
	struct u64set pm_refused;   /* pid << 2 | why, for the counts of symbolizer__perf_maps */
	bool debuginfod;	    /* ask debuginfod servers for missing debug files */
	int debuginfod_err;	    /* the first failure to ask them (-errno), 0: none */
	char *unpack_dir;	    /* symbolizer__set_unpack_dir, NULL: none */
	char **debug_dirs;	    /* NULL-terminated, or NULL: the default */
	const char *zstd_object;    /* first object with zstd-compressed debug sections */
	const char *damaged_object; /* first object whose debug sections are damaged */
	const char *changed_object; /* first object whose file shrank while it was read */
	size_t n_changed;	    /* such objects */
	/*
	 * Taken around what threads naming different objects share: the trees of objects and
	 * indexes, the strings, the first-object notes.
	 */
	pthread_mutex_t lock;
	unsigned int epoch;   /* symbolizer__drop_indexes calls so far */
	struct go_tables *go; /* Go's function tables, shared with the unwinder; NULL: own */
};

static const char *intern(struct symbolizer *sy, const char *s)
{
	const char *r;

	pthread_mutex_lock(&sy->lock);
	r = strset_intern(&sy->strs, s);
	pthread_mutex_unlock(&sy->lock);
	return r;
}

/* "label+0xADDR", interned. */
static const char *intern_at(struct symbolizer *sy, const char *label, uint64_t addr)
{
	char buf[4352];

	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, label, addr);
	return intern(sy, buf);
}

static int cmp_sym_obj(const void *a, const void *b)
{
	const struct sym_object *x = a, *y = b;

	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

struct symbolizer *symbolizer__new(struct proc_snapshot *ps)
{
	struct symbolizer *sy;

	if (!ps) {
		errno = EINVAL;
		return NULL;
	}
	sy = calloc(1, sizeof(*sy));
	if (!sy)
		return NULL;
	sy->ps = ps;
	sy->pm_budget = CP_PERF_MAP_BUDGET;
	pthread_mutex_init(&sy->lock, NULL);
	return sy;
}

static void free_sym_obj(void *p)
{
	struct sym_object *so = p;

	elf_syms__free(so->es);
	gopclntab__free(so->gp_own);
	go_tables__put(so->gp_from, so->gp);
	/* an index shared by build-id belongs to sy->indexes */
	if (so->di_own)
		dwarf_index__free(so->di);
	free(so);
}

static void free_index(void *p)
{
	struct index_entry *e = p;

	dwarf_index__free(e->di);
	free(e);
}

static void free_dirs(char **dirs)
{
	for (size_t i = 0; dirs && dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

static void free_pm_file(void *p)
{
	struct pm_file *pf = p;

	perfmap__free(pf->pm);
	free(pf);
}

static void forget_perf_maps(struct symbolizer *sy)
{
	tdestroy(sy->perfmaps, free);
	sy->perfmaps = NULL;
	tdestroy(sy->pm_files, free_pm_file);
	sy->pm_files = NULL;
	sy->pm_bytes = 0;
}

void symbolizer__free(struct symbolizer *sy)
{
	if (!sy)
		return;
	tdestroy(sy->objs, free_sym_obj);
	tdestroy(sy->indexes, free_index);
	forget_perf_maps(sy);
	u64set_clear(&sy->pm_refused);
	free_dirs(sy->debug_dirs);
	free(sy->unpack_dir);
	strset_clear(&sy->strs);
	ksyms__free(sy->ks);
	elf_syms__free(sy->vdso);
	pthread_mutex_destroy(&sy->lock);
	free(sy);
}

void symbolizer__forget_perf_maps(struct symbolizer *sy)
{
	forget_perf_maps(sy);
}

void symbolizer__set_perf_map_budget(struct symbolizer *sy, size_t bytes)
{
	sy->pm_budget = bytes;
}

void symbolizer__perf_maps(const struct symbolizer *sy, struct sym_perf_maps *st)
{
	memset(st, 0, sizeof(*st));
	st->files = sy->pm_read;
	for (size_t i = 0; i < sy->pm_refused.cap; i++) {
		uint64_t k = sy->pm_refused.v[i];

		if (!k)
			continue;
		switch (k & 3) {
		case PM_FOREIGN:
			st->foreign++;
			break;
		case PM_LINK:
			st->links++;
			break;
		default:
			st->over_budget++;
			break;
		}
	}
}

/* The nodes of a tsearch tree, collected by twalk_r. */
struct collected {
	void **v;
	size_t n, cap;
	bool failed;
};

static void collect(const void *node, VISIT which, void *ctx)
{
	struct collected *c = ctx;

	if (which != postorder && which != leaf)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void **v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->failed = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *(void *const *)node;
}

static int cmp_index(const void *a, const void *b);

static void count_node(const void *node, VISIT which, void *ctx)
{
	(void)node;
	if (which == postorder || which == leaf)
		(*(size_t *)ctx)++;
}

static void count_tables(const void *node, VISIT which, void *ctx)
{
	const struct sym_object *so = *(const struct sym_object *const *)node;

	if ((which == postorder || which == leaf) && so->es)
		(*(size_t *)ctx)++;
}

size_t symbolizer__symbol_tables(const struct symbolizer *sy)
{
	size_t n = 0;

	twalk_r(sy->objs, count_tables, &n);
	return n;
}

void symbolizer__sizes(struct symbolizer *sy, size_t *objects, size_t *indexes, size_t *strings,
		       size_t *string_bytes)
{
	*objects = *indexes = 0;
	twalk_r(sy->objs, count_node, objects);
	twalk_r(sy->indexes, count_node, indexes);
	*strings = sy->strs.n;
	*string_bytes = sy->strs.bytes;
}

/*
 * Indexes unused for this many calls of symbolizer__drop_indexes go: drains come every second
 * or so on a busy machine, and opening a big DWARF index again costs more than keeping it a
 * little longer.
 */
#define SYM_KEEP_CALLS 8

void symbolizer__drop_indexes(struct symbolizer *sy, bool all)
{
	struct collected c = {0};

	if (all) {
		tdestroy(sy->objs, free_sym_obj);
		sy->objs = NULL;
		tdestroy(sy->indexes, free_index);
		sy->indexes = NULL;
		sy->epoch++;
		return;
	}
	/* objects first: a shared index looked up since is kept by its stamp */
	twalk_r(sy->objs, collect, &c);
	for (size_t i = 0; !c.failed && i < c.n; i++) {
		struct sym_object *so = c.v[i];

		if (sy->epoch - so->used < SYM_KEEP_CALLS) {
			if (so->di_own)
				dwarf_index__trim(so->di);
			continue;
		}
		tdelete(so, &sy->objs, cmp_sym_obj);
		free_sym_obj(so);
	}
	c.n = 0;
	twalk_r(sy->indexes, collect, &c);
	for (size_t i = 0; !c.failed && i < c.n; i++) {
		struct index_entry *e = c.v[i];

		if (sy->epoch - e->used < SYM_KEEP_CALLS) {
			/* kept for its CUs and symbols; decoded line rows follow each drain */
			dwarf_index__trim(e->di);
			continue;
		}
		tdelete(e, &sy->indexes, cmp_index);
		free_index(e);
	}
	free(c.v);
	sy->epoch++;
}

int symbolizer__load_kallsyms(struct symbolizer *sy, FILE *f)
{
	struct ksyms *ks = ksyms__load(f);

	if (!ks)
		return -errno;
	ksyms__free(sy->ks);
	sy->ks = ks;
	return 0;
}

bool symbolizer__kernel_restricted(const struct symbolizer *sy)
{
	return sy->ks && ksyms__restricted(sy->ks);
}

static int cmp_pm(const void *a, const void *b)
{
	const struct pm_cache *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_pm_file(const void *a, const void *b)
{
	const struct pm_file *x = a, *y = b;

	return file_id_cmp(&x->id, &y->id);
}

/*
 * Open tmp/perf-NSPID.map below the directory root names (a process's /proc/PID/root, or "/"):
 * no symbolic link followed, in /tmp or as the file (a user could point a container's map at
 * a host file only root can read), a regular file owned by root or by the process's user
 * euid (-1: unknown). A stream or NULL; *why is PM_FOREIGN or PM_LINK when it was refused.
 */
static FILE *open_perf_map(const char *root, uint32_t nspid, int64_t euid, struct stat *st,
			   int *why)
{
	char rel[64];
	int dirfd, fd;
	FILE *f;

	dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return NULL;
	snprintf(rel, sizeof(rel), "tmp/perf-%u.map", nspid);
	fd = safe_openat(dirfd, rel, CP_MAX_PERF_MAP, st);
	close(dirfd);
	if (fd == -ELOOP)
		*why = PM_LINK;
	if (fd < 0)
		return NULL;
	if (!perfmap__owner_ok((uint32_t)st->st_uid, euid)) {
		*why = PM_FOREIGN;
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
}

/* The map of the file f (status st): one already read when it is the same file, else read now. */
static struct perfmap *load_perf_map(struct symbolizer *sy, FILE *f, const struct stat *st,
				     bool *over_budget)
{
	struct pm_file key = {.id = file_id_of(st)}, *pf, **slot;
	size_t left = sy->pm_budget > sy->pm_bytes ? sy->pm_budget - sy->pm_bytes : 0;

	slot = tfind(&key, &sy->pm_files, cmp_pm_file);
	if (slot)
		return (*slot)->pm;
	if (!left) {
		*over_budget = true;
		return NULL;
	}
	pf = malloc(sizeof(*pf));
	if (!pf)
		return NULL;
	*pf = key;
	pf->pm = perfmap__load(f, left);
	if (!pf->pm && errno == EFBIG)
		*over_budget = true;
	/* a map not read is not tried again before the next forget */
	if (!tsearch(pf, &sy->pm_files, cmp_pm_file)) {
		free_pm_file(pf);
		return NULL;
	}
	if (pf->pm) {
		sy->pm_bytes += perfmap__bytes(pf->pm);
		sy->pm_read++;
	}
	return pf->pm;
}

/*
 * The perf map of pid: /tmp/perf-NSPID.map inside the process's root (a container's /tmp), else
 * the host's /tmp/perf-PID.map (the process may have exited). NULL when there is none, or
 * when it is not trusted (see open_perf_map) or over the budget: counted.
 */
static const struct perfmap *perf_map(struct symbolizer *sy, uint32_t pid, uint32_t gen)
{
	struct pm_cache key = {.pid = pid}, *c, **slot;
	uint32_t nspid = proc_snapshot__nspid(sy->ps, pid, gen);
	int64_t euid = proc_snapshot__euid(sy->ps, pid, gen);
	bool over = false;
	char root[4096];
	struct stat st;
	int why = 0;
	FILE *f;

	slot = tfind(&key, &sy->perfmaps, cmp_pm);
	if (slot)
		return (*slot)->pm;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	snprintf(root, sizeof(root), "%s/%u/root", proc_snapshot__procfs(sy->ps), pid);
	/* any user can plant /tmp/perf-PID.map for their process: a FIFO must not stall us */
	f = open_perf_map(root, nspid, euid, &st, &why);
	if (!f && !why && nspid == pid)
		f = open_perf_map("/", pid, euid, &st, &why);
	if (f) {
		c->pm = load_perf_map(sy, f, &st, &over);
		fclose(f);
	}
	if (why || over)
		u64set_add(&sy->pm_refused, (uint64_t)pid << 2 | (over ? PM_OVER_BUDGET : why));
	if (!tsearch(c, &sy->perfmaps, cmp_pm)) {
		free(c);
		return NULL;
	}
	return c->pm;
}

/* Our own vDSO: the kernel maps the same image into every process. */
static struct elf_syms *vdso_syms(struct symbolizer *sy)
{
	struct proc_maps pm = {};
	FILE *f;

	if (sy->vdso_tried)
		return sy->vdso;
	sy->vdso_tried = true;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return NULL;
	if (proc_maps_parse(f, &pm) == 0) {
		for (size_t i = 0; i < pm.n; i++) {
			if (pm.v[i].path && strcmp(pm.v[i].path, "[vdso]") == 0 &&
			    pm.v[i].start == getauxval(AT_SYSINFO_EHDR)) {
				sy->vdso = elf_syms__from_mem((const void *)pm.v[i].start,
							      pm.v[i].end - pm.v[i].start);
				break;
			}
		}
	}
	fclose(f);
	proc_maps_free(&pm);
	return sy->vdso;
}

/* What the symbolizer knows of o, made at the first call; NULL on ENOMEM. */
static struct sym_object *sym_object(struct symbolizer *sy, struct ps_object *o)
{
	struct sym_object key = {.obj = o}, *so, **slot;

	pthread_mutex_lock(&sy->lock);
	slot = tfind(&key, &sy->objs, cmp_sym_obj);
	so = slot ? *slot : calloc(1, sizeof(*so));
	if (so && !slot) {
		so->obj = o;
		if (!tsearch(so, &sy->objs, cmp_sym_obj)) {
			free(so);
			so = NULL;
		}
	}
	pthread_mutex_unlock(&sy->lock);
	return so;
}

/*
 * so's file (or its debug file) shrank while it was read, its owner truncated it: what was read
 * from it is not trusted, and nothing of it is read again; its frames stay object+offset.
 */
static void note_changed(struct symbolizer *sy, struct sym_object *so)
{
	if (so->changed)
		return;
	so->changed = true;
	pthread_mutex_lock(&sy->lock);
	sy->n_changed++;
	if (!sy->changed_object)
		sy->changed_object = so->obj->name;
	pthread_mutex_unlock(&sy->lock);
}

/* The symbol index of so's object, built at the first call; NULL when it has none. */
static struct elf_syms *object_syms(struct symbolizer *sy, struct sym_object *so)
{
	if (so->changed)
		return NULL;
	if (!so->es_tried) {
		so->es_tried = true;
		so->es = elf_syms__from_fd(so->obj->fd);
		if (!so->es && errno == ESTALE)
			note_changed(sy, so);
	}
	return so->es;
}

/*
 * Go's function table of so's object (Go programs, stripped ones too, keep it), read at the
 * first call; NULL when it has none.
 */
static const struct gopclntab *object_gopclntab(struct symbolizer *sy, struct sym_object *so)
{
	int err;

	if (so->changed)
		return NULL;
	if (!so->gp_tried) {
		so->gp_tried = true;
		if (sy->go) {
			err = go_tables__get(sy->go, so->obj->fd, &so->gp);
			so->gp_from = so->gp ? sy->go : NULL;
		} else {
			so->gp = so->gp_own = gopclntab__from_fd(so->obj->fd);
			err = so->gp ? 0 : -errno;
		}
		if (err == -ESTALE)
			note_changed(sy, so);
	}
	return so->gp;
}

void symbolizer__set_go_tables(struct symbolizer *sy, struct go_tables *t)
{
	sy->go = t;
}

/*
 * The object's vaddr at m's start: the translation the unwinder uses (a file's through the
 * snapshot, the vDSO's through cpuprof's copy es). 0 or a negative errno.
 */
static int map_vaddr(struct symbolizer *sy, const struct ps_map *m, const struct elf_syms *es,
		     uint64_t *vaddr)
{
	struct elf_map em = {.start = m->start, .end = m->end, .pgoff = m->offset, .exec = true};

	if (m->kind == PS_MAP_FILE)
		return proc_snapshot__map_vaddr(sy->ps, m, vaddr);
	return es ? elf_syms__map_vaddr(es, &em, vaddr) : -ENOENT;
}

/*
 * Name out (its rel, for the address rel - off: 0 for a leaf, else 1 for the return address)
 * as name (a JIT's, or NULL), else from es, or a stripped Go program's function table of so,
 * or as label+offset.
 */
static int name_from(struct symbolizer *sy, struct sym_object *so, const struct elf_syms *es,
		     const char *name, const char *label, uint64_t off, struct sym_frame *out)
{
	uint64_t vaddr = out->rel - off, soff;

	if (es)
		name = elf_syms__lookup(es, vaddr, &soff);
	/* a stripped Go program: its names are in its function table */
	if (!name && so && es) {
		const struct gopclntab *gp = object_gopclntab(sy, so);
		struct go_func gf;

		if (gp && gopclntab__func(gp, vaddr, &gf))
			name = gf.name;
	}
	if (name) {
		out->name = intern(sy, name);
		out->named = true;
	} else {
		out->name = intern_at(sy, label, out->rel);
	}
	return out->name ? 0 : -ENOMEM;
}

/*
 * Name a user address of (pid, gen) from the symbol tables, as symbolizer__user; *mp is the
 * mapping that holds it (NULL when none does), *sop what the symbolizer knows of its object
 * (NULL when it is no file). later: an address in a file is placed (rel) but not named (name
 * NULL): the caller names it with name_from when the DWARF index leaves it a name to give.
 */
static int name_user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     bool later, struct sym_frame *out, const struct ps_map **mp,
		     struct sym_object **sop)
{
	uint64_t look = leaf ? addr : addr - 1, off, vaddr, soff = 0;
	const struct ps_map *m = proc_snapshot__find(sy->ps, pid, gen, look);
	struct sym_object *so = NULL;
	struct elf_syms *es = NULL;
	const char *name = NULL;

	memset(out, 0, sizeof(*out));
	*mp = m;
	*sop = NULL;
	out->build_id = intern(sy, "");
	/* JIT code: anonymous memory, or made executable after the mappings were read */
	if (!m || m->kind == PS_MAP_ANON) {
		const struct perfmap *pm;

		/* threads naming objects at once may meet here: the maps' trees are shared */
		pthread_mutex_lock(&sy->lock);
		pm = perf_map(sy, pid, gen);
		pthread_mutex_unlock(&sy->lock);

		name = pm ? perfmap__lookup(pm, look, &soff) : NULL;
	}
	if (!m && name) {
		out->module = intern(sy, "[jit]");
		out->map_path = out->module;
		out->map_kind = SYM_MAP_ANON;
		out->rel = addr;
		out->name = intern(sy, name);
		out->named = true;
		return out->name && out->module && out->build_id ? 0 : -ENOMEM;
	}
	if (!m) {
		out->module = intern(sy, "[unknown]");
		out->map_path = out->module;
		out->rel = addr;
		out->name = intern_at(sy, "[unknown]", addr);
		return out->name && out->module && out->build_id ? 0 : -ENOMEM;
	}
	out->module = m->label;
	out->map_path = m->path;
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_offset = m->offset;
	off = look - m->start + m->offset;
	switch (m->kind) {
	case PS_MAP_FILE: {
		const char *id = proc_snapshot__build_id(sy->ps, m->obj);

		so = sym_object(sy, m->obj);
		if (!so || !id)
			return -ENOMEM;
		/* one thread names an object at a time: the stamps need no lock */
		so->used = sy->epoch;
		if (so->ie)
			so->ie->used = sy->epoch;
		out->build_id = id;
		out->go_version = proc_snapshot__go_version(sy->ps, m->obj);
		out->map_kind = SYM_MAP_FILE;
		break;
	}
	case PS_MAP_NOFILE:
		out->map_kind = SYM_MAP_FILE;
		break;
	case PS_MAP_VDSO:
		es = vdso_syms(sy);
		out->map_kind = SYM_MAP_VDSO;
		break;
	case PS_MAP_ANON:
		out->map_kind = SYM_MAP_ANON;
		break;
	case PS_MAP_SPECIAL:
		out->map_kind = SYM_MAP_SPECIAL;
		break;
	}
	*sop = so;
	/* a file's vaddr comes from the snapshot: its symbols are read only to name it */
	if (m->kind == PS_MAP_ANON || m->kind == PS_MAP_SPECIAL)
		vaddr = look;
	else if (!map_vaddr(sy, m, es, &vaddr))
		vaddr += look - m->start;
	else
		vaddr = off;
	/* report the address itself, not the return address - 1 used for the lookup */
	out->rel = vaddr + (addr - look);
	if (so && later)
		return 0;
	if (so)
		es = object_syms(sy, so);
	return name_from(sy, so, es, name, m->label, addr - look, out);
}

int symbolizer__user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     struct sym_frame *out)
{
	const struct ps_map *m;
	struct sym_object *so;

	return name_user(sy, pid, gen, addr, leaf, false, out, &m, &so);
}

int symbolizer__place(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		      struct sym_place *out)
{
	uint64_t look = leaf ? addr : addr - 1, vaddr;
	const struct ps_map *m = proc_snapshot__find(sy->ps, pid, gen, look);
	const struct elf_syms *es = NULL;

	memset(out, 0, sizeof(*out));
	if (!m || (m->kind != PS_MAP_FILE && m->kind != PS_MAP_VDSO))
		return 0;
	if (m->kind == PS_MAP_VDSO) {
		es = vdso_syms(sy);
		if (!es)
			return 0;
	}
	if (map_vaddr(sy, m, es, &vaddr))
		return 0;
	if (m->kind == PS_MAP_FILE) {
		out->build_id = proc_snapshot__build_id(sy->ps, m->obj);
		out->go_version = proc_snapshot__go_version(sy->ps, m->obj);
		out->path = m->obj->path;
		out->pid = m->obj->pid;
		out->object = m->obj;
	} else {
		out->build_id = strset_intern(&sy->strs, "");
		out->path = m->path;
		out->object = &sy->vdso;
	}
	if (!out->build_id)
		return -ENOMEM;
	out->vaddr = vaddr + (addr - m->start);
	out->start = vaddr;
	out->limit = vaddr + (m->end - m->start);
	out->offset = m->offset;
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	/* build-ids are interned: one pointer per id */
	return x->build_id < y->build_id ? -1 : x->build_id > y->build_id;
}

/*
 * The DWARF index of so's object, built at the first call and shared by build-id. Debug files
 * are looked for under the root of the process that mapped the object first (it may be in
 * another mount namespace), then on the host, then, with symbolizer__set_debuginfod, asked of
 * the debuginfod servers (dwarf_index and debug_find do the looking).
 */
static struct dwarf_index *object_index(struct symbolizer *sy, struct sym_object *so)
{
	const struct ps_object *o = so->obj;
	struct index_entry key = {.build_id = proc_snapshot__build_id(sy->ps, so->obj)}, *e, **slot;
	char root[4096];
	const char *roots[] = {root, "", NULL};
	struct debug_paths dp = {roots, (const char *const *)sy->debug_dirs, sy->debuginfod,
				 &sy->debuginfod_err, sy->unpack_dir};
	bool shared = key.build_id && *key.build_id, stale = false;

	if (so->di_tried || so->changed)
		return so->changed ? NULL : so->di;
	so->di_tried = true;
	/* one thread names the objects of one build-id: only the tree is shared */
	pthread_mutex_lock(&sy->lock);
	slot = shared ? tfind(&key, &sy->indexes, cmp_index) : NULL;
	/*
	 * An index whose files shrank under it (another object's, of the same build-id: a user's
	 * copy of a library, truncated) names nothing: so reads its own files, in an index of
	 * its own (the tree keeps the other until it is dropped).
	 */
	stale = slot && (dwarf_index__flags((*slot)->di) & DI_CHANGED);
	if (slot && !stale) {
		so->di = (*slot)->di;
		so->ie = *slot;
		so->ie->used = sy->epoch;
	}
	pthread_mutex_unlock(&sy->lock);
	if (slot && !stale)
		return so->di;
	shared = shared && !stale;
	snprintf(root, sizeof(root), "%s/%u/root", proc_snapshot__procfs(sy->ps), o->pid);
	so->di = dwarf_index__open(o->fd, o->path, &dp);
	if (!so->di && errno == ESTALE)
		note_changed(sy, so);
	if (!so->di)
		return NULL;
	e = shared ? malloc(sizeof(*e)) : NULL;
	if (e) {
		/* keyed before it enters the tree */
		*e = key;
		e->di = so->di;
		e->opener = o;
	}
	pthread_mutex_lock(&sy->lock);
	if (!sy->zstd_object && (dwarf_index__flags(so->di) & DI_ZSTD))
		sy->zstd_object = o->name;
	if (e) {
		e->used = sy->epoch;
		so->ie = e;
	}
	if (!e || !tsearch(e, &sy->indexes, cmp_index)) {
		/* not shared: so owns it */
		free(e);
		so->ie = NULL;
		so->di_own = true;
	}
	pthread_mutex_unlock(&sy->lock);
	return so->di;
}

/* out[0] as object+offset when so's file changed (its name was read before): 0 or -ENOMEM. */
static int unnamed_if_changed(struct symbolizer *sy, const struct sym_object *so,
			      const struct ps_map *m, struct sym_frame *out)
{
	if (!so->changed || !out[0].named)
		return 0;
	out[0].name = intern_at(sy, m->label, out[0].rel);
	out[0].named = false;
	return out[0].name ? 0 : -ENOMEM;
}

/*
 * No DWARF for a Go program (built with -w, or stripped): its function table has the source
 * positions and inlined calls. out[0] is the frame name_user made; 0 or -ENOMEM.
 */
static int go_chain(struct symbolizer *sy, struct sym_object *so, bool leaf, struct sym_frame *out,
		    size_t max, size_t *n)
{
	struct go_frame gf[32];
	const struct gopclntab *gp;
	size_t k = 0;

	/* Go's names have a package path: other objects without DWARF are not read for a table */
	if (so->changed || (out[0].named && !strchr(out[0].name, '.') && !so->gp))
		return 0;
	gp = object_gopclntab(sy, so);
	if (!gp)
		return 0;
	gopclntab__frames(gp, leaf ? out[0].rel : out[0].rel - 1, gf, max < 32 ? max : 32, &k);
	if (!k)
		return 0;
	for (size_t i = k; i-- > 0;) {
		struct sym_frame *f = &out[i];

		*f = out[0];
		f->name = intern(sy, gf[i].name);
		if (!f->name)
			return -ENOMEM;
		f->named = true;
		f->mangled = NULL;
		f->file = gf[i].file ? intern(sy, gf[i].file) : NULL;
		if (gf[i].file && !f->file)
			return -ENOMEM;
		f->line = gf[i].line;
		f->column = 0;
		f->inlined = gf[i].inlined;
	}
	*n = k;
	return 0;
}

/* A file that was seen damaged while its CUs were read: the first, for the summary. */
static void note_damaged(struct symbolizer *sy, const struct sym_object *so,
			 const struct dwarf_index *di)
{
	/* a file that shrank reads as zeros: damaged, but counted apart */
	if ((dwarf_index__flags(di) & (DI_DAMAGED | DI_CHANGED)) != DI_DAMAGED)
		return;
	pthread_mutex_lock(&sy->lock);
	if (!sy->damaged_object)
		sy->damaged_object = so->obj->name;
	pthread_mutex_unlock(&sy->lock);
}

/* out[0, k) from DWARF's chain df, each frame where out[0] is; unnamed ones keep its name. */
static int chain_from(struct sym_frame *out, const struct di_frame *df, size_t k, size_t *n)
{
	for (size_t i = k; i-- > 0;) {
		struct sym_frame *f = &out[i];

		*f = out[0];
		if (df[i].name) {
			f->name = df[i].name;
			f->named = true;
		}
		f->mangled = df[i].mangled;
		f->file = df[i].file;
		f->line = df[i].line;
		f->column = df[i].column;
		f->inlined = df[i].inlined;
	}
	*n = k;
	return 0;
}

static bool all_named(const struct di_frame *df, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (!df[i].name)
			return false;
	return true;
}

/*
 * After the DWARF lookup (err, k frames in df; di NULL: none), when it did not name every frame:
 * out[0] named from the object's symbol table first, then as symbolizer__user_chain says.
 */
static int chain_by_symbols(struct symbolizer *sy, struct sym_object *so, const struct ps_map *m,
			    bool leaf, struct dwarf_index *di, int err, struct di_frame *df,
			    size_t k, struct sym_frame *out, size_t max, size_t *n)
{
	uint64_t look = leaf ? out[0].rel : out[0].rel - 1;
	int e = name_from(sy, so, object_syms(sy, so), NULL, m->label, leaf ? 0 : 1, &out[0]);

	/* DWARF only for files whose symbols could be read */
	if (e || !so->es)
		return e;
	if (!di) {
		e = unnamed_if_changed(sy, so, m, out);
		return e ? e : go_chain(sy, so, leaf, out, max, n);
	}
	if (err == -ESTALE && so->ie && so->ie->opener != so->obj) {
		/* the files of another object of this build-id shrank: so's own are read next */
		so->di = NULL;
		so->ie = NULL;
		so->di_tried = false;
		return 0;
	}
	if (err == -ESTALE)
		note_changed(sy, so);
	if (err)
		return err == -ENOMEM ? err : unnamed_if_changed(sy, so, m, out);
	/* nothing from DWARF or the object's symbols: the debug file's symbols may know */
	if (!k) {
		const char *name = out[0].named ? NULL : dwarf_index__debug_symbol(di, look);

		if (name) {
			out[0].name = name;
			out[0].named = true;
		}
		return go_chain(sy, so, leaf, out, max, n);
	}
	return chain_from(out, df, k, n);
}

/*
 * A file's address is looked up in its DWARF index (llvm-symbolizer's symbol rules name the
 * outermost frame there) before its own symbol table is read: when DWARF names every frame,
 * that table is never built (it was, for every object: a second symbol table per object).
 */
int symbolizer__user_chain(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr,
			   bool leaf, struct sym_frame *out, size_t max, size_t *n)
{
	struct di_frame df[64];
	const struct ps_map *m;
	struct sym_object *so;
	struct dwarf_index *di;
	uint64_t look;
	size_t k = 0;
	int err;

	*n = 0;
	if (!max)
		return -EINVAL;
	err = name_user(sy, pid, gen, addr, leaf, true, &out[0], &m, &so);
	if (err)
		return err;
	*n = 1;
	if (!so)
		return 0;
	di = object_index(sy, so);
	/* the return address - 1 of a caller, as symbolizer__user looks it up */
	look = leaf ? out[0].rel : out[0].rel - 1;
	if (di) {
		err = dwarf_index__lookup(di, look, df, max < 64 ? max : 64, &k);
		/* damage shows as the CUs are read, so at lookups */
		note_damaged(sy, so, di);
		if (!err && k && !df[k - 1].name)
			df[k - 1].name = dwarf_index__debug_symbol(di, look);
		if (!err && k && all_named(df, k))
			return chain_from(out, df, k, n);
	}
	return chain_by_symbols(sy, so, m, leaf, di, err, df, k, out, max, n);
}

int symbolizer__set_debug_dirs(struct symbolizer *sy, const char *const *dirs)
{
	size_t n = 0;
	char **v;

	while (dirs && dirs[n])
		n++;
	v = dirs ? calloc(n + 1, sizeof(*v)) : NULL;
	if (dirs && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(dirs[i]);
		if (!v[i]) {
			free_dirs(v);
			return -ENOMEM;
		}
	}
	free_dirs(sy->debug_dirs);
	sy->debug_dirs = v;
	return 0;
}

int symbolizer__debuginfod_error(const struct symbolizer *sy)
{
	return sy->debuginfod_err;
}

void symbolizer__set_debuginfod(struct symbolizer *sy, bool on)
{
	sy->debuginfod = on;
}

int symbolizer__set_unpack_dir(struct symbolizer *sy, const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return -ENOMEM;
	free(sy->unpack_dir);
	sy->unpack_dir = d;
	return 0;
}

const char *symbolizer__zstd_object(const struct symbolizer *sy)
{
	return sy->zstd_object;
}

const char *symbolizer__damaged_object(const struct symbolizer *sy)
{
	return sy->damaged_object;
}

size_t symbolizer__changed_objects(const struct symbolizer *sy, const char **first)
{
	*first = sy->changed_object;
	return sy->n_changed;
}

int symbolizer__kernel(struct symbolizer *sy, uint64_t addr, bool leaf, struct sym_frame *out)
{
	uint64_t look = leaf ? addr : addr - 1, off;
	struct ksym ksym;
	const struct ksym *k = ksyms__lookup(sy->ks, look, &ksym, &off) ? &ksym : NULL;

	memset(out, 0, sizeof(*out));
	out->rel = addr;
	/* one mapping for the kernel and its modules: the upper half of the address space */
	out->map_kind = SYM_MAP_KERNEL;
	out->map_start = 0xffff800000000000ull;
	out->map_end = UINT64_MAX;
	out->map_path = strset_intern(&sy->strs, "[kernel.kallsyms]");
	out->build_id = strset_intern(&sy->strs, "");
	if (!out->map_path || !out->build_id)
		return -ENOMEM;
	if (!k) {
		out->module = strset_intern(&sy->strs, "[kernel.kallsyms]");
		out->name = strset_internf(&sy->strs, "[kernel.kallsyms]+0x%" PRIx64, addr);
		return out->name && out->module ? 0 : -ENOMEM;
	}
	out->module = k->module ? strset_internf(&sy->strs, "[%s]", k->module)
				: strset_intern(&sy->strs, "[kernel.kallsyms]");
	out->name = strset_intern(&sy->strs, k->name);
	out->named = true;
	return out->name && out->module ? 0 : -ENOMEM;
}
