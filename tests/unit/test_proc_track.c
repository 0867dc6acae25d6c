// SPDX-License-Identifier: GPL-2.0
/*
 * The processes of a recording (session/proc_track.h), driven without BPF through fake ops:
 * the requests (first sample, --comm, changed mappings, a walker's mapping), what a process
 * gone before it could be read counts, and the release of ended processes only once the sets
 * that may hold their samples are named, with their names forgotten in batches.
 */
#include <sys/sysmacros.h>
#include "cmocka_inc.h"
#include <linux/types.h>
#include "shared.h"
#include "session/proc_track.h"

struct fake {
	int refresh_err;
	int n_refresh, n_loaded, n_taken, n_excluded, n_released, n_forget_calls;
	size_t n_forgot;
	uint64_t first_forgot;
	struct ps_vma vma;
	uint32_t vma_pid;
	const char *comm;
	uint32_t gone_pid; /* this pid has ended */
};

static struct fake fk;

static int f_refresh(void *ctx, uint32_t pid, uint32_t gen)
{
	(void)ctx, (void)pid, (void)gen;
	fk.n_refresh++;
	return fk.refresh_err;
}

static void f_loaded(void *ctx, uint32_t pid, uint32_t gen)
{
	(void)ctx, (void)pid, (void)gen;
	fk.n_loaded++;
}

static void f_taken(void *ctx, uint32_t pid)
{
	(void)ctx, (void)pid;
	/* cleared before the read: code mapped meanwhile asks again */
	assert_int_equal(fk.n_refresh, fk.n_taken);
	fk.n_taken++;
}

static int f_add_vma(void *ctx, uint32_t pid, uint32_t gen, const struct ps_vma *v)
{
	(void)ctx, (void)gen;
	fk.vma = *v;
	fk.vma_pid = pid;
	return v->ino == 99 ? -ENOENT : 0;
}

static int f_comm(void *ctx, uint32_t pid, char *buf, size_t size)
{
	(void)ctx, (void)pid;
	if (!fk.comm)
		return -ESRCH;
	snprintf(buf, size, "%s", fk.comm);
	return 0;
}

static void f_exclude(void *ctx, uint32_t pid)
{
	(void)ctx, (void)pid;
	fk.n_excluded++;
}

static bool f_gone(void *ctx, uint32_t pid, uint32_t gen)
{
	(void)ctx, (void)gen;
	return pid == fk.gone_pid || pid >= 1000;
}

static int f_release(void *ctx, uint32_t pid, uint32_t gen)
{
	(void)ctx, (void)pid, (void)gen;
	fk.n_released++;
	return 0;
}

static void f_forget(void *ctx, const uint64_t *keys, size_t n)
{
	(void)ctx;
	for (size_t i = 1; i < n; i++)
		assert_true(keys[i - 1] <= keys[i]); /* sorted */
	fk.n_forget_calls++;
	fk.n_forgot += n;
	fk.first_forgot = keys[0];
}

static const struct proc_track_ops ops = {
	.refresh = f_refresh,
	.loaded = f_loaded,
	.refresh_taken = f_taken,
	.add_vma = f_add_vma,
	.comm = f_comm,
	.exclude = f_exclude,
	.gone = f_gone,
	.release = f_release,
	.forget = f_forget,
};

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	return 0;
}

static void event(struct proc_track *t, uint32_t type, uint32_t pid)
{
	struct cp_event ev = {.type = type, .pid = pid, .gen = 1};

	assert_int_equal(proc_track_event(t, &ev, sizeof(ev)), 0);
}

static void test_new_proc(void **state)
{
	struct proc_track t = {.ops = ops};
	struct cp_event ev = {.type = CP_EV_NEW_PROC, .pid = 5};

	(void)state;
	event(&t, CP_EV_NEW_PROC, 5);
	assert_int_equal(fk.n_refresh, 1);
	assert_int_equal(fk.n_loaded, 1);
	fk.refresh_err = -ESRCH; /* gone before it could be read */
	event(&t, CP_EV_NEW_PROC, 6);
	assert_int_equal(t.snapshot_failed, 1);
	fk.refresh_err = -EACCES;
	event(&t, CP_EV_NEW_PROC, 7);
	assert_int_equal(t.read_failed, 1);
	assert_int_equal(fk.n_loaded, 1); /* only what was read loads */
	/* short or unknown: nothing */
	assert_int_equal(proc_track_event(&t, &ev, sizeof(ev) - 1), 0);
	event(&t, 77, 8);
	assert_int_equal(fk.n_refresh, 3);
	proc_track_free(&t);
}

static void test_comm(void **state)
{
	struct proc_track t = {.ops = ops};
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "^make$", REG_EXTENDED | REG_NOSUB), 0);
	t.comm_re = &re;
	fk.comm = "cc1";
	event(&t, CP_EV_NEW_PROC, 5);
	assert_int_equal(fk.n_excluded, 1);
	assert_int_equal(fk.n_refresh, 0);
	fk.comm = "make";
	event(&t, CP_EV_NEW_PROC, 6);
	assert_int_equal(fk.n_excluded, 1);
	assert_int_equal(fk.n_refresh, 1);
	/* its name unreadable (gone): read anyway, the samples' own names decide later */
	fk.comm = NULL;
	event(&t, CP_EV_NEW_PROC, 7);
	assert_int_equal(fk.n_refresh, 2);
	regfree(&re);
	proc_track_free(&t);
}

static void test_maps_changed(void **state)
{
	struct proc_track t = {.ops = ops};

	(void)state;
	event(&t, CP_EV_MAPS_CHANGED, 5);
	assert_int_equal(fk.n_taken, 1);
	assert_int_equal(fk.n_loaded, 1);
	fk.refresh_err = -ESRCH;
	event(&t, CP_EV_MAPS_CHANGED, 5);
	assert_int_equal(t.refresh_failed, 1);
	assert_int_equal(t.snapshot_failed, 0);
	proc_track_free(&t);
}

static void test_mapping(void **state)
{
	struct proc_track t = {.ops = ops};
	struct cp_map_event me = {
		.ev = {.type = CP_EV_MAPPING, .pid = 9, .gen = 2},
		.start = 0x1000,
		.end = 0x3000,
		.pgoff = 2,
		.dev = 8u << CP_KDEV_MINOR_BITS | 3,
		.ino = 42,
	};

	(void)state;
	assert_int_equal(proc_track_event(&t, &me, sizeof(me)), 0);
	assert_int_equal(fk.vma_pid, 9);
	assert_int_equal(fk.vma.offset, 2 * 4096);
	assert_int_equal(fk.vma.dev, makedev(8, 3));
	assert_int_equal(fk.vma.ino, 42);
	assert_int_equal(t.vma_added, 1);
	me.ino = 99;
	assert_int_equal(proc_track_event(&t, &me, sizeof(me)), 0);
	assert_int_equal(t.vma_unknown, 1);
	/* too short for a mapping: left alone */
	assert_int_equal(proc_track_event(&t, &me, sizeof(me.ev)), 0);
	assert_int_equal(t.vma_added + t.vma_unknown, 2);
	proc_track_free(&t);
}

/* Released only once the sets that may hold its samples are named; listed once. */
static void test_release(void **state)
{
	struct proc_track t = {.ops = ops, .system_wide = true};

	(void)state;
	fk.gone_pid = 5;
	assert_true(proc_track_looking(&t));
	assert_int_equal(proc_track_check(&t, 4, 1, 3), 0); /* alive */
	assert_int_equal(proc_track_check(&t, 5, 1, 3), 0);
	assert_false(proc_track_looking(&t));
	proc_track_release(&t, 2);
	assert_int_equal(fk.n_released, 0);
	proc_track_release(&t, 3);
	assert_int_equal(fk.n_released, 1);
	assert_int_equal(t.n_released, 1);
	assert_true(proc_track_looking(&t));
	assert_int_equal(t.n_ended, 1);
	assert_int_equal(t.ended[0], 5);
	assert_int_equal(t.n_forget, 1);
	assert_int_equal(fk.n_forget_calls, 0);
	proc_track_free(&t);
}

/* Names forgotten PROC_TRACK_FORGET_AT processes at a time, sorted; -p: no merge list. */
static void test_forget(void **state)
{
	struct proc_track t = {.ops = ops};

	(void)state;
	for (uint32_t pid = 1000 + PROC_TRACK_FORGET_AT; pid > 1000; pid--)
		assert_int_equal(proc_track_check(&t, pid, 0, 1), 0);
	proc_track_release(&t, 1);
	assert_int_equal(fk.n_forget_calls, 1);
	assert_int_equal(fk.n_forgot, PROC_TRACK_FORGET_AT);
	assert_int_equal(fk.first_forgot, (uint64_t)1001 << 32);
	assert_int_equal(t.n_forget, 0);
	assert_int_equal(t.n_ended, 0);
	proc_track_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_new_proc, setup),
		cmocka_unit_test_setup(test_comm, setup),
		cmocka_unit_test_setup(test_maps_changed, setup),
		cmocka_unit_test_setup(test_mapping, setup),
		cmocka_unit_test_setup(test_release, setup),
		cmocka_unit_test_setup(test_forget, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
