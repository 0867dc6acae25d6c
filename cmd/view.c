// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof report FILE and cpuprof diff BASE NEW: profiles read back (src/input) and shown as
 * top-function tables (src/output/top.c), compared, judged (--fail-if) or drawn.
 */
#include <argp.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "input/input.h"
#include "output/top.h"
#include "session/options.h"
#include "util/strnum.h"

enum {
	OPT_BY = 0x100,
	OPT_PID,
	OPT_COMM,
	OPT_FOCUS,
	OPT_FORMAT,
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
