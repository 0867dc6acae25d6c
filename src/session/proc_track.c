// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <linux/types.h>
#include "shared.h"
#include "session/proc_track.h"
#include "util/grow.h"

/* The mappings of (pid, gen) read (merged); on success, what depends on them. */
static void read_maps(struct proc_track *t, uint32_t pid, uint32_t gen, uint64_t *gone)
{
	int err = t->ops.refresh(t->ops.ctx, pid, gen);

	if (err == -ESRCH)
		(*gone)++;
	else if (err)
		t->read_failed++;
	else
		t->ops.loaded(t->ops.ctx, pid, gen);
}

static void add_mapping(struct proc_track *t, const struct cp_map_event *me)
{
	struct ps_vma v = {
		.start = me->start,
		.end = me->end,
		.offset = me->pgoff * 4096,
		/* the kernel's MKDEV encoding, as st_dev has it */
		.dev = makedev(me->dev >> CP_KDEV_MINOR_BITS,
			       me->dev & ((1u << CP_KDEV_MINOR_BITS) - 1)),
		.ino = me->ino,
	};
	/* a file the walker met before the mappings were read: name its frames */
	int err = t->ops.add_vma(t->ops.ctx, me->ev.pid, me->ev.gen, &v);

	t->vma_added += err == 0;
	t->vma_unknown += err == -ENOENT;
}

/* The first sample of (pid, gen): ours (--comm) or not, then its mappings. */
static void new_proc(struct proc_track *t, uint32_t pid, uint32_t gen)
{
	char comm[CP_COMM_LEN + 1];

	if (t->comm_re && t->ops.comm(t->ops.ctx, pid, comm, sizeof(comm)) == 0 &&
	    regexec(t->comm_re, comm, 0, NULL, 0) != 0) {
		/* not ours: stop sampling it; the next exec asks again */
		t->ops.exclude(t->ops.ctx, pid);
		return;
	}
	/* merge: a -p target was read at start, and may have mapped code since */
	read_maps(t, pid, gen, &t->snapshot_failed);
}

int proc_track_event(struct proc_track *t, const void *data, size_t size)
{
	const struct cp_event *ev = data;

	if (size < sizeof(*ev))
		return 0;
	switch (ev->type) {
	case CP_EV_MAPS_CHANGED:
		/* cleared first: code mapped while we read asks again */
		t->ops.refresh_taken(t->ops.ctx, ev->pid);
		read_maps(t, ev->pid, ev->gen, &t->refresh_failed);
		break;
	case CP_EV_MAPPING:
		if (size >= sizeof(struct cp_map_event))
			add_mapping(t, data);
		break;
	case CP_EV_NEW_PROC:
		new_proc(t, ev->pid, ev->gen);
		break;
	default:
		break;
	}
	return 0;
}

bool proc_track_looking(const struct proc_track *t)
{
	return t->n_gone == 0;
}

int proc_track_check(struct proc_track *t, uint32_t pid, uint32_t gen, uint64_t release_at)
{
	if (!t->ops.gone(t->ops.ctx, pid, gen))
		return 0;
	if (array_grow((void **)&t->gone, &t->cap_gone, t->n_gone + 1, sizeof(*t->gone)))
		return -ENOMEM;
	t->gone[t->n_gone++] = (struct proc_gone){(uint64_t)pid << 32 | gen, release_at};
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One process released: its snapshot, then its names and pid listed (lost on ENOMEM only). */
static void release_one(struct proc_track *t, uint64_t key)
{
	uint32_t pid = (uint32_t)(key >> 32);

	if (!t->ops.release(t->ops.ctx, pid, (uint32_t)key))
		t->n_released++;
	if (!array_grow((void **)&t->forget, &t->cap_forget, t->n_forget + 1, sizeof(*t->forget)))
		t->forget[t->n_forget++] = key;
	/* system-wide: its samples may go to no process (merged) */
	if (t->system_wide &&
	    !array_grow((void **)&t->ended, &t->cap_ended, t->n_ended + 1, sizeof(*t->ended)))
		t->ended[t->n_ended++] = pid;
}

void proc_track_release(struct proc_track *t, uint64_t n_named)
{
	size_t i;

	for (i = 0; i < t->n_gone && t->gone[i].release_at <= n_named; i++)
		release_one(t, t->gone[i].key);
	/* t->gone is NULL until a process has ended: memmove must not see it */
	if (i)
		memmove(t->gone, t->gone + i, (t->n_gone - i) * sizeof(*t->gone));
	t->n_gone -= i;
	/*
	 * and the names of their interpreter frames, PROC_TRACK_FORGET_AT processes at a time (a
	 * pass over every name kept): a 100 s recording of a busy machine held 11 MB of them
	 */
	if (t->n_forget >= PROC_TRACK_FORGET_AT) {
		qsort(t->forget, t->n_forget, sizeof(*t->forget), cmp_u64);
		t->ops.forget(t->ops.ctx, t->forget, t->n_forget);
		t->n_forget = 0;
	}
}

void proc_track_free(struct proc_track *t)
{
	free(t->gone);
	free(t->forget);
	free(t->ended);
	t->gone = NULL;
	t->forget = NULL;
	t->ended = NULL;
	t->n_gone = t->n_forget = t->n_ended = 0;
}
