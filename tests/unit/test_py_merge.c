// SPDX-License-Identifier: GPL-2.0
/*
 * Interleaving Python frames with native ones (interp/py_merge.h), on the stack shapes of each
 * version family (interpreters.md 1.2: one eval activation per frame up to 3.10, is_entry in
 * 3.11, shims from 3.12, which the walker turns into the same entry flags), with C code
 * between Python frames, a native walk cut short, a Python walk cut short.
 */
#include <stdbool.h>
#include "cmocka_inc.h"
#include "interp/interp_merge.h"
#include "python_shared.h"

static const struct rt_eval_range EVAL = {0x1000, 0x2000, 0x9000, 0x9010};
#define EV   0x1800 /* in the eval loop */
#define COLD 0x9008 /* in its .cold part */

/* "p0 n1 ..." of a merge (p: Python frame, n: native frame, T: truncated), leaf first. */
static void render(const struct rt_mframe *m, size_t n, char *buf, size_t len)
{
	size_t i, k = 0;

	buf[0] = 0;
	for (i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%c%u", i ? " " : "",
				      m[i].kind == RT_MF_NATIVE	  ? 'n'
				      : m[i].kind == RT_MF_INTERP ? 'p'
								  : 'T',
				      m[i].kind == RT_MF_TRUNCATED ? 0 : m[i].index);
}

/* entries: one char per Python frame, innermost first: 'E' flagged, '-' not */
static void check(const uint64_t *pcs, size_t npcs, const char *entries, bool truncated,
		  const char *want, unsigned int no_python, unsigned int leftover)
{
	struct cp_rt_frame py[16] = {{0}};
	struct rt_merge_stats st = {0, 0};
	struct rt_mframe out[32];
	char got[256];
	size_t npy = strlen(entries), i, n;

	for (i = 0; i < npy; i++) {
		py[i].ptr = 0x100 + i;
		py[i].kind = CP_PY_FRAME_CODE;
		py[i].flags = entries[i] == 'E' ? CP_RT_FF_ENTRY : 0;
	}
	n = interp_merge(pcs, npcs, py, npy, truncated, &EVAL, out, 32, &st);
	render(out, n, got, sizeof(got));
	assert_string_equal(got, want);
	assert_int_equal(st.eval_without_frames, no_python);
	assert_int_equal(st.frames_leftover, leftover);
}

static void test_up_to_310(void **state)
{
	/* inner (hot code: the leaf pc is in the eval loop), mid, outer: one activation each,
	 * with call glue between them; then Py_RunMain, main, _start */
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x5000, EV + 1, 0x6000, 0x7000, 0x8000};

	(void)state;
	check(pcs, 8, "EEE", false, "p0 n1 p1 n3 p2 n5 n6 n7", 0, 0);
}

static void test_311_callback(void **state)
{
	/* leaf runs a C extension (leaf pc outside the eval loop); leaf was called by list.sort
	 * (native 2), which via_c called; via_c, top and <module> share one activation */
	const uint64_t pcs[] = {0x4000, EV + 1, 0x5000, EV + 1, 0x6000};

	(void)state;
	check(pcs, 5, "E--E", false, "n0 p0 n2 p1 p2 p3 n4", 0, 0);
}

static void test_cold_part(void **state)
{
	const uint64_t pcs[] = {COLD, EV + 1, 0x6000};

	(void)state;
	check(pcs, 3, "E-E", false, "p0 p1 p2 n2", 0, 0);
	/* a return address right after the range's end belongs to the call before it */
	{
		const uint64_t edge[] = {0x4000, EVAL.end, 0x6000};

		check(edge, 3, "E", false, "n0 p0 n2", 0, 0);
	}
}

static void test_native_cut_short(void **state)
{
	/* the native walk stopped after the first activation (the leaf, its own entry): the
	 * other four frames go to the root side */
	const uint64_t pcs[] = {EV};

	(void)state;
	check(pcs, 1, "E-E-E", false, "p0 p1 p2 p3 p4", 0, 4);
}

static void test_more_activations_than_frames(void **state)
{
	/* an activation whose frame the walk did not see (mid-call): kept native, counted */
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x6000};

	(void)state;
	check(pcs, 4, "E", false, "p0 n1 n2 n3", 1, 0);
}

static void test_python_cut_short(void **state)
{
	/* more Python frames than the walker records: the outer activations are native, after a
	 * truncation mark; not counted as a mismatch */
	const uint64_t pcs[] = {EV, EV + 1, EV + 1, 0x6000};

	(void)state;
	check(pcs, 4, "EE", true, "p0 p1 T0 n2 n3", 0, 0);
	check(pcs, 1, "EE", true, "p0 p1 T0", 0, 1);
}

static void test_no_python(void **state)
{
	const uint64_t pcs[] = {0x4000, 0x5000};

	(void)state;
	check(pcs, 2, "", false, "n0 n1", 0, 0);
}

static void test_capacity(void **state)
{
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x6000};
	struct cp_rt_frame py[2] = {{.ptr = 1, .flags = CP_RT_FF_ENTRY},
				    {.ptr = 2, .flags = CP_RT_FF_ENTRY}};
	struct rt_mframe out[3];

	(void)state;
	assert_int_equal(interp_merge(pcs, 4, py, 2, false, &EVAL, out, 3, NULL), 3);
	assert_int_equal(out[2].kind, RT_MF_INTERP);
	assert_int_equal(out[2].index, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_up_to_310),
		cmocka_unit_test(test_311_callback),
		cmocka_unit_test(test_cold_part),
		cmocka_unit_test(test_native_cut_short),
		cmocka_unit_test(test_more_activations_than_frames),
		cmocka_unit_test(test_python_cut_short),
		cmocka_unit_test(test_no_python),
		cmocka_unit_test(test_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
