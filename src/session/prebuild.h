/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Before sampling starts: read the mappings of the target processes that exist now (every
 * process when recording the whole system), then build their unwind tables, and build ahead the
 * tables a new program is sure to need (its executable, the C library and the dynamic loader),
 * so that the first samples are walked with tables already. Nothing here prints.
 */
#ifndef CPUPROF_PREBUILD_H
#define CPUPROF_PREBUILD_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "proc/proc_snapshot.h"
#include "unwind/unwind_maps.h"

struct prebuild_opts {
	const char *procfs;	/* "/proc" */
	const pid_t *pids;	/* these processes, */
	size_t n_pids;		/* or, when 0 and all is set, */
	bool all;		/* every process but self */
	const regex_t *comm_re; /* and then only those whose name matches (NULL: all) */
	pid_t self;
	const char *exe; /* the command's executable (NULL: none) */
	/* asked between processes: true stops the work (-EINTR); NULL: never */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};

struct prebuild_result {
	pid_t *pids;  /* the processes whose mappings were read, */
	size_t procs; /* this many */
	size_t cap;
	size_t procs_failed; /* gone or unreadable meanwhile */
	uint64_t ns;	     /* time the snapshots took */
	uint64_t tables_ns;  /* and the tables (prebuild_tables) */
};

/*
 * Snapshot the processes of o into ps (as generation 0) and, when um is not NULL, then add
 * their tables (prebuild_tables). Errors of one process do not stop the others. 0, -ENOMEM, or
 * -EINTR when o->stop asked to stop. Free *res with prebuild_result_free.
 */
int prebuild(struct proc_snapshot *ps, struct unwind_maps *um, const struct prebuild_opts *o,
	     struct prebuild_result *res);

/*
 * Add to um the tables of the processes prebuild read into ps and res, and those of o->exe and
 * of the loader and C library this program uses. A recording calls it once um is attached to
 * the row store, so that each table goes there as it is built, not held in memory until then.
 * 0, -ENOMEM, or -EINTR when o->stop asked to stop.
 */
int prebuild_tables(struct proc_snapshot *ps, struct unwind_maps *um, const struct prebuild_opts *o,
		    struct prebuild_result *res);

void prebuild_result_free(struct prebuild_result *res);

#endif
