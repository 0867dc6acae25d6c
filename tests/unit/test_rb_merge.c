// SPDX-License-Identifier: GPL-2.0
/*
 * Interleaving Ruby frames with native ones (interp/rb_merge.h): each rb_vm_exec activation
 * takes the Ruby frames up to the next one flagged FINISH; a C method called from Ruby (its
 * CFUNC frame and its native code) stays under its Ruby caller, and the block it yields to
 * under it; a native walk cut short; a Ruby walk cut short.
 */
#include <stdbool.h>
#include "cmocka_inc.h"
#include "interp/interp_merge.h"
#include "ruby_shared.h"

#define VM_START 0x1000
#define VM_END	 0x2000
#define VM	 0x1800 /* a return address in rb_vm_exec */
static const struct rt_eval_range VM_RANGE = {VM_START, VM_END, 0, 0};

/* "r0 n1 ..." of a merge (r: Ruby frame, n: native frame, T: truncated), leaf first. */
static void render(const struct rt_mframe *m, size_t n, char *buf, size_t len)
{
	size_t i, k = 0;

	buf[0] = 0;
	for (i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%c%u", i ? " " : "",
				      m[i].kind == RT_MF_NATIVE	  ? 'n'
				      : m[i].kind == RT_MF_INTERP ? 'r'
								  : 'T',
				      m[i].kind == RT_MF_TRUNCATED ? 0 : m[i].index);
}

/* frames: one char per Ruby frame, innermost first: 'F' FINISH-flagged, 'c' a C method, '-' */
static void check(const uint64_t *pcs, size_t npcs, const char *frames, bool truncated,
		  const char *want, unsigned int no_ruby, unsigned int leftover)
{
	struct cp_rt_frame rb[16] = {{0}};
	struct rt_merge_stats st = {0, 0};
	struct rt_mframe out[32];
	char got[256];
	size_t nrb = strlen(frames), i, n;

	for (i = 0; i < nrb; i++) {
		rb[i].ptr = 0x100 + i;
		rb[i].kind = frames[i] == 'c' ? CP_RB_FRAME_CFUNC : CP_RB_FRAME_ISEQ;
		rb[i].flags = frames[i] == 'F' ? CP_RT_FF_ENTRY : 0;
	}
	n = interp_merge(pcs, npcs, rb, nrb, truncated, &VM_RANGE, out, 32, &st);
	render(out, n, got, sizeof(got));
	assert_string_equal(got, want);
	assert_int_equal(st.eval_without_frames, no_ruby);
	assert_int_equal(st.frames_leftover, leftover);
}

static void test_one_activation(void **state)
{
	/* hot, outer, main_loop, <main> (FINISH) run by one rb_vm_exec: vm_exec_core (0x500) is
	 * the leaf, then rb_vm_exec, ruby_run_node, main, _start */
	const uint64_t pcs[] = {0x500, VM, 0x6000, 0x7000, 0x8000};

	(void)state;
	check(pcs, 5, "---F", false, "n0 r0 r1 r2 r3 n2 n3 n4", 0, 0);
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
	check(pcs, 8, "Fc-F", false, "n0 r0 n2 n3 n4 n5 r1 r2 r3 n7", 0, 0);
}

static void test_leaf_in_vm_exec(void **state)
{
	/* the sampled pc itself in rb_vm_exec: looked up as is, not as a return address */
	const uint64_t pcs[] = {VM_START, 0x7000};
	const uint64_t edge[] = {0x500, VM_END, 0x7000};

	(void)state;
	check(pcs, 2, "-F", false, "r0 r1 n1", 0, 0);
	/* a return address right after the function's end belongs to the call before it */
	check(edge, 3, "-F", false, "n0 r0 r1 n2", 0, 0);
}

static void test_native_cut_short(void **state)
{
	/* the native walk stopped inside the inner activation: the rest goes to the root side */
	const uint64_t pcs[] = {0x500, VM};

	(void)state;
	check(pcs, 2, "F-F", false, "n0 r0 r1 r2", 0, 2);
}

static void test_ruby_cut_short(void **state)
{
	/* more activations than frames recorded: the walk was truncated, marked once */
	const uint64_t pcs[] = {0x500, VM, 0x3000, VM + 8, 0x7000, VM + 16, 0x8000};

	(void)state;
	check(pcs, 7, "F", true, "n0 r0 n2 T0 n3 n4 n5 n6", 0, 0);
	/* not truncated: activations without frames are counted, kept as native frames */
	check(pcs, 7, "F", false, "n0 r0 n2 n3 n4 n5 n6", 2, 0);
}

static void test_no_ruby(void **state)
{
	const uint64_t pcs[] = {0x500, 0x7000};

	(void)state;
	check(pcs, 2, "", false, "n0 n1", 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_activation),	cmocka_unit_test(test_cfunc_yields),
		cmocka_unit_test(test_leaf_in_vm_exec), cmocka_unit_test(test_native_cut_short),
		cmocka_unit_test(test_ruby_cut_short),	cmocka_unit_test(test_no_ruby),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
