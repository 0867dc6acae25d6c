// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "elf/elf_syms.h"
#include "elf/gopclntab.h"
#include "proc/proc_maps.h"
#include "proc/proc_snapshot.h"
#include "util/safe_file.h"
#include "util/strset.h"
#include "proc/proc_status.h"

/* stdio buffer for /proc/PID/maps (read_snapshot) */
#define MAPS_READ_BUF (64 * 1024)

/* An object and what is read of it at the first need. */
struct object {
	struct ps_object pub;
	bool hdr_read;
	struct elf_syms *hdr; /* its program headers and build-id (no symbols); NULL: unreadable */
	const char *build_id; /* interned hex, "" when none; set with hdr */
	const char *go_version; /* interned, "" when not a Go program or unknown; set with hdr */
};

struct snapshot {
	uint64_t key; /* pid << 32 | gen */
	struct ps_map *v;
	size_t n;
	uint32_t nspid; /* the pid inside the process's own pid namespace */
	int64_t euid;	/* its effective user when the snapshot was taken, -1: unknown */
};

struct proc_snapshot {
	char *procfs;
	void *snaps;	    /* tsearch tree of struct snapshot * */
	void *objs;	    /* tsearch tree of struct object * */
	struct strset strs; /* names, paths, labels */
	unsigned int n_snaps, n_objs;
	bool no_query; /* read maps as text: no PROCMAP_QUERY (or turned off) */
	bool gate_read;
	struct proc_maps self; /* cpuprof's executable mappings, for the gate mapping */
};

static struct object *object_of(struct ps_object *o)
{
	return (struct object *)((char *)o - offsetof(struct object, pub));
}

static int cmp_snap(const void *a, const void *b)
{
	const struct snapshot *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct object *x = a, *y = b;

	if (x->pub.dev != y->pub.dev)
		return x->pub.dev < y->pub.dev ? -1 : 1;
	return x->pub.ino < y->pub.ino ? -1 : x->pub.ino > y->pub.ino;
}

struct proc_snapshot *proc_snapshot__new(const char *procfs)
{
	struct proc_snapshot *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->procfs = strdup(procfs);
	if (!ps->procfs) {
		free(ps);
		errno = ENOMEM;
		return NULL;
	}
	return ps;
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

	if (o->pub.fd >= 0)
		close(o->pub.fd);
	elf_syms__free(o->hdr);
	free(o);
}

void proc_snapshot__free(struct proc_snapshot *ps)
{
	if (!ps)
		return;
	tdestroy(ps->snaps, free_snap);
	tdestroy(ps->objs, free_obj);
	strset_clear(&ps->strs);
	proc_maps_free(&ps->self);
	free(ps->procfs);
	free(ps);
}

const char *proc_snapshot__procfs(const struct proc_snapshot *ps)
{
	return ps->procfs;
}

unsigned int proc_snapshot__n_snapshots(const struct proc_snapshot *ps)
{
	return ps->n_snaps;
}

unsigned int proc_snapshot__n_objects(const struct proc_snapshot *ps)
{
	return ps->n_objs;
}

int proc_snapshot__release(struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot;
	struct snapshot *s;

	slot = tfind(&key, &ps->snaps, cmp_snap);
	if (!slot)
		return -ENOENT;
	s = *slot;
	tdelete(&key, &ps->snaps, cmp_snap);
	free_snap(s);
	return 0;
}

struct walk_ctx {
	ps_snap_fn fn;
	void *ctx;
	int err;
};

static void walk_snap(const void *node, VISIT which, void *ctx)
{
	const struct snapshot *s = *(struct snapshot *const *)node;
	struct walk_ctx *w = ctx;

	if ((which == postorder || which == leaf) && !w->err)
		w->err = w->fn((uint32_t)(s->key >> 32), (uint32_t)s->key, w->ctx);
}

int proc_snapshot__for_each_snapshot(const struct proc_snapshot *ps, ps_snap_fn fn, void *ctx)
{
	struct walk_ctx w = {.fn = fn, .ctx = ctx};

	twalk_r(ps->snaps, walk_snap, &w);
	return w.err;
}

/*
 * Open the file behind mapping e of pid: map_files works for deleted files and other mount
 * namespaces; /proc/PID/root/PATH is the fallback when map_files is not readable.
 */
static int open_mapped_file(const struct proc_snapshot *ps, uint32_t pid, const struct map_entry *e)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, ps->procfs, pid,
		 e->start, e->end);
	/* only regular files: a device node mapped executable is not opened behind its back */
	fd = safe_open(path, 0, NULL);
	if (fd >= 0 || e->deleted)
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/%u/root%s", ps->procfs, pid, e->path) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return safe_open(path, 0, NULL);
}

/* The shared object for the file open on fd; takes ownership of fd. NULL on ENOMEM. */
static struct object *get_object(struct proc_snapshot *ps, int fd, const char *path, uint32_t pid)
{
	struct object key = {}, *o, **slot;
	struct stat st;

	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	key.pub.dev = st.st_dev;
	key.pub.ino = st.st_ino;
	slot = tfind(&key, &ps->objs, cmp_obj);
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
	o->pub.fd = fd;
	o->pub.pid = pid;
	/* GNU basename (string.h): what follows the last slash, path untouched */
	o->pub.name = strset_intern(&ps->strs, basename(path));
	o->pub.path = strset_intern(&ps->strs, path);
	if (!o->pub.name || !o->pub.path || !tsearch(o, &ps->objs, cmp_obj)) {
		free_obj(o);
		return NULL;
	}
	ps->n_objs++;
	return o;
}

/*
 * The object already open for the file maps names by device and inode, without opening it
 * again: a build starts thousands of processes that all map ld.so and libc. The object's fd
 * keeps its inode alive, so no other file can have that device and inode meanwhile. (An
 * overlay file shows the real file's device and inode in maps, and the overlay's to fstat: no
 * object then, and the file is opened as before.) NULL when none is known.
 */
static struct object *known_object(const struct proc_snapshot *ps, const struct map_entry *e)
{
	struct object key = {}, **slot;

	if (!e->inode)
		return NULL;
	key.pub.dev = makedev(e->dev_major, e->dev_minor);
	key.pub.ino = e->inode;
	slot = tfind(&key, &ps->objs, cmp_obj);
	return slot ? *slot : NULL;
}

/*
 * The mapping of an earlier read of the same process at e's place, with the same range,
 * offset and path, whose file was open; NULL when there is none. *same_file: its inode is
 * e's too, so it is the very file mapped now.
 */
static const struct ps_map *old_map(const struct snapshot *old, const struct map_entry *e,
				    bool *same_file)
{
	size_t lo = 0, hi = old ? old->n : 0;

	*same_file = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ps_map *m = &old->v[mid];

		if (m->start < e->start) {
			lo = mid + 1;
		} else if (m->start > e->start) {
			hi = mid;
		} else {
			if (m->kind != PS_MAP_FILE || m->end != e->end || m->offset != e->offset ||
			    strcmp(m->path, e->path) != 0)
				return NULL;
			*same_file = m->obj->ino == e->inode;
			return m;
		}
	}
	return NULL;
}

static int fill_map(struct proc_snapshot *ps, uint32_t pid, const struct map_entry *e,
		    const struct snapshot *old, struct ps_map *m)
{
	const struct ps_map *was = NULL;
	bool same_file = false;
	struct object *o;
	int fd;

	m->start = e->start;
	m->end = e->end;
	m->offset = e->offset;
	m->path = strset_intern(&ps->strs, e->path ? e->path : "[anon]");
	if (!m->path)
		return -ENOMEM;
	if (e->path && e->path[0] != '[')
		was = old_map(old, e, &same_file);
	/*
	 * Read again (a refresh), the file opened then is the one mapped now; and opening it
	 * again can fail for reasons that say nothing of the mapping: a process exiting has
	 * no root any more, so map_files and /proc/PID/root are gone. Neither may cost the
	 * names of its frames. (Where maps shows another inode, as overlay filesystems may,
	 * the file is opened again, and the old one kept when that fails.)
	 */
	if (was && same_file) {
		*m = *was;
	} else if (!e->path) {
		m->kind = PS_MAP_ANON;
		m->label = strset_intern(&ps->strs, "[anon]");
	} else if (e->path[0] == '[') {
		m->kind = strcmp(e->path, "[vdso]") == 0 ? PS_MAP_VDSO : PS_MAP_SPECIAL;
		m->label = strset_intern(&ps->strs, e->path);
	} else {
		m->label = strset_intern(&ps->strs, basename(e->path));
		o = known_object(ps, e);
		fd = o ? -1 : open_mapped_file(ps, pid, e);
		if (o) {
			m->obj = &o->pub;
			m->kind = PS_MAP_FILE;
		} else if (fd >= 0) {
			o = get_object(ps, fd, e->path, pid);
			if (!o)
				return -ENOMEM;
			m->obj = &o->pub;
			m->kind = PS_MAP_FILE;
		} else if (was) {
			*m = *was;
		} else {
			/* unreadable: still name frames by object and offset */
			m->kind = PS_MAP_NOFILE;
		}
	}
	return m->label ? 0 : -ENOMEM;
}

void proc_snapshot__use_maps_query(struct proc_snapshot *ps, bool on)
{
	ps->no_query = !on;
}

/*
 * The text of maps open on fd (which this closes), executable mappings only. -ESRCH for an
 * empty file: an exited process has no mappings.
 */
static int read_maps_text(int fd, struct proc_maps *pm)
{
	size_t lines;
	char *buf;
	FILE *f;
	int err;

	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	/*
	 * procfs says its block size is 1 KiB, and each read of maps walks the process's
	 * mappings again from where the last stopped (under its mmap lock): one large read
	 * instead of one per KiB. glibc takes a size only with a buffer (with NULL it keeps
	 * st_blksize: 1 KiB reads, as strace showed); without one, stdio's own.
	 */
	buf = malloc(MAPS_READ_BUF);
	if (buf)
		(void)setvbuf(f, buf, _IOFBF, MAPS_READ_BUF);
	err = proc_maps_parse_exec(f, pm, &lines);
	fclose(f);
	free(buf);
	if (!err && !lines) {
		proc_maps_free(pm);
		err = -ESRCH;
	}
	return err;
}

/*
 * The executable mappings of pid: asked of the kernel with PROCMAP_QUERY, which formats no
 * text for the many mappings that are not executable (a system-wide recording reads the maps
 * of every process started), else read as text. The first answer that the kernel has no such
 * ioctl (ENOTTY: before Linux 6.11) or refuses it turns the query off for good.
 */
static int read_maps(struct proc_snapshot *ps, uint32_t pid, struct proc_maps *pm)
{
	char path[4096];
	int fd, err;

	/* this process's maps shows the gate mapping (x86-64: [vsyscall]) no query finds */
	if (!ps->no_query && !ps->gate_read) {
		ps->gate_read = true;
		snprintf(path, sizeof(path), "%s/self/maps", ps->procfs);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read_maps_text(fd, &ps->self) < 0)
			proc_maps_free(&ps->self);
	}

	snprintf(path, sizeof(path), "%s/%u/maps", ps->procfs, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (!ps->no_query) {
		err = proc_maps_query_exec(fd, proc_maps_gate(&ps->self), pm);
		/* no such ioctl, or one a security policy forbids: no use asking again */
		if (err == -ENOTTY || err == -EINVAL || err == -EOPNOTSUPP || err == -ENOSYS ||
		    err == -EPERM || err == -EACCES)
			ps->no_query = true;
		/* other errors (a path too long for the query): the text has it all */
		if (!err || err == -ESRCH || err == -ENOMEM) {
			close(fd);
			return err;
		}
	}
	return read_maps_text(fd, pm);
}

/* Read the executable mappings of pid now into a new snapshot. */
static int read_snapshot(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
			 const struct snapshot *old, struct snapshot **out)
{
	struct proc_maps pm = {};
	struct snapshot *s = NULL;
	struct proc_status st;
	int err;

	*out = NULL;
	err = read_maps(ps, pid, &pm);
	if (err)
		goto out;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->v = calloc(pm.n ? pm.n : 1, sizeof(*s->v)))) {
		err = -ENOMEM;
		goto out;
	}
	s->key = (uint64_t)pid << 32 | gen;
	/* the name of its perf map file, for JIT code */
	s->nspid = pid;
	s->euid = -1;
	if (proc_status_read(ps->procfs, pid, &st) == 0) {
		s->nspid = st.nspid;
		s->euid = st.has_euid ? (int64_t)st.euid : -1;
	}
	for (size_t i = 0; i < pm.n; i++) {
		/* frame addresses only ever point into executable memory */
		if (!pm.v[i].executable)
			continue;
		err = fill_map(ps, pid, &pm.v[i], old, &s->v[s->n]);
		if (err)
			goto out;
		s->n++;
	}
	/* one snapshot per process sampled, kept to the end: only its executable mappings */
	if (s->n < pm.n) {
		struct ps_map *v = realloc(s->v, (s->n ? s->n : 1) * sizeof(*v));

		if (v)
			s->v = v;
	}
	*out = s;
	s = NULL;
out:
	if (s)
		free_snap(s);
	proc_maps_free(&pm);
	return err;
}

int proc_snapshot__take(struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, *s;
	int err;

	if (tfind(&key, &ps->snaps, cmp_snap))
		return 0;
	err = read_snapshot(ps, pid, gen, NULL, &s);
	if (err)
		return err;
	if (!tsearch(s, &ps->snaps, cmp_snap)) {
		free_snap(s);
		return -ENOMEM;
	}
	ps->n_snaps++;
	return 0;
}

static bool overlaps(const struct ps_map *a, const struct ps_map *b)
{
	return a->start < b->end && b->start < a->end;
}

static int cmp_map_start(const void *a, const void *b)
{
	const struct ps_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int proc_snapshot__refresh(struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot, *old, *s;
	struct ps_map *v;
	size_t n, j;
	int err;

	slot = tfind(&key, &ps->snaps, cmp_snap);
	if (!slot)
		return proc_snapshot__take(ps, pid, gen);
	old = *slot;
	err = read_snapshot(ps, pid, gen, old, &s);
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

/* The object of file (dev, ino) for a VMA of pid: known, or opened through map_files. */
static struct object *vma_object(struct proc_snapshot *ps, uint32_t pid, const struct ps_vma *v)
{
	struct object key = {.pub = {.dev = v->dev, .ino = v->ino}}, **slot;
	/* deleted: map_files only (the path is not known), which names this very mapping */
	struct map_entry e = {.start = v->start, .end = v->end, .deleted = true};
	char link[4096], path[4096];
	struct stat st;
	ssize_t n;
	int fd;

	slot = tfind(&key, &ps->objs, cmp_obj);
	if (slot)
		return *slot;
	fd = open_mapped_file(ps, pid, &e);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "%s/%u/map_files/%" PRIx64 "-%" PRIx64, ps->procfs, pid,
		 v->start, v->end);
	n = readlink(link, path, sizeof(path) - 1);
	if (fstat(fd, &st) || st.st_dev != v->dev || st.st_ino != v->ino || n <= 0) {
		close(fd);
		return NULL;
	}
	path[n] = '\0';
	return get_object(ps, fd, path, pid);
}

int proc_snapshot__add_vma(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
			   const struct ps_vma *v)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot, *s;
	struct proc_status st;
	struct object *o;
	struct ps_map m, *nv;
	size_t n = 0;

	if (!v || v->end <= v->start)
		return -EINVAL;
	o = vma_object(ps, pid, v);
	if (!o)
		return -ENOENT;
	m = (struct ps_map){
		.start = v->start,
		.end = v->end,
		.offset = v->offset,
		.kind = PS_MAP_FILE,
		.obj = &o->pub,
		.label = o->pub.name,
		.path = o->pub.path,
	};
	slot = tfind(&key, &ps->snaps, cmp_snap);
	if (!slot) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->key = key.key;
		s->nspid = pid;
		s->euid = -1;
		if (proc_status_read(ps->procfs, pid, &st) == 0) {
			s->nspid = st.nspid;
			s->euid = st.has_euid ? (int64_t)st.euid : -1;
		}
		if (!tsearch(s, &ps->snaps, cmp_snap)) {
			free(s);
			return -ENOMEM;
		}
		ps->n_snaps++;
	} else {
		s = *slot;
	}
	nv = malloc((s->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	/* the VMA is what is mapped now: it replaces what it covers (both lists sorted) */
	for (size_t i = 0; i < s->n; i++)
		if (!overlaps(&s->v[i], &m))
			nv[n++] = s->v[i];
	nv[n++] = m;
	qsort(nv, n, sizeof(*nv), cmp_map_start);
	free(s->v);
	s->v = nv;
	s->n = n;
	return 0;
}

static const struct snapshot *find_snap(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	struct snapshot key = {.key = (uint64_t)pid << 32 | gen}, **slot;

	slot = tfind(&key, &ps->snaps, cmp_snap);
	return slot ? *slot : NULL;
}

const struct ps_map *proc_snapshot__find(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
					 uint64_t addr)
{
	const struct snapshot *s = find_snap(ps, pid, gen);
	size_t lo = 0, hi = s ? s->n : 0;

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

uint32_t proc_snapshot__nspid(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	const struct snapshot *s = find_snap(ps, pid, gen);

	return s ? s->nspid : pid;
}

int64_t proc_snapshot__euid(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen)
{
	const struct snapshot *s = find_snap(ps, pid, gen);

	return s ? s->euid : -1;
}

/* Lower-case hex of a build-id, interned; "" when there is none. */
static const char *build_id_hex(struct proc_snapshot *ps, const struct elf_syms *es)
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
	return strset_intern(&ps->strs, hex);
}

/* Lower-case hex of a text (Go's build ID, as Parca's agent writes it), interned. */
static const char *text_hex(struct proc_snapshot *ps, const char *text)
{
	char hex[2 * sizeof(((struct go_ident *)0)->build_id) + 1] = "";
	size_t n = strlen(text);

	for (size_t i = 0; i < n && 2 * i + 2 < sizeof(hex); i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)text[i]);
	return strset_intern(&ps->strs, hex);
}

/*
 * The program headers and build-id of o, read at the first call; NULL when unreadable. A Go
 * program without a GNU build-id (Go's own linker writes none) is known by its Go build ID.
 */
static const struct elf_syms *object_headers(struct proc_snapshot *ps, struct object *o)
{
	if (!o->hdr_read) {
		struct go_ident gi = {.version = ""};

		o->hdr_read = true;
		o->hdr = elf_syms__headers_from_fd(o->pub.fd);
		o->build_id = build_id_hex(ps, o->hdr);
		if (elf_syms__go_note(o->hdr))
			gopclntab__ident_fd(o->pub.fd, &gi);
		o->go_version = strset_intern(&ps->strs, gi.version);
		if (o->build_id && !*o->build_id && *gi.build_id)
			o->build_id = text_hex(ps, gi.build_id);
	}
	return o->hdr;
}

const char *proc_snapshot__build_id(struct proc_snapshot *ps, struct ps_object *o)
{
	struct object *obj = object_of(o);

	object_headers(ps, obj);
	return obj->build_id;
}

const char *proc_snapshot__go_version(struct proc_snapshot *ps, struct ps_object *o)
{
	struct object *obj = object_of(o);

	object_headers(ps, obj);
	return obj->go_version;
}

/* The vaddr of o's object at m's start, through its program headers. 0 or a negative errno. */
static int map_vaddr(struct proc_snapshot *ps, const struct ps_map *m, uint64_t *vaddr)
{
	struct elf_map em = {.start = m->start, .end = m->end, .pgoff = m->offset, .exec = true};
	const struct elf_syms *hdr;

	if (m->kind != PS_MAP_FILE)
		return -EINVAL;
	hdr = object_headers(ps, object_of(m->obj));
	/* every mapping a snapshot keeps is executable */
	return hdr ? elf_syms__map_vaddr(hdr, &em, vaddr) : -ENOEXEC;
}

int proc_snapshot__map_vaddr(struct proc_snapshot *ps, const struct ps_map *m, uint64_t *vaddr)
{
	return map_vaddr(ps, m, vaddr);
}

int proc_snapshot__for_each_map(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, ps_map_fn fn,
				void *ctx)
{
	const struct snapshot *s = find_snap(ps, pid, gen);
	int err;

	if (!s)
		return -ENOENT;
	for (size_t i = 0; i < s->n; i++) {
		const struct ps_map *m = &s->v[i];
		struct ps_map_info mi = {
			.start = m->start,
			.end = m->end,
			.fd = -1,
			.vdso = m->kind == PS_MAP_VDSO,
		};
		struct object *o;

		if (m->kind == PS_MAP_FILE) {
			o = object_of(m->obj);
			if (!map_vaddr(ps, m, &mi.vaddr)) {
				mi.fd = o->pub.fd;
				mi.dev = o->pub.dev;
				mi.ino = o->pub.ino;
				if (o->build_id && *o->build_id)
					mi.build_id = o->build_id;
				mi.go = o->go_version && *o->go_version;
			}
		}
		err = fn(&mi, ctx);
		if (err)
			return err;
	}
	return 0;
}
