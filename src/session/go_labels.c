// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "elf/gopclntab.h"
#include "session/go_labels.h"
#include "util/safe_file.h"

_Static_assert((int)GO_LABELS_MAP == (int)CP_GO_LAYOUT_MAP &&
		       (int)GO_LABELS_SLICE == (int)CP_GO_LAYOUT_SLICE,
	       "one numbering of the label layouts");

struct go_labels {
	struct proc_snapshot *ps;
	struct go_tables *tables;
	struct go_labels_ops ops;
	uint32_t cmd_pid, cmd_gen; /* the command's entry (go_labels__command); pid 0: none */
};

struct go_labels *go_labels__new(struct proc_snapshot *ps, struct go_tables *tables,
				 const struct go_labels_ops *ops)
{
	struct go_labels *gl = calloc(1, sizeof(*gl));

	if (gl)
		*gl = (struct go_labels){.ps = ps, .tables = tables, .ops = *ops};
	return gl;
}

void go_labels__free(struct go_labels *gl)
{
	free(gl);
}

/* The entry of a Go executable's table gt (generation 0). */
static int entry_of(const struct gopclntab *gt, struct cp_go_proc *out)
{
	struct go_runtime_offsets off;
	int layout = gopclntab__labels_layout(gt);

	*out = (struct cp_go_proc){.layout = (__u8)layout, .tls_slot = gopclntab__exe_tls_slot(gt)};
	if (!layout || !out->tls_slot || gopclntab__runtime_offsets(gt, &off) || !off.g_labels ||
	    off.g_m > 0xffff || off.m_curg > 0xffff || off.g_labels > 0xffff)
		return -ENOENT;
	out->g_m = (__u16)off.g_m;
	out->m_curg = (__u16)off.m_curg;
	out->g_labels = (__u16)off.g_labels;
	return 0;
}

int go_labels__from_fd(struct go_tables *tables, int fd, struct cp_go_proc *out)
{
	const struct gopclntab *gt;
	struct gopclntab *own = NULL;
	int err;

	if (tables) {
		err = go_tables__get(tables, fd, &gt);
	} else {
		gt = own = gopclntab__from_fd(fd);
		err = gt ? 0 : -ENOENT;
	}
	err = err ? err : entry_of(gt, out);
	if (tables)
		go_tables__put(tables, gt);
	gopclntab__free(own);
	return err;
}

struct find {
	struct go_labels *gl;
	struct cp_go_proc *out;
};

static int look(const struct ps_map_info *mi, void *arg)
{
	struct find *f = arg;

	/* only a Go program is read (its version is known from its headers) */
	if (mi->fd < 0 || !mi->go)
		return 0;
	/* the program's executable: the first Go object */
	return go_labels__from_fd(f->gl->tables, mi->fd, f->out) ? 0 : 1;
}

int go_labels__loaded(struct go_labels *gl, uint32_t pid, uint32_t gen)
{
	struct cp_go_proc gp;
	struct find f = {gl, &gp};
	uint32_t now;

	/*
	 * Read after its exec: the next program's mappings (see the header). The command's exec
	 * may not have reached the point where BPF counts the new generation yet.
	 */
	if ((gl->ops.gen(gl->ops.ctx, pid, &now) == 0 && now != gen) ||
	    (pid == gl->cmd_pid && gen < gl->cmd_gen))
		return -ESTALE;
	if (proc_snapshot__for_each_map(gl->ps, pid, gen, look, &f) != 1)
		return -ENOENT;
	gp.gen = gen;
	return gl->ops.set(gl->ops.ctx, pid, &gp);
}

int go_labels__command(struct go_labels *gl, uint32_t pid, const char *path)
{
	int fd = safe_open(path, 0, NULL), err;
	struct cp_go_proc gp;
	uint32_t now;

	if (fd < 0)
		return -ENOENT;
	err = go_labels__from_fd(gl->tables, fd, &gp);
	close(fd);
	if (err)
		return err;
	/* exec starts the next generation; a process BPF has no entry for starts at 0 */
	gp.gen = gl->ops.gen(gl->ops.ctx, pid, &now) == 0 ? now + 1 : 0;
	err = gl->ops.set(gl->ops.ctx, pid, &gp);
	if (!err) {
		gl->cmd_pid = pid;
		gl->cmd_gen = gp.gen;
	}
	return err;
}
