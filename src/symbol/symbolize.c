// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "symbol/dwarf_index.h"
#include "elf/elf_syms.h"
#include "symbol/ksyms.h"
#include "symbol/perfmap.h"
#include "proc/proc_maps.h"
#include "proc/proc_status.h"
#include "symbol/symbolize.h"

/* One file, shared by every mapping of it in every process. */
struct object {
	dev_t dev;
	ino_t ino;
	int fd;		     /* kept open so the file can be read after its process exits */
	const char *name;    /* base name (interned) */
	struct elf_syms *es; /* built at the first lookup */
	bool indexed;
	const char *build_id;	/* interned hex, "" when none; set with es */
	const char *path;	/* interned path as the first process that mapped it saw it */
	uint32_t pid;		/* that process: debug files are looked for in its root too */
	struct dwarf_index *di; /* shared through symbolizer.indexes; NULL when it failed */
	bool di_tried;
};

/* One DWARF index per build-id (or per object when it has none). */
struct index_entry {
	const char *build_id; /* interned; "" never enters the tree */
	struct dwarf_index *di;
};

enum map_kind {
	MAP_FILE,    /* obj is set */
	MAP_NOFILE,  /* a file we could not open: named by label + file offset */
	MAP_ANON,    /* anonymous executable memory (JIT) */
	MAP_VDSO,    /* the kernel's vDSO image, the same for every process */
	MAP_SPECIAL, /* [vsyscall] and the like */
};

struct snap_map {
	uint64_t start, end, offset;
	enum map_kind kind;
	struct object *obj;
	const char *label; /* interned base name */
	const char *path;  /* interned path as mapped */
};

struct snapshot {
	uint64_t key; /* pid << 32 | gen */
	struct snap_map *v;
	size_t n;
	uint32_t nspid; /* the pid inside the process's own pid namespace */
};

/* The perf map of one process (JIT symbols), read at its first use; pm NULL when none. */
struct pm_cache {
	uint32_t pid;
	struct perfmap *pm;
};

struct symbolizer {
	char *procfs;
	void *snaps; /* tsearch tree of struct snapshot * */
	void *objs;  /* tsearch tree of struct object * */
	void *strs;  /* tsearch tree of interned char * */
	unsigned int n_snaps, n_objs;
	struct ksyms *ks;
	struct elf_syms *vdso;
	bool vdso_tried;
	void *indexes;		 /* tsearch tree of struct index_entry * */
	void *perfmaps;		 /* tsearch tree of struct pm_cache * */
	bool debuginfod;	 /* ask debuginfod servers for missing debug files */
	char **debug_dirs;	 /* NULL-terminated, or NULL: the default */
	const char *zstd_object; /* first object with zstd-compressed debug sections */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int cmp_snap(const void *a, const void *b)
{
	const struct snapshot *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct object *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Return the one shared copy of s, or NULL on ENOMEM. */
static const char *intern(struct symbolizer *sy, const char *s)
{
	char *dup;
	void *slot = tfind(s, &sy->strs, cmp_str);

	if (slot)
		return *(const char **)slot;
	dup = strdup(s);
	if (!dup)
		return NULL;
	slot = tsearch(dup, &sy->strs, cmp_str);
	if (!slot) {
		free(dup);
		return NULL;
	}
	return dup;
}

static const char *internf(struct symbolizer *sy, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *internf(struct symbolizer *sy, const char *fmt, ...)
{
	const char *r;
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	r = intern(sy, s);
	free(s);
	return r;
}

struct symbolizer *symbolizer__new(const char *procfs)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return NULL;
	sy->procfs = strdup(procfs);
	if (!sy->procfs) {
		free(sy);
		errno = ENOMEM;
		return NULL;
	}
	return sy;
}

static void free_snap(void *p)
{
	struct snapshot *s = p;

	free(s->v);
	free(s);
}

static void free_obj(void *p)
{
	struct object *o = p;

	if (o->fd >= 0)
		close(o->fd);
	elf_syms__free(o->es);
	/* an index shared by build-id belongs to sy->indexes; an unshared one to o */
	if (o->di && (!o->build_id || !*o->build_id))
		dwarf_index__free(o->di);
	free(o);
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

static void free_pm_cache(void *p)
{
	struct pm_cache *c = p;

	perfmap__free(c->pm);
	free(c);
}

void symbolizer__free(struct symbolizer *sy)
{
	if (!sy)
		return;
	tdestroy(sy->snaps, free_snap);
	tdestroy(sy->objs, free_obj);
	tdestroy(sy->indexes, free_index);
	tdestroy(sy->perfmaps, free_pm_cache);
	free_dirs(sy->debug_dirs);
	tdestroy(sy->strs, free);
	ksyms__free(sy->ks);
	elf_syms__free(sy->vdso);
	free(sy->procfs);
	free(sy);
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

unsigned int symbolizer__n_snapshots(const struct symbolizer *sy)
{
	return sy->n_snaps;
}

unsigned int symbolizer__n_objects(const struct symbolizer *sy)
{
	return sy->n_objs;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Open the file behind mapping e of pid: map_files works for deleted files and other mount
 * namespaces; /proc/PID/root/PATH is the fallback when map_files is not readable.
 */
static int open_mapped_file(const struct symbolizer *sy, uint32_t pid, const struct map_entry *e)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, sy->procfs, pid,
		 e->start, e->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (e->deleted)
		return -errno;
	if ((size_t)snprintf(path, sizeof(path), "%s/%u/root%s", sy->procfs, pid, e->path) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fd;
}

/* The shared object for the file open on fd; takes ownership of fd. NULL on ENOMEM. */
static struct object *get_object(struct symbolizer *sy, int fd, const char *path, uint32_t pid)
{
	struct object key = {}, *o, **slot;
	struct stat st;

	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	slot = tfind(&key, &sy->objs, cmp_obj);
	if (slot) {
		close(fd);
		return *slot;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		close(fd);
		return NULL;
	}
	*o = key;
	o->fd = fd;
	o->pid = pid;
	o->name = intern(sy, base_name(path));
	o->path = intern(sy, path);
	if (!o->name || !o->path || !tsearch(o, &sy->objs, cmp_obj)) {
		free_obj(o);
		return NULL;
	}
	sy->n_objs++;
	return o;
}

static int fill_map(struct symbolizer *sy, uint32_t pid, const struct map_entry *e,
		    struct snap_map *m)
{
	int fd;

	m->start = e->start;
	m->end = e->end;
	m->offset = e->offset;
	m->path = intern(sy, e->path ? e->path : "[anon]");
	if (!m->path)
		return -ENOMEM;
	if (!e->path) {
		m->kind = MAP_ANON;
		m->label = intern(sy, "[anon]");
	} else if (e->path[0] == '[') {
		m->kind = strcmp(e->path, "[vdso]") == 0 ? MAP_VDSO : MAP_SPECIAL;
		m->label = intern(sy, e->path);
	} else {
		m->label = intern(sy, base_name(e->path));
		fd = open_mapped_file(sy, pid, e);
		if (fd >= 0) {
			m->obj = get_object(sy, fd, e->path, pid);
			if (!m->obj)
				return -ENOMEM;
			m->kind = MAP_FILE;
		} else {
			/* unreadable: still name frames by object and offset */
			m->kind = MAP_NOFILE;
		}
	}
	return m->label ? 0 : -ENOMEM;
}

/* Read the executable mappings of pid now into a new snapshot. */
static int cmp_pm(const void *a, const void *b)
{
	const struct pm_cache *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * The perf map of pid: /tmp/perf-NSPID.map inside the process's root (a container's /tmp), else
 * the host's /tmp/perf-PID.map (the process may have exited). NULL when there is none.
 */
static const struct perfmap *perf_map(struct symbolizer *sy, uint32_t pid, uint32_t nspid)
{
	struct pm_cache key = {.pid = pid}, *c, **slot;
	char path[4096];
	FILE *f;

	slot = tfind(&key, &sy->perfmaps, cmp_pm);
	if (slot)
		return (*slot)->pm;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	snprintf(path, sizeof(path), "%s/%u/root/tmp/perf-%u.map", sy->procfs, pid, nspid);
	f = fopen(path, "re");
	if (!f && nspid == pid) {
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
		f = fopen(path, "re");
	}
	if (f) {
		c->pm = perfmap__load(f);
		fclose(f);
	}
	if (!tsearch(c, &sy->perfmaps, cmp_pm)) {
		free_pm_cache(c);
		return NULL;
	}
	return c->pm;
}

static int read_snapshot(struct symbolizer *sy, uint32_t pid, uint32_t gen, struct snapshot **out)
{
	struct proc_maps pm = {};
	struct snapshot *s = NULL;
	struct proc_status ps;
	char path[4096];
	FILE *f;
	int err;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/%u/maps", sy->procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	err = proc_maps_parse(f, &pm);
	fclose(f);
	if (err)
		goto out;
	/* an exited process has an empty maps file */
	if (!pm.n) {
		err = -ESRCH;
		goto out;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->v = calloc(pm.n, sizeof(*s->v)))) {
		err = -ENOMEM;
		goto out;
	}
	s->key = (uint64_t)pid << 32 | gen;
	/* the name of its perf map file, for JIT code */
	s->nspid = proc_status_read(sy->procfs, pid, &ps) == 0 ? ps.nspid : pid;
	for (size_t i = 0; i < pm.n; i++) {
		/* frame addresses only ever point into executable memory */
		if (!pm.v[i].executable)
			continue;
		err = fill_map(sy, pid, &pm.v[i], &s->v[s->n]);
		if (err)
			goto out;
		s->n++;
	}
	*out = s;
	s = NULL;
out:
	if (s)
		free_snap(s);
	proc_maps_free(&pm);
	return err;
}

int symbolizer__snapshot(struct symbolizer *sy, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, *s;
	int err;

	if (tfind(&key, &sy->snaps, cmp_snap))
		return 0;
	err = read_snapshot(sy, pid, gen, &s);
	if (err)
		return err;
	if (!tsearch(s, &sy->snaps, cmp_snap)) {
		free_snap(s);
		return -ENOMEM;
	}
	sy->n_snaps++;
	return 0;
}

static bool overlaps(const struct snap_map *a, const struct snap_map *b)
{
	return a->start < b->end && b->start < a->end;
}

static int cmp_map_start(const void *a, const void *b)
{
	const struct snap_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int symbolizer__refresh(struct symbolizer *sy, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot, *old, *s;
	struct snap_map *v;
	size_t n, j;
	int err;

	slot = tfind(&key, &sy->snaps, cmp_snap);
	if (!slot)
		return symbolizer__snapshot(sy, pid, gen);
	old = *slot;
	err = read_snapshot(sy, pid, gen, &s);
	if (err)
		return err;
	v = realloc(s->v, (s->n + old->n + 1) * sizeof(*v));
	if (!v) {
		free_snap(s);
		return -ENOMEM;
	}
	n = s->n;
	/* keep the old mappings no new one replaces (both lists are sorted and disjoint) */
	for (size_t i = 0; i < old->n; i++) {
		for (j = 0; j < s->n && !overlaps(&old->v[i], &v[j]); j++)
			;
		if (j == s->n)
			v[n++] = old->v[i];
	}
	qsort(v, n, sizeof(*v), cmp_map_start);
	free(old->v);
	old->v = v;
	old->n = n;
	s->v = NULL;
	free_snap(s);
	return 0;
}

static const struct snap_map *find_map(const struct snapshot *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < s->v[mid].start)
			hi = mid;
		else if (addr >= s->v[mid].end)
			lo = mid + 1;
		else
			return &s->v[mid];
	}
	return NULL;
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

/* Lower-case hex of a build-id, interned; "" when there is none. */
static const char *build_id_hex(struct symbolizer *sy, const struct elf_syms *es)
{
	char hex[2 * 64 + 1] = "";
	size_t len = 0;
	const uint8_t *id = es ? elf_syms__build_id(es, &len) : NULL;

	if (!id)
		len = 0;
	if (len > 64)
		len = 64;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return intern(sy, hex);
}

static struct elf_syms *object_syms(struct symbolizer *sy, struct object *o)
{
	if (!o->indexed) {
		o->indexed = true;
		o->es = elf_syms__from_fd(o->fd);
		o->build_id = build_id_hex(sy, o->es);
	}
	return o->es;
}

int symbolizer__user(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr, bool leaf,
		     struct sym_frame *out)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot;
	uint64_t look = leaf ? addr : addr - 1, off, vaddr, soff;
	const struct snap_map *m = NULL;
	struct elf_syms *es = NULL;
	const char *name = NULL;

	memset(out, 0, sizeof(*out));
	slot = tfind(&key, &sy->snaps, cmp_snap);
	if (slot)
		m = find_map(*slot, look);
	out->build_id = intern(sy, "");
	/* JIT code: anonymous memory, or made executable after the mappings were read */
	if (!m || m->kind == MAP_ANON) {
		const struct perfmap *pm = perf_map(sy, pid, slot ? (*slot)->nspid : pid);

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
		out->name = internf(sy, "[unknown]+0x%" PRIx64, addr);
		return out->name && out->module && out->build_id ? 0 : -ENOMEM;
	}
	out->module = m->label;
	out->map_path = m->path;
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_offset = m->offset;
	off = look - m->start + m->offset;
	switch (m->kind) {
	case MAP_FILE:
		es = object_syms(sy, m->obj);
		out->build_id = m->obj->build_id ? m->obj->build_id : out->build_id;
		out->map_kind = SYM_MAP_FILE;
		break;
	case MAP_NOFILE:
		out->map_kind = SYM_MAP_FILE;
		break;
	case MAP_VDSO:
		es = vdso_syms(sy);
		out->map_kind = SYM_MAP_VDSO;
		break;
	case MAP_ANON:
		out->map_kind = SYM_MAP_ANON;
		break;
	case MAP_SPECIAL:
		out->map_kind = SYM_MAP_SPECIAL;
		break;
	}
	if (m->kind == MAP_ANON || m->kind == MAP_SPECIAL)
		vaddr = look;
	else if (!es || elf_syms__offset_to_vaddr(es, off, &vaddr))
		vaddr = off;
	if (es)
		name = elf_syms__lookup(es, vaddr, &soff);
	/* report the address itself, not the return address - 1 used for the lookup */
	out->rel = vaddr + (addr - look);
	if (name) {
		out->name = intern(sy, name);
		out->named = true;
	} else {
		out->name = internf(sy, "%s+0x%" PRIx64, m->label, out->rel);
	}
	return out->name ? 0 : -ENOMEM;
}

int symbolizer__for_each_map(struct symbolizer *sy, uint32_t pid, uint32_t gen, sym_map_fn fn,
			     void *ctx)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot;
	int err;

	slot = tfind(&key, &sy->snaps, cmp_snap);
	if (!slot)
		return -ENOENT;
	for (size_t i = 0; i < (*slot)->n; i++) {
		const struct snap_map *m = &(*slot)->v[i];
		struct sym_map_info mi = {
			.start = m->start,
			.end = m->end,
			.fd = -1,
			.vdso = m->kind == MAP_VDSO,
		};
		struct elf_syms *es;

		if (m->kind == MAP_FILE) {
			es = object_syms(sy, m->obj);
			if (es && !elf_syms__offset_to_vaddr(es, m->offset, &mi.vaddr)) {
				mi.fd = m->obj->fd;
				mi.dev = m->obj->dev;
				mi.ino = m->obj->ino;
				if (m->obj->build_id && *m->obj->build_id)
					mi.build_id = m->obj->build_id;
			}
		}
		err = fn(&mi, ctx);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	/* build-ids are interned: one pointer per id */
	return x->build_id < y->build_id ? -1 : x->build_id > y->build_id;
}

/*
 * The DWARF index of o, built at the first call and shared by build-id. Debug files are looked
 * for under the root of the process that mapped o first (it may be in another mount namespace),
 * then on the host. An opt-in debuginfod lookup would go here, after the local search failed.
 */
static struct dwarf_index *object_index(struct symbolizer *sy, struct object *o)
{
	struct index_entry key = {.build_id = o->build_id}, *e, **slot;
	char root[4096];
	const char *roots[] = {root, "", NULL};
	struct debug_paths dp = {roots, (const char *const *)sy->debug_dirs, sy->debuginfod};
	bool shared = o->build_id && *o->build_id;

	if (o->di_tried)
		return o->di;
	o->di_tried = true;
	if (shared && (slot = tfind(&key, &sy->indexes, cmp_index))) {
		o->di = (*slot)->di;
		return o->di;
	}
	snprintf(root, sizeof(root), "%s/%u/root", sy->procfs, o->pid);
	o->di = dwarf_index__open(o->fd, o->path, &dp);
	if (!o->di)
		return NULL;
	if (!sy->zstd_object && (dwarf_index__flags(o->di) & DI_ZSTD))
		sy->zstd_object = o->name;
	if (!shared)
		return o->di;
	e = calloc(1, sizeof(*e));
	if (!e || !tsearch(e, &sy->indexes, cmp_index)) {
		/* not shared then: o owns it */
		free(e);
		o->build_id = intern(sy, "");
		return o->di;
	}
	*e = key;
	e->di = o->di;
	return o->di;
}

int symbolizer__user_chain(struct symbolizer *sy, uint32_t pid, uint32_t gen, uint64_t addr,
			   bool leaf, struct sym_frame *out, size_t max, size_t *n)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot;
	struct di_frame df[64];
	const struct snap_map *m = NULL;
	struct dwarf_index *di;
	uint64_t look;
	size_t k = 0;
	int err;

	*n = 0;
	if (!max)
		return -EINVAL;
	err = symbolizer__user(sy, pid, gen, addr, leaf, &out[0]);
	if (err)
		return err;
	*n = 1;
	slot = tfind(&key, &sy->snaps, cmp_snap);
	if (slot)
		m = find_map(*slot, leaf ? addr : addr - 1);
	/* DWARF only for files whose address we could translate (rel is then a file vaddr) */
	if (!m || m->kind != MAP_FILE || !m->obj->es)
		return 0;
	di = object_index(sy, m->obj);
	if (!di)
		return 0;
	/* the return address - 1 of a caller, as symbolizer__user looked it up */
	look = leaf ? out[0].rel : out[0].rel - 1;
	err = dwarf_index__lookup(di, look, df, max < 64 ? max : 64, &k);
	if (err)
		return err == -ENOMEM ? err : 0;
	/* nothing from DWARF or the object's symbols: the debug file's symbols may know */
	if (!k) {
		const char *name = out[0].named ? NULL : dwarf_index__debug_symbol(di, look);

		if (name) {
			out[0].name = name;
			out[0].named = true;
		}
		return 0;
	}
	if (!df[k - 1].name)
		df[k - 1].name = dwarf_index__debug_symbol(di, look);
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

void symbolizer__set_debuginfod(struct symbolizer *sy, bool on)
{
	sy->debuginfod = on;
}

const char *symbolizer__zstd_object(const struct symbolizer *sy)
{
	return sy->zstd_object;
}

int symbolizer__kernel(struct symbolizer *sy, uint64_t addr, bool leaf, struct sym_frame *out)
{
	uint64_t look = leaf ? addr : addr - 1, off;
	const struct ksym *k = sy->ks ? ksyms__lookup(sy->ks, look, &off) : NULL;

	memset(out, 0, sizeof(*out));
	out->rel = addr;
	/* one mapping for the kernel and its modules: the upper half of the address space */
	out->map_kind = SYM_MAP_KERNEL;
	out->map_start = 0xffff800000000000ull;
	out->map_end = UINT64_MAX;
	out->map_path = intern(sy, "[kernel.kallsyms]");
	out->build_id = intern(sy, "");
	if (!out->map_path || !out->build_id)
		return -ENOMEM;
	if (!k) {
		out->module = intern(sy, "[kernel.kallsyms]");
		out->name = internf(sy, "[kernel.kallsyms]+0x%" PRIx64, addr);
		return out->name && out->module ? 0 : -ENOMEM;
	}
	out->module = k->module ? internf(sy, "[%s]", k->module) : intern(sy, "[kernel.kallsyms]");
	out->name = intern(sy, k->name);
	out->named = true;
	return out->name && out->module ? 0 : -ENOMEM;
}
