// SPDX-License-Identifier: GPL-2.0
/*
 * The names of interpreter frames during a recording (session/rt_named.h): read once per
 * (pid, gen, frame) and kept; "no runtime known" not kept; a name only BPF's copy gives,
 * missing at first (the stack stored, its names not yet copied), looked at again once a round
 * up to RT_NAMED_TRIES times; a final error not looked at again; forgotten processes read again.
 */
#include "cmocka_inc.h"
#include "session/rt_named.h"

struct fake {
	int read_err;  /* what read answers */
	int reads;     /* calls of read */
	int copies;    /* calls of copied */
	int copy_from; /* copied answers 0 from this call on (1: the first); 0: never */
	const char *copy_name;
};

static int fake_read(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		     struct rt_frame_info *out)
{
	struct fake *x = ctx;

	(void)gen;
	x->reads++;
	if (x->read_err)
		return x->read_err;
	snprintf(out->name, sizeof(out->name), "f%u_%llx", pid, (unsigned long long)f->ptr);
	out->line = (int)f->pos;
	return 0;
}

static int fake_copied(void *ctx, uint32_t pid, uint32_t gen, const struct cp_rt_frame *f,
		       struct rt_frame_info *out)
{
	struct fake *x = ctx;

	(void)pid, (void)gen, (void)f;
	x->copies++;
	if (!x->copy_from || x->copies < x->copy_from)
		return -ESRCH;
	snprintf(out->name, sizeof(out->name), "%s", x->copy_name);
	return 0;
}

static void init(struct rt_named *c, struct fake *x)
{
	rt_named_init(c,
		      &(struct rt_named_ops){.ctx = x, .read = fake_read, .copied = fake_copied});
}

/* read once, kept per (pid, gen, ptr, pos, kind) */
static void test_read_once(void **state)
{
	struct fake x = {0};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x1000, .pos = 7, .kind = 1}, g = f;
	const struct rt_frame_info *info = NULL;

	(void)state;
	init(&c, &x);
	assert_int_equal(rt_named_get(&c, 5, 1, &f, &info), 0);
	assert_string_equal(info->name, "f5_1000");
	assert_int_equal(rt_named_get(&c, 5, 1, &f, &info), 0);
	assert_int_equal(x.reads, 1);
	g.pos = 8;
	assert_int_equal(rt_named_get(&c, 5, 1, &g, &info), 0);
	assert_int_equal(info->line, 8);
	assert_int_equal(rt_named_get(&c, 5, 2, &f, &info), 0);
	assert_int_equal(x.reads, 3);
	assert_int_equal(x.copies, 0);
	assert_int_equal(rt_named_count(&c), 3);
	rt_named_free(&c);
}

/* no runtime known (yet): nothing kept, asked again */
static void test_no_runtime_not_kept(void **state)
{
	struct fake x = {.read_err = -ENOENT};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x1000};
	const struct rt_frame_info *info = NULL;

	(void)state;
	init(&c, &x);
	assert_int_equal(rt_named_get(&c, 5, 1, &f, &info), -ENOENT);
	x.read_err = 0;
	assert_int_equal(rt_named_get(&c, 5, 1, &f, &info), 0);
	assert_int_equal(x.reads, 2);
	assert_int_equal(x.copies, 0);
	rt_named_free(&c);
}

/*
 * Named from BPF's copy only, which is not there at the first look (the stack was read
 * between BPF's store and its copy): looked at again at the next round, then named. Kept
 * failed for good, as before this module, the frame stayed unnamed for the whole recording.
 */
static void test_copy_late(void **state)
{
	struct fake x = {.read_err = -ENODATA, .copy_from = 2, .copy_name = "late"};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x2000};
	const struct rt_frame_info *info = NULL;

	(void)state;
	init(&c, &x);
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), -ENODATA);
	/* the same round: no second look (each sample of a drain asks) */
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), -ENODATA);
	assert_int_equal(x.copies, 1);
	rt_named_round(&c);
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), 0);
	assert_string_equal(info->name, "late");
	rt_named_round(&c);
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), 0);
	assert_int_equal(x.copies, 2);
	assert_int_equal(x.reads, 1);
	rt_named_free(&c);
}

/* a copy that never comes: RT_NAMED_TRIES looks in all, however many rounds */
static void test_copy_bounded(void **state)
{
	struct fake x = {.read_err = -ENODATA};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x2000};
	const struct rt_frame_info *info = NULL;

	(void)state;
	init(&c, &x);
	for (int i = 0; i < 3 * RT_NAMED_TRIES; i++) {
		assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), -ENODATA);
		rt_named_round(&c);
	}
	assert_int_equal(x.copies, RT_NAMED_TRIES);
	rt_named_free(&c);
}

/* gone or unreadable: BPF's copy looked at once, then final; a copy names it */
static void test_final_errors(void **state)
{
	struct fake x = {.read_err = -ESRCH};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x3000}, g = {.ptr = 0x3008};
	const struct rt_frame_info *info = NULL;

	(void)state;
	init(&c, &x);
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), -ESRCH);
	rt_named_round(&c);
	assert_int_equal(rt_named_get(&c, 9, 0, &f, &info), -ESRCH);
	assert_int_equal(x.copies, 1);
	x.read_err = -EFAULT;
	x.copy_from = 2;
	x.copy_name = "copied";
	assert_int_equal(rt_named_get(&c, 9, 0, &g, &info), 0);
	assert_string_equal(info->name, "copied");
	assert_int_equal(x.copies, 2);
	rt_named_free(&c);
}

/* a forgotten process's names go; the others stay found */
static void test_forget(void **state)
{
	struct fake x = {0};
	struct rt_named c;
	struct cp_rt_frame f = {.ptr = 0x1000};
	const struct rt_frame_info *info = NULL;
	uint64_t keys[] = {(uint64_t)6 << 32 | 0};

	(void)state;
	init(&c, &x);
	for (uint32_t pid = 5; pid <= 7; pid++)
		assert_int_equal(rt_named_get(&c, pid, 0, &f, &info), 0);
	rt_named_forget(&c, keys, 1);
	assert_int_equal(rt_named_count(&c), 2);
	assert_int_equal(rt_named_get(&c, 5, 0, &f, &info), 0);
	assert_int_equal(rt_named_get(&c, 7, 0, &f, &info), 0);
	assert_string_equal(info->name, "f7_1000");
	assert_int_equal(x.reads, 3);
	assert_int_equal(rt_named_get(&c, 6, 0, &f, &info), 0);
	assert_int_equal(x.reads, 4);
	rt_named_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_once),    cmocka_unit_test(test_no_runtime_not_kept),
		cmocka_unit_test(test_copy_late),    cmocka_unit_test(test_copy_bounded),
		cmocka_unit_test(test_final_errors), cmocka_unit_test(test_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
