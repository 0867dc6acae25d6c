// SPDX-License-Identifier: GPL-2.0
/*
 * The V8 frame reader and namer (bpf/v8_walk.bpf.h, through the walkers' harness
 * bpf/rtwalk.bpf.c, which finds V8 frames on the frame-pointer chain from the sampled rbp) on
 * the machine's node: tests/fixtures/fix_tree.js (main -> run -> {heavy -> leafA 3/4, light
 * -> leafB 1/4}) runs with no flag; each sample's frames are named from what BPF copied into
 * rt_names, read after the process is gone. The leaves' samples must show the whole JS chain
 * in order with the fixture's file and the leaf's first line (V8 gives the position where the
 * function starts: BPF makes it a line from the script's line ends, or counts the lines in its
 * source, or user space reads the file: interp/src_pos.h), the heavy share within 0.1 of 3/4
 * (t_node judges the profiler's stacks). The same tree run from memory
 * (tests/fixtures/fix_tree_vm.js: a script that is no file, as node's own node:internal/...)
 * must have the same lines and columns, counted in its source, and from its line ends when it
 * is too long to count. An interpreted frame's position (its bytecode offset in its source
 * position table) must be the line running, made from the file as the profiler does: main
 * (called once: interpreted) at its call of run, and with no tier but the interpreter
 * (node --no-opt --no-sparkplug --no-maglev) the leaves at their loop's line, in 95 % of their
 * samples. Needs root (BPF) and node.
 */
#include "cmocka_inc.h"
#include <linux/types.h>
#include "rtwalk.skel.h"
#include "runtime_shared.h"
#include "interp_fixture.h"
#include "interp/runtime.h"
#include "interp/src_pos.h"
#include "interp/v8_detect.h"
#include "proc/proc_snapshot.h"

#define SCRIPT	    "tests/fixtures/fix_tree.js"
#define SCRIPT_VM   "tests/fixtures/fix_tree_vm.js"
#define LEAFA_LINE  6 /* function leafA( */
#define LEAFB_LINE  11
#define LEAF_COLUMN 15 /* the "(" of "function leafA(" */
/* the line of a leaf's loop, from the line it starts at */
#define LOOP_LINE(first) ((first) + 2)
#define MAIN_CALL_LINE	 30 /* main's call of run */

struct run {
	const char *file; /* what the script's name ends with */
	unsigned int samples, leaves, exact, heavy, light, lines_ok, files_ok, unnamed, frames;
	unsigned int main_pos, main_at_call; /* main's frames with a position, at its call */
	unsigned int interp, at_loop; /* leaves with a position (interpreted), at the loop line */
	int off_loop;		      /* a line of one not at its loop */
	char example[1024];
	struct interp_stacks s; /* its pid and the stacks it sent */
};

/* the fixture ran in our root as root: its files read as ours */
static const struct src_pos_who host = {.root = "/", .euid = 0};

/* The line running in a frame named fi at position pos, as the profiler makes it; 0 when the
 * file cannot tell. */
static int running_line(const struct rt_frame_info *fi, uint32_t pos)
{
	struct rt_frame_info x = *fi;

	x.line = 0;
	runtime_name_pos(&host, &x, pos);
	return x.line;
}

static void check(struct run *r, int names_fd)
{
	static const char heavy[] = "main;run;heavy;leafA", light[] = "main;run;light;leafB";

	for (size_t k = 0; k < r->s.n; k++) {
		const struct cp_rt_stack *st = &r->s.st[k];
		char chain[1024] = "";
		int firstline = 0, column = 0, line = -1;
		bool file_ok = false;
		size_t n = 0;

		r->samples++;
		for (int i = (int)st->len - 1; i >= 0; i--) {
			const struct cp_rt_frame *f = &st->frames[i];
			struct cp_rt_name_key key = {.ptr = f->ptr, .pid = (uint32_t)r->s.pid};
			struct rt_frame_info fi;
			struct cp_rt_name nm;
			bool ok = !bpf_map_lookup_elem(names_fd, &key, &nm) &&
				  !runtime_name_copied(&nm, &host, &fi) &&
				  (nm.flags & CP_RT_NAME_OK);

			r->frames++;
			if (ok && f->pos != ~0u && !strcmp(fi.name, "main")) {
				r->main_pos++;
				r->main_at_call += running_line(&fi, f->pos) == MAIN_CALL_LINE;
			}
			r->unnamed += !ok;
			if (ok && i == 0) {
				firstline = fi.firstline;
				column = fi.column;
				file_ok = interp_ends_with(fi.file, r->file);
				if (f->pos != ~0u)
					line = running_line(&fi, f->pos);
			}
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%s%s", n ? ";" : "",
					      ok ? fi.name : "[unknown]");
			if (n >= sizeof(chain))
				n = sizeof(chain) - 1;
		}
		if (!interp_ends_with(chain, "leafA") && !interp_ends_with(chain, "leafB"))
			continue;
		r->leaves++;
		r->files_ok += file_ok;
		if (line >= 0) {
			r->interp++;
			r->at_loop += line == LOOP_LINE(firstline);
			if (line != LOOP_LINE(firstline) && !r->off_loop)
				r->off_loop = line;
		}
		/* the chain ends at main: what called it is node's module loader */
		if (strstr(chain, heavy) && interp_ends_with(chain, heavy)) {
			r->exact++;
			r->heavy++;
			r->lines_ok += firstline == LEAFA_LINE && column == LEAF_COLUMN;
		} else if (strstr(chain, light) && interp_ends_with(chain, light)) {
			r->exact++;
			r->light++;
			r->lines_ok += firstline == LEAFB_LINE && column == LEAF_COLUMN;
		} else if (!r->example[0]) {
			snprintf(r->example, sizeof(r->example), "%s", chain);
		}
	}
}

/* The tree of node argv (its script's name ending with file) sampled, checked. */
/* what run_tree checks of the lines running (the script a file: user space reads it) */
#define LINES_MAIN 1 /* main (interpreted: called once) at its call of run */
#define LINES_LEAF 2 /* the leaves (interpreted: no optimizing tier) at their loop */

static void run_tree(const char *const *argv, const char *file, unsigned int lines)
{
	struct cpuprof_rtwalk *skel;
	struct proc_snapshot *ps;
	struct cp_rt_proc rp = {0};
	struct run *r = calloc(1, sizeof(*r));
	int status;
	char line[16];
	FILE *f;

	assert_non_null(r);
	r->file = file;
	if (geteuid() != 0)
		cp_skip("BPF needs root");
	if (system("command -v node >/dev/null 2>&1"))
		cp_skip("node is missing (Debian package nodejs)");
	skel = cpuprof_rtwalk__open();
	if (!skel) {
		fail_msg("cannot open the BPF object");
		return;
	}
	assert_int_equal(cpuprof_rtwalk__load(skel), 0);
	r->s.pid = interp_start(argv, &f, line, sizeof(line));
	ps = proc_snapshot__new("/proc");
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)r->s.pid, 0), 0);
	rp.runtime = CP_RT_V8;
	assert_int_equal(v8_detect_process(ps, (uint32_t)r->s.pid, 0, NULL, (void *)rp.data), 0);
	status = interp_sample_until_exit(skel, &rp, &r->s);
	fclose(f);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(r, bpf_map__fd(skel->maps.rt_names));
	print_message(
		"node %s: %u samples, %u in the leaves, %u whole chains (heavy %u light %u: "
		"%.3f), first line ok %u, file ok %u, %u of %u frames unnamed; walk %.0f ns\n",
		argv[1], r->samples, r->leaves, r->exact, r->heavy, r->light,
		(double)r->heavy / (r->heavy + r->light + !r->heavy), r->lines_ok, r->files_ok,
		r->unnamed, r->frames, interp_walk_cost(bpf_map__fd(skel->maps.rt_cost)));
	if (r->example[0])
		print_message("  not exact: %s\n", r->example);
	print_message("  interpreted leaves %u, at their loop's line %u (another: %d); main with a "
		      "position %u, at its call's line %u\n",
		      r->interp, r->at_loop, r->off_loop, r->main_pos, r->main_at_call);
	assert_true(r->leaves >= 100);
	assert_true(r->exact * 100 >= r->leaves * 95);
	assert_true(r->files_ok * 100 >= r->leaves * 95);
	assert_true(r->lines_ok * 100 >= r->exact * 95);
	{
		double share = (double)r->heavy / (r->heavy + r->light);

		assert_true(share > 0.65 && share < 0.85);
	}
	if (lines & LINES_MAIN) {
		assert_true(r->main_pos >= 100);
		assert_true(r->main_at_call * 100 >= r->main_pos * 95);
	}
	if (lines & LINES_LEAF) {
		assert_true(r->interp >= 100);
		assert_true(r->at_loop * 100 >= r->interp * 95);
	}
	free(r->s.st);
	cpuprof_rtwalk__destroy(skel);
	proc_snapshot__free(ps);
	free(r);
}

static void test_node(void **state)
{
	(void)state;
	run_tree((const char *const[]){"node", SCRIPT, "1.5", NULL}, "/fix_tree.js", LINES_MAIN);
}

/* a script that is no file: its lines counted in its source in memory */
static void test_node_memory(void **state)
{
	(void)state;
	run_tree((const char *const[]){"node", SCRIPT_VM, "1.5", NULL}, "node:cpuprof/fix_tree", 0);
}

/* one too long to count: its lines from the line ends V8 made for a stack trace */
/* no tier but the interpreter: the leaves' frames at the line of their loop */
static void test_node_interpreted(void **state)
{
	(void)state;
	run_tree((const char *const[]){"node", "--no-opt", "--no-sparkplug", "--no-maglev", SCRIPT,
				       "1.5", NULL},
		 "/fix_tree.js", LINES_MAIN | LINES_LEAF);
}

static void test_node_line_ends(void **state)
{
	(void)state;
	run_tree((const char *const[]){"node", SCRIPT_VM, "1.5", "ends", NULL},
		 "node:cpuprof/fix_tree", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_node_memory),
		cmocka_unit_test(test_node_interpreted),
		cmocka_unit_test(test_node_line_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
