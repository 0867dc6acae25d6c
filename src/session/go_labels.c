// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "elf/gopclntab.h"
#include "session/go_labels.h"
#include "util/safe_file.h"

_Static_assert((int)GO_LABELS_MAP == (int)CP_GO_LAYOUT_MAP &&
		       (int)GO_LABELS_SLICE == (int)CP_GO_LAYOUT_SLICE,
	       "one numbering of the label layouts");

/* Objects remembered: a process maps a few dozen; past this the oldest are looked at again. */
#define GO_SEEN 256

struct go_seen {
	uint64_t dev, ino;
	int err; /* 0: a Go program, rec holds its record */
	struct cp_go_proc rec;
};

struct go_labels {
	struct go_seen seen[GO_SEEN];
	size_t n, next;
};

struct go_labels *go_labels__new(void)
{
	return calloc(1, sizeof(struct go_labels));
}

void go_labels__free(struct go_labels *gl)
{
	free(gl);
}

int go_labels__from_fd(int fd, struct cp_go_proc *out)
{
	struct elf_file ef = {.map.slot = -1};
	struct go_runtime_offsets off;
	struct gopclntab *gt = NULL;
	int err = -ENOENT, layout;

	/* a guarded mapping: the file's owner may truncate it under the read */
	if (elf_file_open(fd, &ef))
		return -ENOENT;
	gt = gopclntab__from_elf(ef.elf);
	if (!gt)
		goto out;
	layout = gopclntab__labels_layout(gt);
	*out = (struct cp_go_proc){.layout = (__u8)layout, .tls_slot = gopclntab__tls_slot(ef.elf)};
	if (!layout || !out->tls_slot || gopclntab__runtime_offsets(gt, &off) || !off.g_labels ||
	    off.g_m > 0xffff || off.m_curg > 0xffff || off.g_labels > 0xffff ||
	    elf_file_changed(&ef))
		goto out;
	out->g_m = (__u16)off.g_m;
	out->m_curg = (__u16)off.m_curg;
	out->g_labels = (__u16)off.g_labels;
	err = 0;
out:
	gopclntab__free(gt);
	elf_file_close(&ef);
	return err;
}

struct find {
	struct go_labels *gl;
	struct cp_go_proc *out;
};

static int look(const struct ps_map_info *mi, void *arg)
{
	struct find *f = arg;
	struct go_labels *gl = f->gl;
	struct go_seen *s;

	if (mi->fd < 0)
		return 0;
	for (size_t i = 0; i < gl->n; i++) {
		s = &gl->seen[i];
		if (s->dev == mi->dev && s->ino == mi->ino)
			goto found;
	}
	s = &gl->seen[gl->next];
	gl->next = (gl->next + 1) % GO_SEEN;
	if (gl->n < GO_SEEN)
		gl->n++;
	*s = (struct go_seen){.dev = mi->dev, .ino = mi->ino};
	s->err = go_labels__from_fd(mi->fd, &s->rec);
found:
	if (s->err)
		return 0;
	*f->out = s->rec;
	return 1; /* the program's executable: the first Go object */
}

int go_labels__proc(struct go_labels *gl, struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		    struct cp_go_proc *out)
{
	struct find f = {gl, out};
	int r = proc_snapshot__for_each_map(ps, pid, gen, look, &f);

	if (r != 1)
		return -ENOENT;
	out->gen = gen;
	return 0;
}

int go_labels__from_path(const char *path, struct cp_go_proc *out)
{
	int fd = safe_open(path, 0, NULL), err;

	if (fd < 0)
		return -ENOENT;
	err = go_labels__from_fd(fd, out);
	close(fd);
	return err;
}
