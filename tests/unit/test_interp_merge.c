// SPDX-License-Identifier: GPL-2.0
/*
 * Interleaving interpreter frames with native ones (interp/interp_merge.h), one merge for every
 * runtime. CPython, on the stack shapes of each version family (interpreters.md 1.2: one eval
 * activation per frame up to 3.10, is_entry in 3.11, shims from 3.12, which the walker turns
 * into the same entry flags), with C code between Python frames, a native walk cut short, a
 * Python walk cut short. Ruby: each rb_vm_exec activation takes the Ruby frames up to the next
 * one flagged FINISH; a C method called from Ruby (its CFUNC frame and its native code) stays
 * under its Ruby caller, and the block it yields to under it; a native walk cut short; a Ruby
 * walk cut short.
 */
#include <stdbool.h>
#include "cmocka_inc.h"
#include "interp/interp_merge.h"
#include "python_shared.h"
#include "ruby_shared.h"

static const struct rt_eval_range EVAL = {0x1000, 0x2000, 0x9000, 0x9010, NULL, 0};
#define EV	 0x1800 /* in the eval loop */
#define COLD	 0x9008 /* in its .cold part */

#define VM_START 0x1000
#define VM_END	 0x2000
#define VM	 0x1800 /* a return address in rb_vm_exec */
static const struct rt_eval_range VM_RANGE = {VM_START, VM_END, 0, 0, NULL, 0};

/* a runtime of the JIT hook: its code ranges; its frames' native pcs are start + 1 */
static const struct cp_rt_jit_range JIT[2] = {{0x4000, 0x5000}, {0x7000, 0x8000}};
static const struct rt_eval_range JIT_RANGE = {0, 0, 0, 0, JIT, 2};

/* "p0 n1 ..." of a merge (letter: an interpreter frame, n: native frame, T: truncated), leaf
 * first. */
static void render(const struct rt_mframe *m, size_t n, char letter, char *buf, size_t len)
{
	size_t i, k = 0;

	buf[0] = 0;
	for (i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%c%u", i ? " " : "",
				      m[i].kind == RT_MF_NATIVE	  ? 'n'
				      : m[i].kind == RT_MF_INTERP ? letter
								  : 'T',
				      m[i].kind == RT_MF_TRUNCATED ? 0 : m[i].index);
}

/*
 * frames: one char per interpreter frame, innermost first: 'E' or 'F' flagged CP_RT_FF_ENTRY,
 * 'c' a Ruby C method, '-' a plain frame.
 */
static void check_whole(const uint64_t *pcs, size_t npcs, bool whole, const char *frames,
			bool truncated, const struct rt_eval_range *eval, char letter,
			const char *want, unsigned int no_frames, unsigned int leftover,
			unsigned int stale)
{
	struct cp_rt_frame fr[16] = {{0}};
	struct rt_merge_stats st = {0, 0, 0};
	struct rt_mframe out[32];
	char got[256];
	size_t nf = strlen(frames), i, n;

	for (i = 0; i < nf; i++) {
		fr[i].ptr = 0x100 + i;
		fr[i].kind = frames[i] == 'c' ? CP_RB_FRAME_CFUNC : CP_PY_FRAME_CODE;
		fr[i].flags = frames[i] == 'E' || frames[i] == 'F' ? CP_RT_FF_ENTRY : 0;
	}
	n = interp_merge(pcs, npcs, whole, fr, nf, truncated, eval, out, 32, &st);
	render(out, n, letter, got, sizeof(got));
	assert_string_equal(got, want);
	assert_int_equal(st.eval_without_frames, no_frames);
	assert_int_equal(st.frames_leftover, leftover);
	assert_int_equal(st.frames_stale, stale);
}

/* The native walk cut short (or not known to be whole). */
static void check(const uint64_t *pcs, size_t npcs, const char *frames, bool truncated,
		  const struct rt_eval_range *eval, char letter, const char *want,
		  unsigned int no_frames, unsigned int leftover)
{
	check_whole(pcs, npcs, false, frames, truncated, eval, letter, want, no_frames, leftover,
		    0);
}

static void py_check(const uint64_t *pcs, size_t npcs, const char *frames, bool truncated,
		     const char *want, unsigned int no_frames, unsigned int leftover)
{
	check(pcs, npcs, frames, truncated, &EVAL, 'p', want, no_frames, leftover);
}

static void rb_check(const uint64_t *pcs, size_t npcs, const char *frames, bool truncated,
		     const char *want, unsigned int no_frames, unsigned int leftover)
{
	check(pcs, npcs, frames, truncated, &VM_RANGE, 'r', want, no_frames, leftover);
}

/*
 * The JIT hook's merge: the pseudo pcs (a range's start + 1: the leaf's as it is, callers'
 * looked up less one) are replaced by one frame each; other pcs in the ranges (a stub, an entry
 * frame the step left native) stay native frames; the ranges' frames come in order.
 */
static void test_jit_pseudo_pcs(void **state)
{
	/* leaf: a JS frame; a stub in the code range; two JS frames (two ranges); the entry */
	const uint64_t pcs[] = {0x4001, 0x4100, 0x7001, 0x4001, 0x7400, 0x600};

	(void)state;
	check(pcs, 6, "EEE", false, &JIT_RANGE, 'j', "j0 n1 j1 j2 n4 n5", 0, 0);
	/* a pseudo pc without its frame (the hook's stack full): native, counted */
	check(pcs, 6, "EE", true, &JIT_RANGE, 'j', "j0 n1 j1 T0 n3 n4 n5", 0, 0);
}

static void test_up_to_310(void **state)
{
	/* inner (hot code: the leaf pc is in the eval loop), mid, outer: one activation each,
	 * with call glue between them; then Py_RunMain, main, _start */
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x5000, EV + 1, 0x6000, 0x7000, 0x8000};

	(void)state;
	py_check(pcs, 8, "EEE", false, "p0 n1 p1 n3 p2 n5 n6 n7", 0, 0);
}

static void test_311_callback(void **state)
{
	/* leaf runs a C extension (leaf pc outside the eval loop); leaf was called by list.sort
	 * (native 2), which via_c called; via_c, top and <module> share one activation */
	const uint64_t pcs[] = {0x4000, EV + 1, 0x5000, EV + 1, 0x6000};

	(void)state;
	py_check(pcs, 5, "E--E", false, "n0 p0 n2 p1 p2 p3 n4", 0, 0);
}

static void test_cold_part(void **state)
{
	const uint64_t pcs[] = {COLD, EV + 1, 0x6000};

	(void)state;
	py_check(pcs, 3, "E-E", false, "p0 p1 p2 n2", 0, 0);
	/* a return address right after the range's end belongs to the call before it */
	{
		const uint64_t edge[] = {0x4000, EVAL.end, 0x6000};

		py_check(edge, 3, "E", false, "n0 p0 n2", 0, 0);
	}
}

static void test_native_cut_short(void **state)
{
	/* the native walk stopped after the first activation (the leaf, its own entry): the
	 * other four frames go to the root side */
	const uint64_t pcs[] = {EV};

	(void)state;
	py_check(pcs, 1, "E-E-E", false, "p0 p1 p2 p3 p4", 0, 4);
}

/*
 * A whole native stack without any loop activation runs no script code: the frames the walker
 * read are stale (a Perl ithread between its interpreter's clone and its first sub showed the
 * parent's <main> above start_thread) and left out. With an activation, the frames it did not
 * take still go to the root side.
 */
static void test_whole_without_activation(void **state)
{
	const uint64_t pcs[] = {0x4000, 0x5000, 0x6000};
	const uint64_t with_eval[] = {EV, 0x6000};

	(void)state;
	check_whole(pcs, 3, true, "E", false, &EVAL, 'p', "n0 n1 n2", 0, 0, 1);
	check_whole(pcs, 3, true, "E-E", true, &EVAL, 'p', "n0 n1 n2", 0, 0, 3);
	check_whole(pcs, 3, false, "E", false, &EVAL, 'p', "n0 n1 n2 p0", 0, 1, 0);
	check_whole(with_eval, 2, true, "E-E", false, &EVAL, 'p', "p0 n1 p1 p2", 0, 2, 0);
}

static void test_more_activations_than_frames(void **state)
{
	/* an activation whose frame the walk did not see (mid-call): kept native, counted */
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x6000};

	(void)state;
	py_check(pcs, 4, "E", false, "p0 n1 n2 n3", 1, 0);
}

static void test_python_cut_short(void **state)
{
	/* more Python frames than the walker records: the outer activations are native, after a
	 * truncation mark; not counted as a mismatch */
	const uint64_t pcs[] = {EV, EV + 1, EV + 1, 0x6000};

	(void)state;
	py_check(pcs, 4, "EE", true, "p0 p1 T0 n2 n3", 0, 0);
	py_check(pcs, 1, "EE", true, "p0 p1 T0", 0, 1);
}

static void test_no_python(void **state)
{
	const uint64_t pcs[] = {0x4000, 0x5000};

	(void)state;
	py_check(pcs, 2, "", false, "n0 n1", 0, 0);
}

static void test_capacity(void **state)
{
	const uint64_t pcs[] = {EV, 0x5000, EV + 1, 0x6000};
	struct cp_rt_frame py[2] = {{.ptr = 1, .flags = CP_RT_FF_ENTRY},
				    {.ptr = 2, .flags = CP_RT_FF_ENTRY}};
	struct rt_mframe out[3];

	(void)state;
	assert_int_equal(interp_merge(pcs, 4, false, py, 2, false, &EVAL, out, 3, NULL), 3);
	assert_int_equal(out[2].kind, RT_MF_INTERP);
	assert_int_equal(out[2].index, 1);
}

static void test_one_activation(void **state)
{
	/* hot, outer, main_loop, <main> (FINISH) run by one rb_vm_exec: vm_exec_core (0x500) is
	 * the leaf, then rb_vm_exec, ruby_run_node, main, _start */
	const uint64_t pcs[] = {0x500, VM, 0x6000, 0x7000, 0x8000};

	(void)state;
	rb_check(pcs, 5, "---F", false, "n0 r0 r1 r2 r3 n2 n3 n4", 0, 0);
}

static void test_cfunc_yields(void **state)
{
	/*
	 * A block (FINISH: C code entered the VM for it) yielded to by Integer#times (a C method)
	 * called from spin, called from <main> (FINISH). Native, leaf first: vm_exec_core,
	 * rb_vm_exec (the block's activation), rb_yield, rb_int_times, vm_call_cfunc,
	 * vm_exec_core, rb_vm_exec (the outer activation), main.
	 */
	const uint64_t pcs[] = {0x500, VM, 0x3000, 0x3100, 0x3200, 0x500, VM + 8, 0x7000};

	(void)state;
	rb_check(pcs, 8, "Fc-F", false, "n0 r0 n2 n3 n4 n5 r1 r2 r3 n7", 0, 0);
}

static void test_leaf_in_vm_exec(void **state)
{
	/* the sampled pc itself in rb_vm_exec: looked up as is, not as a return address */
	const uint64_t pcs[] = {VM_START, 0x7000};
	const uint64_t edge[] = {0x500, VM_END, 0x7000};

	(void)state;
	rb_check(pcs, 2, "-F", false, "r0 r1 n1", 0, 0);
	/* a return address right after the function's end belongs to the call before it */
	rb_check(edge, 3, "-F", false, "n0 r0 r1 n2", 0, 0);
}

static void test_rb_native_cut_short(void **state)
{
	/* the native walk stopped inside the inner activation: the rest goes to the root side */
	const uint64_t pcs[] = {0x500, VM};

	(void)state;
	rb_check(pcs, 2, "F-F", false, "n0 r0 r1 r2", 0, 2);
}

static void test_ruby_cut_short(void **state)
{
	/* more activations than frames recorded: the walk was truncated, marked once */
	const uint64_t pcs[] = {0x500, VM, 0x3000, VM + 8, 0x7000, VM + 16, 0x8000};

	(void)state;
	rb_check(pcs, 7, "F", true, "n0 r0 n2 T0 n3 n4 n5 n6", 0, 0);
	/* not truncated: activations without frames are counted, kept as native frames */
	rb_check(pcs, 7, "F", false, "n0 r0 n2 n3 n4 n5 n6", 2, 0);
}

static void test_no_ruby(void **state)
{
	const uint64_t pcs[] = {0x500, 0x7000};

	(void)state;
	rb_check(pcs, 2, "", false, "n0 n1", 0, 0);
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
		cmocka_unit_test(test_whole_without_activation),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_one_activation),
		cmocka_unit_test(test_cfunc_yields),
		cmocka_unit_test(test_leaf_in_vm_exec),
		cmocka_unit_test(test_rb_native_cut_short),
		cmocka_unit_test(test_ruby_cut_short),
		cmocka_unit_test(test_no_ruby),
		cmocka_unit_test(test_jit_pseudo_pcs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
