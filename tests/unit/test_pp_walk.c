// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF PHP and Perl walkers (bpf/php_walk.bpf.h, perl_walk.bpf.h, through the walkers'
 * harness bpf/rtwalk.bpf.c) on the machine's php8.2 and perl: a script with a known call tree
 * (main -> run -> {heavy -> leaf with 3/4 of the work, light -> leaf with 1/4}) runs; each
 * sample's frames are named from what BPF copied into rt_names (interp/runtime.h
 * runtime_name_copied), read only after the process is gone, and must show the whole chain, in
 * order, with the leaf's line inside its loop; the heavy share must be within 0.1 of 3/4
 * (t_php, t_perl judge 0.05 on more samples). Then a 0.1 s run of the same script: every frame
 * named. Needs root (BPF), php8.2-cli and perl (scripts/install-deps.sh installs them).
 */
#include <poll.h>
#include <time.h>
#include "cmocka_inc.h"
#include <linux/types.h>
#include "rtwalk.skel.h"
#include "runtime_shared.h"
#include "interp_fixture.h"
#include "interp/php_detect.h"
#include "interp/pl_detect.h"
#include "interp/runtime.h"
#include "interp/src_pos.h"
#include "proc/proc_snapshot.h"

/* ARGV[1]: CPU seconds to run (fractions allowed: a loaded machine stretches the wall time,
 * not the samples); the leaf's loop is on LEAF_LINE. */
#define LEAF_LINE 6
static const char PHP_SCRIPT[] =
	"<?php\n"				/* 1 */
	"class Work {\n"			/* 2 */
	"  public static function leaf($n) {\n" /* 3 */
	"    $s = 0;\n"				/* 4 */
	"    for ($i = 0; $i < $n; $i++)\n"	/* 5 */
	"      $s += $i * $i;\n"		/* 6 */
	"    return $s;\n"			/* 7 */
	"  }\n"					/* 8 */
	"  public static function heavy($n) { return self::leaf(3 * $n); }\n"
	"  public static function light($n) { return self::leaf($n); }\n"
	"}\n"
	"function run($n) { return Work::heavy($n) + Work::light($n); }\n"
	"function cpu() {\n"
	"  $r = getrusage();\n"
	"  return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6 +\n"
	"    $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;\n"
	"}\n"
	"function main($secs) {\n"
	"  $end = cpu() + $secs;\n"
	"  while (cpu() < $end) run(20000);\n"
	"}\n"
	"echo \"up\\n\";\n"
	"main((float)$argv[1]);\n";

static const char PERL_SCRIPT[] =
	"$| = 1;\n"			/* 1 */
	"package Work;\n"		/* 2 */
	"sub leaf {\n"			/* 3 */
	"  my ($n, $s) = (shift, 0);\n" /* 4 */
	"  for my $i (1 .. $n) {\n"	/* 5 */
	"    $s += $i * $i; }\n"	/* 6 */
	"  return $s;\n"		/* 7 */
	"}\n"				/* 8 */
	"sub heavy { return leaf(3 * $_[0]); }\n"
	"sub light { return leaf($_[0]); }\n"
	"package main;\n"
	"sub cpu { my @t = times; return $t[0] + $t[1]; }\n"
	"sub run { return Work::heavy($_[0]) + Work::light($_[0]); }\n"
	"sub main { my $end = cpu() + $_[0]; run(20000) while cpu() < $end; }\n"
	"print \"up\\n\";\n"
	"main($ARGV[0]);\n";

struct run {
	bool php;
	unsigned int samples, empty, leaves, exact, heavy, light, lines_ok, unnamed, frames,
		files_ok;
	char example[1024];
	struct interp_stacks s; /* its pid and the stacks it sent */
};

/* Name the stacks kept, now that the process is gone: only rt_names can name them. */
/* the fixture ran in our root as root: its files read as ours */
static const struct src_pos_who host = {.root = "/", .euid = 0};

static void check(struct run *r, int names_fd, uint32_t gen)
{
	const char *heavy = r->php ? "{main};main;run;Work::heavy;Work::leaf"
				   : "<main>;main::main;main::run;Work::heavy;Work::leaf";
	const char *light = r->php ? "{main};main;run;Work::light;Work::leaf"
				   : "<main>;main::main;main::run;Work::light;Work::leaf";
	size_t k;

	for (k = 0; k < r->s.n; k++) {
		const struct cp_rt_stack *st = &r->s.st[k];
		char chain[1024] = "", name[300];
		size_t n = 0;
		int i;

		r->samples++;
		if (!st->len) {
			r->empty++;
			continue;
		}
		for (i = (int)st->len - 1; i >= 0; i--) {
			const struct cp_rt_frame *f = &st->frames[i];
			struct cp_rt_name_key key = {
				.ptr = f->ptr, .pid = (uint32_t)r->s.pid, .gen = gen};
			struct rt_frame_info fi;
			struct cp_rt_name nm;
			bool ok = !bpf_map_lookup_elem(names_fd, &key, &nm) &&
				  !runtime_name_copied(&nm, &host, &fi) &&
				  (nm.flags & CP_RT_NAME_OK);

			r->frames++;
			r->unnamed += !ok;
			snprintf(name, sizeof(name), "%s", ok ? fi.name : "[unknown]");
			if (ok && i == 0)
				r->files_ok += interp_ends_with(fi.file,
								r->php ? "/walk.php" : "/walk.pl");
			if (ok && nm.runtime != (r->php ? CP_RT_PHP : CP_RT_PERL))
				fail_msg("a name of runtime %u", nm.runtime);
			n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%s%s", n ? ";" : "",
					      name);
			if (n >= sizeof(chain))
				n = sizeof(chain) - 1;
		}
		if (!interp_ends_with(chain, "Work::leaf"))
			continue;
		r->leaves++;
		if (!strcmp(chain, heavy) || !strcmp(chain, light)) {
			r->exact++;
			r->heavy += !strcmp(chain, heavy);
			r->light += !strcmp(chain, light);
			r->lines_ok += st->frames[0].pos >= LEAF_LINE - 1 &&
				       st->frames[0].pos <= LEAF_LINE;
		} else if (!r->example[0]) {
			snprintf(r->example, sizeof(r->example), "%s", chain);
		}
	}
}

static void walk_one(const char *bin, const char *script, const char *secs, bool php, bool brief)
{
	struct cpuprof_rtwalk *skel;
	struct proc_snapshot *ps;
	struct cp_rt_proc rp = {0};
	struct run *r = calloc(1, sizeof(*r));
	int status;
	char line[16];
	pid_t pid;
	FILE *f;

	assert_non_null(r);
	skel = cpuprof_rtwalk__open();
	if (!skel) {
		fail_msg("cannot open the BPF object");
		return;
	}
	/* loaded before the script starts (a 0.1 s one is over by the time a load ends);
	 * target_tgid 0: the processes rt_procs holds */
	assert_int_equal(cpuprof_rtwalk__load(skel), 0);
	pid = interp_start((const char *const[]){bin, script, secs, NULL}, &f, line, sizeof(line));
	ps = proc_snapshot__new("/proc");
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
	rp.runtime = php ? CP_RT_PHP : CP_RT_PERL;
	if (php)
		assert_int_equal(php_detect_process(ps, (uint32_t)pid, 0, NULL, (void *)rp.data),
				 0);
	else
		assert_int_equal(pl_detect_process(ps, (uint32_t)pid, 0, NULL, (void *)rp.data), 0);
	r->php = php;
	r->s.pid = pid;
	/* until the script ends by itself */
	status = interp_sample_until_exit(skel, &rp, &r->s);
	fclose(f);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(r, bpf_map__fd(skel->maps.rt_names), 0);

	print_message(
		"%s %s s: %u samples (%u empty), %u in the leaf, %u whole chains "
		"(heavy %u light %u: %.3f), leaf line ok %u, file ok %u, %u of %u frames unnamed; "
		"walk %.0f ns\n",
		bin, secs, r->samples, r->empty, r->leaves, r->exact, r->heavy, r->light,
		(double)r->heavy / (r->heavy + r->light + !r->heavy), r->lines_ok, r->files_ok,
		r->unnamed, r->frames, interp_walk_cost(bpf_map__fd(skel->maps.rt_cost)));
	if (r->example[0])
		print_message("  not exact: %s\n", r->example);
	/* the names outlive the process: every frame named, the leaf with its file */
	assert_int_equal(r->unnamed, 0);
	assert_true(r->files_ok * 100 >= r->leaves * 95);
	assert_true(r->leaves >=
		    (brief ? 3u : 100u)); /* a loaded machine gives a 0.1 s script few */
	assert_true(r->exact * 100 >= r->leaves * 95);
	assert_true(r->lines_ok * 100 >= r->exact * 95);
	if (!brief) {
		double share = (double)r->heavy / (r->heavy + r->light);

		assert_true(share > 0.65 && share < 0.85);
	}
	free(r->s.st);
	cpuprof_rtwalk__destroy(skel);
	proc_snapshot__free(ps);
	free(r);
}

static void run_script(const char *bin, const char *text, const char *ext, bool php)
{
	char dir[] = "/tmp/cp_ppwalk_XXXXXX", script[64];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof(script), "%s/walk.%s", dir, ext);
	f = fopen(script, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	walk_one(bin, script, "1.5", php, false);
	walk_one(bin, script, "0.1", php, true);
	unlink(script);
	rmdir(dir);
}

static void test_php(void **state)
{
	(void)state;
	if (geteuid() != 0)
		cp_skip("BPF needs root");
	if (system("command -v php8.2 >/dev/null 2>&1"))
		cp_skip("php8.2 is missing (make deps)");
	run_script("php8.2", PHP_SCRIPT, "php", true);
}

static void test_perl(void **state)
{
	(void)state;
	if (geteuid() != 0)
		cp_skip("BPF needs root");
	if (system("command -v perl >/dev/null 2>&1"))
		cp_skip("perl is missing (make deps)");
	run_script("perl", PERL_SCRIPT, "pl", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_php),
		cmocka_unit_test(test_perl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
