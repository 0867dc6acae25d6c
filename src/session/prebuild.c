// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/clock.h"
#include "session/prebuild.h"
#include "proc/proc_maps.h"
#include "proc/proc_status.h"
#include "util/strnum.h"
#include "util/safe_file.h"

/* Table of the ELF file at path, if it is one (a script's interpreter is found at exec). */
static int add_elf_file(struct unwind_maps *um, const char *path)
{
	unsigned char magic[4];
	int fd, err = 0;

	fd = safe_open(path, 0, NULL);
	if (fd < 0)
		return 0;
	if (pread(fd, magic, sizeof(magic), 0) == sizeof(magic) && !memcmp(magic, "\177ELF", 4))
		err = unwind_maps__add_file(um, fd);
	close(fd);
	return err;
}

static bool is_runtime(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
	       !strncmp(base, "libm.so", 7);
}

/* The loader and C library of this program: the same files as nearly every program's. */
static int add_runtime(struct unwind_maps *um, const char *procfs)
{
	struct proc_maps pm = {0};
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/self/maps", procfs);
	f = fopen(path, "re");
	if (!f)
		return 0;
	err = proc_maps_parse(f, &pm);
	fclose(f);
	for (size_t i = 0; !err && i < pm.n; i++) {
		const struct map_entry *e = &pm.v[i];

		if (e->executable && e->path && e->path[0] == '/' && !e->deleted &&
		    is_runtime(e->path))
			err = add_elf_file(um, e->path);
	}
	proc_maps_free(&pm);
	return err == -ENOMEM ? err : 0;
}

static bool comm_matches(const char *procfs, pid_t pid, const regex_t *re)
{
	char comm[32];

	return proc_comm_read(procfs, (uint32_t)pid, comm, sizeof(comm)) == 0 &&
	       regexec(re, comm, 0, NULL, 0) == 0;
}

/* Kernel threads have no executable: nothing to unwind there. */
static bool is_user_process(const char *procfs, pid_t pid)
{
	char path[64], buf[8];

	snprintf(path, sizeof(path), "%s/%d/exe", procfs, (int)pid);
	return readlink(path, buf, sizeof(buf)) > 0;
}

static int add_proc(struct proc_snapshot *ps, const struct prebuild_opts *o, pid_t pid,
		    struct prebuild_result *st)
{
	int err;

	if (o->comm_re && !comm_matches(o->procfs, pid, o->comm_re))
		return 0;
	err = proc_snapshot__take(ps, (uint32_t)pid, 0);
	if (err == -ENOMEM)
		return err;
	if (err) {
		st->procs_failed++;
		return 0;
	}
	if (st->procs == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		pid_t *v = reallocarray(st->pids, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->pids = v;
		st->cap = cap;
	}
	st->pids[st->procs++] = pid;
	return 0;
}

static bool stopped(const struct prebuild_opts *o)
{
	return o->stop && o->stop(o->stop_ctx);
}

static int add_all(struct proc_snapshot *ps, const struct prebuild_opts *o,
		   struct prebuild_result *st)
{
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(o->procfs);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		uint64_t v;

		if (stopped(o)) {
			err = -EINTR;
			break;
		}
		if (parse_u64(de->d_name, 1, INT_MAX, &v) || (pid_t)v == o->self ||
		    !is_user_process(o->procfs, (pid_t)v))
			continue;
		err = add_proc(ps, o, (pid_t)v, st);
	}
	closedir(d);
	return err;
}

int prebuild(struct proc_snapshot *ps, struct unwind_maps *um, const struct prebuild_opts *o,
	     struct prebuild_result *st)
{
	uint64_t t0 = monotonic_ns();
	int err = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; !err && i < o->n_pids; i++)
		err = stopped(o) ? -EINTR : add_proc(ps, o, o->pids[i], st);
	if (!err && !o->n_pids && o->all)
		err = add_all(ps, o, st);
	st->ns = monotonic_ns() - t0;
	if (!err && um)
		err = prebuild_tables(ps, um, o, st);
	return err;
}

int prebuild_tables(struct proc_snapshot *ps, struct unwind_maps *um, const struct prebuild_opts *o,
		    struct prebuild_result *st)
{
	uint64_t t0 = monotonic_ns();
	int err = add_runtime(um, o->procfs);

	if (!err && o->exe)
		err = add_elf_file(um, o->exe);
	for (size_t i = 0; !err && i < st->procs; i++) {
		err = stopped(o) ? -EINTR : unwind_maps__add_proc(um, ps, (uint32_t)st->pids[i], 0);
		/* one process's table that cannot be published costs its DWARF walks only */
		if (err && err != -ENOMEM && err != -EINTR)
			err = 0;
	}
	st->tables_ns = monotonic_ns() - t0;
	return err;
}

void prebuild_result_free(struct prebuild_result *res)
{
	free(res->pids);
	memset(res, 0, sizeof(*res));
}
