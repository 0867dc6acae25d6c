/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What processes had mapped: per (pid, generation), the executable mappings of the process as
 * /proc/PID/maps said when they were read (a new generation begins at each exec), and the
 * files behind them. Both the unwinder (tables per object) and the symbolizer (names per
 * object) work from these, so the process may exit before the recording ends.
 *
 * Objects: one per file (device, inode), shared by every mapping of it in every process, opened
 * when first mapped (through /proc/PID/map_files, else /proc/PID/root/PATH) and kept open
 * until proc_snapshot__free(). Its program headers and build-id are read at the first need.
 * The vDSO has no file: its mappings are marked, and cpuprof's own copy stands for it
 * (proc/vdso.h). Strings (paths, base names, build-ids) are interned: they live as long as the
 * proc_snapshot, and equal build-ids are one pointer. Nothing here prints.
 */
#ifndef CPUPROF_PROC_SNAPSHOT_H
#define CPUPROF_PROC_SNAPSHOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_snapshot;

/* One file, shared by every mapping of it. Read-only to users. */
struct ps_object {
	uint64_t dev, ino; /* identity */
	int fd;		   /* open for the life of the proc_snapshot */
	const char *name;  /* base name ("libc.so.6") */
	const char *path;  /* path as the first process that mapped it saw it */
	uint32_t pid;	   /* that process: its root holds the object's debug files too */
};

enum ps_map_kind {
	PS_MAP_FILE,	/* obj is set */
	PS_MAP_NOFILE,	/* a file that could not be opened: named by label and file offset */
	PS_MAP_ANON,	/* anonymous executable memory (JIT code) */
	PS_MAP_VDSO,	/* the kernel's vDSO, the same image in every process */
	PS_MAP_SPECIAL, /* [vsyscall] and the like */
};

/* One executable mapping of a snapshot. */
struct ps_map {
	uint64_t start, end; /* runtime addresses */
	uint64_t offset;     /* file offset of start */
	enum ps_map_kind kind;
	struct ps_object *obj; /* PS_MAP_FILE only, else NULL */
	const char *label;     /* base name: "libc.so.6", "[anon]", "[vdso]" */
	const char *path;      /* as mapped: "/usr/lib/x/libc.so.6", "[anon]", "[vdso]" */
};

/* procfs is "/proc" except in tests. Returns NULL and sets errno. */
struct proc_snapshot *proc_snapshot__new(const char *procfs);

/*
 * Whether mappings are asked of the kernel with PROCMAP_QUERY where it has that ioctl (the
 * default) or always read as the text of /proc/PID/maps (tests, comparisons).
 */
void proc_snapshot__use_maps_query(struct proc_snapshot *ps, bool on);

/* NULL-safe; closes every file kept open. */
void proc_snapshot__free(struct proc_snapshot *ps);

/* The procfs it reads ("/proc"). */
const char *proc_snapshot__procfs(const struct proc_snapshot *ps);

/*
 * Save the executable mappings of process pid as generation gen, and open its objects.
 * Idempotent per (pid, gen). Returns 0, -ESRCH when the process is gone, -ENOMEM.
 */
int proc_snapshot__take(struct proc_snapshot *ps, uint32_t pid, uint32_t gen);

/*
 * Read the mappings of (pid, gen) again and add the new ones to its snapshot (the process
 * mapped more code: the dynamic loader, dlopen). Mappings that are gone stay, unless a new one
 * covers their addresses: earlier samples may point into them. Takes the snapshot if there is
 * none. Same returns as proc_snapshot__take.
 */
int proc_snapshot__refresh(struct proc_snapshot *ps, uint32_t pid, uint32_t gen);

/* A file mapping as the kernel's VMA describes it (the BPF walker's cp_map_event). */
struct ps_vma {
	uint64_t start, end; /* runtime addresses */
	uint64_t offset;     /* file offset of start */
	uint64_t dev, ino;   /* the file (dev as st_dev) */
};

/*
 * Add mapping v to the snapshot of (pid, gen), taking an empty one if there is none (the
 * process may be gone before its mappings could be read): its object is the file (dev, ino)
 * opened for another mapping, else the one /proc/PID/map_files still shows. A mapping it
 * covers goes, as in a refresh. 0, -ENOENT when the file is not known and cannot be opened,
 * -EINVAL, -ENOMEM.
 */
int proc_snapshot__add_vma(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
			   const struct ps_vma *v);

/*
 * Forget the snapshot of (pid, gen): the process has exited or exec'd, and its samples are
 * named. Its objects stay open (other processes map them too). -ENOENT when there is none.
 */
int proc_snapshot__release(struct proc_snapshot *ps, uint32_t pid, uint32_t gen);

typedef int (*ps_snap_fn)(uint32_t pid, uint32_t gen, void *ctx);

/*
 * Call fn for each snapshot held, as (pid, gen); stops at and returns fn's first nonzero
 * result. fn must not take or release snapshots.
 */
int proc_snapshot__for_each_snapshot(const struct proc_snapshot *ps, ps_snap_fn fn, void *ctx);

/*
 * The mapping of (pid, gen) that holds addr; NULL when none does or there is no snapshot. Valid
 * until the next refresh of (pid, gen).
 */
const struct ps_map *proc_snapshot__find(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
					 uint64_t addr);

/*
 * The pid of (pid, gen) inside its own pid namespace (NSpid of /proc/PID/status when the
 * snapshot was taken); pid when there is no snapshot or the status could not be read.
 */
uint32_t proc_snapshot__nspid(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen);

/*
 * The effective user of (pid, gen) (Uid: of /proc/PID/status when the snapshot was taken), -1
 * when there is no snapshot or it could not be read.
 */
int64_t proc_snapshot__euid(const struct proc_snapshot *ps, uint32_t pid, uint32_t gen);

/*
 * The GNU build-id of o in lower-case hex, "" when it has none or is not ELF; read once, with
 * its program headers. A Go program without a GNU build-id: its Go build ID (.note.go.buildid,
 * as `go tool buildid` prints it), hex-encoded as Parca's agent does. NULL on ENOMEM.
 */
const char *proc_snapshot__build_id(struct proc_snapshot *ps, struct ps_object *o);

/* The Go version of o ("go1.19.8"), "" when it is not a Go program or has none; NULL: ENOMEM. */
const char *proc_snapshot__go_version(struct proc_snapshot *ps, struct ps_object *o);

/*
 * The object's file vaddr at m->start, so that a runtime address A of m is the object's vaddr
 * A - m->start + *vaddr: elf_layout.h's translation, the one the unwinder's mapping tables
 * (ps_map_info.vaddr) use too. m is a PS_MAP_FILE mapping of ps. 0, -EINVAL (another kind),
 * -ENOEXEC (program headers unreadable), -ENOENT (no PT_LOAD maps it).
 */
int proc_snapshot__map_vaddr(struct proc_snapshot *ps, const struct ps_map *m, uint64_t *vaddr);

/* One executable mapping of a snapshot, for building unwind tables. */
struct ps_map_info {
	uint64_t start, end;  /* runtime addresses */
	int fd;		      /* the object's file (owned by the proc_snapshot), -1 if not a file */
	uint64_t dev, ino;    /* the object's identity: one table per file */
	uint64_t vaddr;	      /* file vaddr at start (proc_snapshot__map_vaddr); when fd >= 0 */
	bool vdso;	      /* the kernel's vDSO (fd -1): the image mapped at start */
	const char *build_id; /* interned hex (one pointer per id), NULL when none */
	bool go;	      /* a Go program: its Go version is known (with fd >= 0) */
};

typedef int (*ps_map_fn)(const struct ps_map_info *mi, void *ctx);

/*
 * Call fn for each executable mapping of (pid, gen), in address order; stops at and returns
 * fn's first nonzero result. -ENOENT when there is no snapshot. A file whose program headers
 * cannot be read, or whose headers do not map the mapping's offset, is passed with fd -1.
 */
int proc_snapshot__for_each_map(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, ps_map_fn fn,
				void *ctx);

/* Number of snapshots taken (released ones included) and of distinct objects opened. */
unsigned int proc_snapshot__n_snapshots(const struct proc_snapshot *ps);
unsigned int proc_snapshot__n_objects(const struct proc_snapshot *ps);

#endif
