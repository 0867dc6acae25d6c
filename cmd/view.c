// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof report FILE and cpuprof diff BASE NEW: profiles read back (src/input) and shown as
 * top-function tables (src/output/top.c), compared, judged (--fail-if) or drawn.
 */
#include <argp.h>
#include <fnmatch.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "input/input.h"
#include "output/diff.h"
#include "output/failif.h"
#include "output/output.h"
#include "output/top.h"
#include "session/options.h"
#include "util/strnum.h"

enum {
	OPT_BY = 0x100,
	OPT_PID,
	OPT_COMM,
	OPT_FOCUS,
	OPT_FORMAT,
	OPT_FAIL_IF,
};

enum view_format {
	VIEW_TEXT = 0,
	VIEW_JSON,
};

struct view_opts {
	const char *files[2];
	size_t n_files, want_files;
	size_t top_n;
	struct top_opts top;
	regex_t comm_re, focus_re;
	enum view_format format;
	struct failif *fail_if;
	size_t n_fail_if;
	const char *output;
};

static const char *format_label(enum input_format f)
{
	return f == INPUT_PPROF ? "pprof" : f == INPUT_JSON ? "json" : "folded";
}

/* Read one profile; on failure print one line and return the exit status. */
static int load(const char *path, struct profile **p, struct input_info *info)
{
	struct input_error err;
	int rc = input_read_file(path, p, info, &err);

	if (!rc)
		return 0;
	fprintf(stderr, "cpuprof: %s: %s\n", path, err.msg);
	if (rc == -EINVAL)
		return CP_EXIT_DATAERR;
	if (rc == -ENOENT || rc == -EACCES || rc == -EISDIR || rc == -EFBIG)
		return CP_EXIT_NOINPUT;
	return CP_EXIT_FAILURE;
}

static void compile_re(struct argp_state *state, regex_t *re, const char *what, const char *arg)
{
	char msg[128];
	int rc = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		regerror(rc, re, msg, sizeof(msg));
		argp_error(state, "invalid %s regular expression '%s': %s", what, arg, msg);
	}
}

/* Options both commands share; 0 when key was one of them. */
static int common_parse(int key, char *arg, struct argp_state *state, struct view_opts *o)
{
	uint64_t v;

	switch (key) {
	case 'n':
		if (parse_u64(arg, 0, 1000000, &v))
			argp_error(state, "invalid -n '%s': give a number of rows (0: all)", arg);
		o->top_n = (size_t)v;
		return 0;
	case OPT_BY:
		if (top_by_parse(arg, &o->top.by))
			argp_error(state,
				   "unknown --by '%s': use function, file, line, process or thread",
				   arg);
		return 0;
	case OPT_PID:
		if (parse_u64(arg, 0, UINT32_MAX, &v))
			argp_error(state, "invalid pid '%s': give one process id", arg);
		o->top.has_pid = true;
		o->top.pid = (uint32_t)v;
		return 0;
	case OPT_COMM:
		compile_re(state, &o->comm_re, "--comm", arg);
		o->top.comm = &o->comm_re;
		return 0;
	case OPT_FOCUS:
		compile_re(state, &o->focus_re, "--focus", arg);
		o->top.focus = &o->focus_re;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			o->format = VIEW_TEXT;
		else if (!strcmp(arg, "json"))
			o->format = VIEW_JSON;
		else
			argp_error(state, "unknown --format '%s': use text or json", arg);
		return 0;
	case ARGP_KEY_ARG:
		if (o->n_files == o->want_files)
			argp_error(state, "too many operands: '%s'", arg);
		o->files[o->n_files++] = arg;
		return 0;
	case ARGP_KEY_END:
		if (o->n_files < o->want_files)
			argp_error(state, o->want_files == 1 ? "give the profile FILE to report on"
							     : "give two profiles: BASE NEW");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

#define COMMON_OPTIONS                                                                        \
	{"top", 'n', "N", 0, "Show the first N rows (default 20; 0: all)", 1},                \
		{"by",                                                                        \
		 OPT_BY,                                                                      \
		 "KEY",                                                                       \
		 0,                                                                           \
		 "Rows per function (default), file, line, process or thread",                \
		 1},                                                                          \
		{"pid", OPT_PID, "PID", 0, "Only the samples of this process", 1},            \
		{"comm",                                                                      \
		 OPT_COMM,                                                                    \
		 "REGEX",                                                                     \
		 0,                                                                           \
		 "Only the samples of processes whose name matches (extended regex)",         \
		 1},                                                                          \
		{"focus",                                                                     \
		 OPT_FOCUS,                                                                   \
		 "REGEX",                                                                     \
		 0,                                                                           \
		 "Only the samples with a frame whose name matches; shares stay relative to " \
		 "all samples",                                                               \
		 1},                                                                          \
	{                                                                                     \
		"format", OPT_FORMAT, "FORMAT", 0, "text (default) or json", 2                \
	}

static const struct argp_option report_options[] = {
	COMMON_OPTIONS,
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char report_doc[] =
	"Print the top functions of a profile by self and total share of samples.\v"
	"FILE is pprof (gzipped or not; cpuprof's or another tool's, e.g. Go's runtime/pprof), "
	"cpuprof JSON (or a speedscope file) or folded stacks, told apart by content. "
	"Self: samples where the function is the leaf; total: samples with the function "
	"anywhere on the stack (once per sample). Rows are sorted by self, total, then name.\n\n"
	"Examples:\n"
	"  cpuprof report prof.pb.gz\n"
	"  cpuprof report -n 5 --by file cpu.pprof\n"
	"  cpuprof report --focus '^parse' --format json prof.json\n\n"
	"Exit status:\n"
	"  0    table written\n"
	"  1    runtime failure\n"
	"  64   bad usage or option value\n"
	"  65   FILE is not a profile cpuprof reads, or it is damaged\n"
	"  66   FILE cannot be opened";

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	return common_parse(key, arg, state, state->input);
}

static void free_opts(struct view_opts *o)
{
	if (o->top.comm)
		regfree(&o->comm_re);
	if (o->top.focus)
		regfree(&o->focus_re);
}

int cmd_report(int argc, char **argv)
{
	const struct argp argp = {report_options, report_parse, "FILE", report_doc,
				  NULL,		  NULL,		NULL};
	struct view_opts o = {.want_files = 1, .top_n = 20};
	struct profile *p = NULL;
	struct input_info info;
	struct top t = {0};
	int rc, err;

	argv[0] = (char *)"cpuprof report";
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return CP_EXIT_USAGE;
	rc = load(o.files[0], &p, &info);
	if (rc)
		goto out;
	err = top_compute(p, &o.top, &t);
	if (err) {
		fprintf(stderr, "cpuprof: %s\n", strerror(-err));
		rc = CP_EXIT_FAILURE;
		goto out;
	}
	if (o.format == VIEW_JSON) {
		err = top_write_json(&t, o.top.by, o.top_n, o.files[0], format_label(info.format),
				     info.value, stdout);
	} else {
		printf("%s: %s, %llu %s", o.files[0], format_label(info.format),
		       (unsigned long long)t.samples, info.value);
		if (o.top.focus)
			printf(", %llu matching --focus", (unsigned long long)t.focused);
		if (info.period_ns && !strcmp(info.value, "samples"))
			printf(" (%.2f s at %.6g ms)", (double)t.samples * info.period_ns / 1e9,
			       info.period_ns / 1e6);
		printf("\n");
		err = top_write_text(&t, o.top.by, o.top_n, stdout);
	}
	if (err) {
		fprintf(stderr, "cpuprof: writing the table: %s\n", strerror(-err));
		rc = CP_EXIT_FAILURE;
	}
out:
	top_free(&t);
	profile__free(p);
	free_opts(&o);
	return rc;
}

static const struct argp_option diff_options[] = {
	COMMON_OPTIONS,
	{"fail-if", OPT_FAIL_IF, "EXPR", 0,
	 "Exit with status 3 when EXPR holds (repeatable): total(GLOB) > +5%, self(any) > +10%, "
	 "samples < 100; see the man page",
	 3},
	{"output", 'o', "FILE", 0,
	 "Also write both profiles as one file: FILE.folded in flamegraph.pl's difffolded layout "
	 "(STACK BASE NEW)",
	 3},
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char diff_doc[] =
	"Compare two profiles: the change of each function's share of the samples, in points.\v"
	"BASE and NEW are read as by cpuprof report (pprof, JSON or folded, by content). Shares "
	"are normalised by each profile's own samples, so profiles of different lengths compare. "
	"Rows are sorted by the size of the change of total share.\n\n"
	"--fail-if EXPR (repeatable), for CI:\n"
	"  total(GLOB) OP [+-]N%   change in points of total share of the functions matching "
	"GLOB (a shell pattern; 'any': every function)\n"
	"  self(GLOB) OP [+-]N%    the same for self share\n"
	"  samples < N             either profile has fewer than N samples (too few to judge)\n"
	"  OP is >, >=, < or <=; the expression holds when it holds for one matching function.\n\n"
	"Examples:\n"
	"  cpuprof diff base.pb.gz new.pb.gz\n"
	"  cpuprof diff --fail-if 'total(parse_*) > +5%' --fail-if 'samples < 100' a.json b.json\n"
	"  cpuprof diff -o diff.folded base.folded new.folded\n\n"
	"Exit status:\n"
	"  0    compared; no --fail-if expression holds\n"
	"  1    runtime failure\n"
	"  3    a --fail-if expression holds (the offending lines are printed on stderr)\n"
	"  64   bad usage or option value, a malformed --fail-if expression\n"
	"  65   BASE or NEW is not a profile cpuprof reads, or it is damaged\n"
	"  66   BASE or NEW cannot be opened\n"
	"  73   the -o file cannot be written";

static error_t diff_parse(int key, char *arg, struct argp_state *state)
{
	struct view_opts *o = state->input;
	struct failif *f;
	char why[160];

	switch (key) {
	case OPT_FAIL_IF:
		f = reallocarray(o->fail_if, o->n_fail_if + 1, sizeof(*f));
		if (!f)
			argp_failure(state, 1, ENOMEM, "out of memory");
		o->fail_if = f;
		if (failif_parse(arg, &f[o->n_fail_if], why, sizeof(why)))
			argp_error(state, "invalid --fail-if '%s': %s", arg, why);
		o->n_fail_if++;
		return 0;
	case 'o':
		if (o->output)
			argp_error(state, "give -o once");
		if (!strcmp(arg, "-") ||
		    strncmp(arg + (strlen(arg) > 7 ? strlen(arg) - 7 : 0), ".folded", 7))
			argp_error(state, "-o '%s': name the file *.folded (difffolded layout)",
				   arg);
		o->output = arg;
		return 0;
	default:
		return common_parse(key, arg, state, o);
	}
}

/* Write the difffolded file; the exit status. */
static int write_diff_folded(const char *path, const struct profile *a, const struct profile *b,
			     bool per_thread)
{
	struct out_file *of;
	int err = out_file__open(path, &of);

	if (err) {
		fprintf(stderr, "cpuprof: cannot write '%s': %s\n", path, strerror(-err));
		return CP_EXIT_CANTCREAT;
	}
	err = diff_write_folded(a, b, per_thread, out_file__stream(of));
	if (err) {
		out_file__abort(of);
	} else {
		err = out_file__commit(of);
	}
	if (err) {
		fprintf(stderr, "cpuprof: writing '%s': %s\n", path, strerror(-err));
		return CP_EXIT_CANTCREAT;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	const struct argp argp = {diff_options, diff_parse, "BASE NEW", diff_doc, NULL, NULL, NULL};
	struct view_opts o = {.want_files = 2, .top_n = 20};
	struct profile *p[2] = {NULL, NULL};
	struct input_info info[2];
	struct top t[2] = {{0}, {0}};
	struct diff d = {0};
	size_t offending = 0;
	int rc, err = 0;

	argv[0] = (char *)"cpuprof diff";
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return CP_EXIT_USAGE;
	rc = load(o.files[0], &p[0], &info[0]);
	rc = rc ?: load(o.files[1], &p[1], &info[1]);
	if (rc)
		goto out;
	err = top_compute(p[0], &o.top, &t[0]);
	err = err ?: top_compute(p[1], &o.top, &t[1]);
	err = err ?: diff_compute(&t[0], &t[1], &d);
	if (err) {
		fprintf(stderr, "cpuprof: %s\n", strerror(-err));
		rc = CP_EXIT_FAILURE;
		goto out;
	}
	if (o.format == VIEW_JSON) {
		err = diff_write_json(&d, o.top.by, o.top_n, o.files[0], o.files[1], stdout);
	} else {
		printf("%s: %s, %llu samples -> %s: %s, %llu samples\n", o.files[0],
		       format_label(info[0].format), (unsigned long long)d.base_samples, o.files[1],
		       format_label(info[1].format), (unsigned long long)d.new_samples);
		err = diff_write_text(&d, o.top.by, o.top_n, stdout);
	}
	if (err) {
		fprintf(stderr, "cpuprof: writing the table: %s\n", strerror(-err));
		rc = CP_EXIT_FAILURE;
		goto out;
	}
	if (o.output) {
		rc = write_diff_folded(o.output, p[0], p[1],
				       info[0].per_thread && info[1].per_thread);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < o.n_fail_if; i++) {
		const struct failif *f = &o.fail_if[i];
		size_t matched = 0;

		offending += failif_eval(f, &d, o.files[0], o.files[1], stderr);
		if (f->metric == FAILIF_SAMPLES)
			continue;
		for (size_t k = 0; k < d.n; k++)
			matched += !fnmatch(f->glob, d.rows[k].key, 0);
		if (!matched)
			fprintf(stderr, "cpuprof: note: --fail-if '%s': no %s matches '%s'\n",
				f->text, top_by_name(o.top.by), f->glob);
	}
	rc = offending ? CP_EXIT_REGRESSION : CP_EXIT_OK;
out:
	for (int i = 0; i < 2; i++) {
		top_free(&t[i]);
		profile__free(p[i]);
	}
	diff_free(&d);
	free(o.fail_if);
	free_opts(&o);
	return rc;
}
