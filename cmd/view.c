// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof report FILE and cpuprof diff BASE NEW: profiles read back (src/input) and shown as
 * top-function tables (src/output/top.c), compared, judged (--fail-if) or drawn.
 */
#include <argp.h>
#include <fnmatch.h>
#include <errno.h>
#include <malloc.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "commands.h"
#include "input/input.h"
#include "output/diff.h"
#include "output/failif.h"
#include "output/output.h"
#include "output/html.h"
#include "output/svg.h"
#include "output/top.h"
#include "session/options.h"
#include "util/log.h"
#include "util/safe_regex.h"
#include "util/strnum.h"

enum {
	OPT_BY = 0x100,
	OPT_PID,
	OPT_COMM,
	OPT_FOCUS,
	OPT_FORMAT,
	OPT_FAIL_IF,
	OPT_TAG,
};

enum view_format {
	VIEW_AUTO = 0, /* from the -o name, else text */
	VIEW_TEXT,
	VIEW_JSON,
	VIEW_SVG,
	VIEW_HTML,
	VIEW_FOLDED, /* diff -o: difffolded */
};

struct view_opts {
	const char *files[2];
	size_t n_files, want_files;
	size_t top_n;
	struct top_opts top;
	regex_t comm_re, focus_re;
	enum view_format format;
	struct label tags[8]; /* --tag KEY=VALUE, keys and values pointing into argv */
	struct failif *fail_if;
	size_t n_fail_if;
	const char *output;
};

static const char *format_label(enum input_format f)
{
	return f == INPUT_PPROF ? "pprof" : f == INPUT_JSON ? "json" : "folded";
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

/* Read one profile; on failure print one line and return the exit status. */
static int load(const char *path, struct profile **p, struct input_info *info)
{
	struct input_error err;
	int rc;

	/*
	 * A fixed threshold: the arrays of a big profile grow by doubling and are freed, and
	 * glibc's moving threshold (up to 32 MiB) kept them on the heap, where the memory of
	 * one stayed with the process and the next one was copied on realloc.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	rc = input_read_file(path, p, info, &err);
	if (!rc)
		return 0;
	pr_err("%s: %s", path, err.msg);
	if (rc == -EINVAL)
		return CP_EXIT_DATAERR;
	if (rc == -ENOENT || rc == -EACCES || rc == -EISDIR || rc == -EFBIG)
		return CP_EXIT_NOINPUT;
	return CP_EXIT_FAILURE;
}

static void compile_re(struct argp_state *state, regex_t *re, const char *what, const char *arg)
{
	char msg[160];

	if (safe_regcomp(re, arg, REG_NOSUB, msg, sizeof(msg)))
		argp_error(state, "invalid %s regular expression '%s': %s", what, arg, msg);
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
		if (top_by_parse(arg, &o->top.by, &o->top.label))
			argp_error(
				state,
				"unknown --by '%s': use function, file, line, process, thread or "
				"label:KEY",
				arg);
		return 0;
	case OPT_TAG: {
		char *eq = strchr(arg, '=');

		if (!eq || eq == arg)
			argp_error(state, "invalid --tag '%s': give KEY=VALUE", arg);
		if (o->top.n_tags == sizeof(o->tags) / sizeof(o->tags[0]))
			argp_error(state, "give --tag at most %zu times",
				   sizeof(o->tags) / sizeof(o->tags[0]));
		*eq = '\0';
		o->tags[o->top.n_tags++] = (struct label){arg, eq + 1};
		o->top.tags = o->tags;
		return 0;
	}
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
		else if (!strcmp(arg, "svg"))
			o->format = VIEW_SVG;
		else if (!strcmp(arg, "html"))
			o->format = VIEW_HTML;
		else
			argp_error(state, "unknown --format '%s': use text, json, svg or html",
				   arg);
		return 0;
	case 'o':
		if (o->output)
			argp_error(state, "give -o once");
		if (!strcmp(arg, "-"))
			argp_error(state, "-o '-': leave -o out to write to stdout");
		o->output = arg;
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

/* clang-format off */
#define COMMON_OPTIONS \
	{"top", 'n', "N", 0, "Show the first N rows (default 20; 0: all)", 1}, \
	{"by", OPT_BY, "KEY", 0, \
	 "Rows per function (default), file, line, process, thread or label:KEY (the value of " \
	 "the samples' label KEY)", 1}, \
	{"tag", OPT_TAG, "KEY=VALUE", 0, \
	 "Only the samples with label KEY of this value (a Go goroutine's pprof labels); " \
	 "repeat: all of them", 1}, \
	{"pid", OPT_PID, "PID", 0, "Only the samples of this process", 1}, \
	{"comm", OPT_COMM, "REGEX", 0, \
	 "Only the samples of processes whose name matches (extended regex)", 1}, \
	{"focus", OPT_FOCUS, "REGEX", 0, \
	 "Only the samples with a frame whose name matches; shares stay relative to all samples", \
	 1}, \
	{"format", OPT_FORMAT, "FORMAT", 0, \
	 "text (default), json, svg or html (flame graphs); default: from the -o name (.json, " \
	 ".svg, .html), else text", 2}, \
	{"output", 'o', "FILE", 0, "Write to FILE (atomically) instead of stdout", 2}
/* clang-format on */

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
	"  66   FILE cannot be opened\n"
	"  73   the -o file cannot be written";

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

/* What a command renders: a top table (report) or a diff, and the profiles behind it. */
struct render {
	enum view_format format;
	const struct view_opts *o;
	const struct profile *p, *base; /* base: diff only */
	const struct input_info *info, *base_info;
	const struct top *t;
	const struct diff *d;
};

static int render_report(const struct render *r, FILE *out)
{
	const struct top *t = r->t;
	const char *src = r->o->files[0];

	switch (r->format) {
	case VIEW_JSON:
		return top_write_json(t, r->o->top.by, r->o->top_n, src,
				      format_label(r->info->format), r->info->value, out);
	case VIEW_SVG:
		return svg_write_profile(r->p, NULL, r->info->per_thread, src, out);
	case VIEW_HTML:
		return html_write_profile(r->p, NULL, r->info->per_thread, src, out);
	default:
		fprintf(out, "%s: %s, %llu %s", src, format_label(r->info->format),
			(unsigned long long)t->samples, r->info->value);
		if (r->o->top.focus)
			fprintf(out, ", %llu matching --focus", (unsigned long long)t->focused);
		if (r->info->period_ns && !strcmp(r->info->value, "samples"))
			fprintf(out, " (%.2f CPU seconds at %.6g ms a sample",
				(double)t->samples * r->info->period_ns / 1e9,
				r->info->period_ns / 1e6);
		if (r->info->period_ns && !strcmp(r->info->value, "samples") &&
		    r->info->duration_ns)
			fprintf(out, ", recorded over %.2f s", r->info->duration_ns / 1e9);
		if (r->info->period_ns && !strcmp(r->info->value, "samples"))
			fprintf(out, ")");
		fprintf(out, "\n");
		return top_write_text(t, r->o->top.by, r->o->top_n, out);
	}
}

static int render_diff(const struct render *r, FILE *out)
{
	const struct view_opts *o = r->o;
	bool per_thread = r->info->per_thread && r->base_info->per_thread;
	char title[512];

	switch (r->format) {
	case VIEW_JSON:
		return diff_write_json(r->d, o->top.by, o->top_n, o->files[0], o->files[1], out);
	case VIEW_SVG:
		snprintf(title, sizeof(title), "%s -> %s", o->files[0], o->files[1]);
		return svg_write_profile(r->p, r->base, per_thread, title, out);
	case VIEW_HTML:
		snprintf(title, sizeof(title), "%s -> %s", o->files[0], o->files[1]);
		return html_write_profile(r->p, r->base, per_thread, title, out);
	case VIEW_FOLDED:
		return diff_write_folded(r->base, r->p, per_thread, out);
	default:
		fprintf(out, "%s: %s, %llu samples -> %s: %s, %llu samples\n", o->files[0],
			format_label(r->base_info->format), (unsigned long long)r->d->base_samples,
			o->files[1], format_label(r->info->format),
			(unsigned long long)r->d->new_samples);
		return diff_write_text(r->d, o->top.by, o->top_n, out);
	}
}

/* Render to path (atomically) or stdout; the exit status. */
static int emit(const struct render *r, const char *path,
		int (*fn)(const struct render *r, FILE *out))
{
	struct out_file *of;
	int err;

	if (!path) {
		err = fn(r, stdout);
		if (!err && fflush(stdout))
			err = -EIO;
		if (err) {
			pr_err("writing to stdout: %s", strerror(-err));
			return CP_EXIT_FAILURE;
		}
		return 0;
	}
	err = out_file__open(path, &of);
	if (err) {
		pr_err("cannot write '%s': %s", path, strerror(-err));
		return CP_EXIT_CANTCREAT;
	}
	errno = 0;
	err = fn(r, out_file__stream(of));
	/* the writers say -EIO for any failed write: the stream's write(2) left the reason */
	if (err == -EIO && (errno == ENOSPC || errno == EFBIG || errno == EDQUOT))
		err = -errno;
	if (err)
		out_file__abort(of);
	else
		err = out_file__commit(of);
	if (err) {
		pr_err("writing '%s': %s (%s); nothing was written", path, strerror(-err),
		       log_errname(-err));
		return err == -ENOMEM ? CP_EXIT_FAILURE : CP_EXIT_CANTCREAT;
	}
	return 0;
}

/* --format, else from the -o name. */
static enum view_format pick_format(const struct view_opts *o, bool diff)
{
	if (o->format != VIEW_AUTO)
		return o->format;
	if (!o->output)
		return VIEW_TEXT;
	if (has_suffix(o->output, ".svg"))
		return VIEW_SVG;
	if (has_suffix(o->output, ".html") || has_suffix(o->output, ".htm"))
		return VIEW_HTML;
	if (has_suffix(o->output, ".json"))
		return VIEW_JSON;
	if (diff && has_suffix(o->output, ".folded"))
		return VIEW_FOLDED;
	return VIEW_TEXT;
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
	/* the table's rows beyond those written are counted, not made */
	o.top.keep = o.top_n;
	{
		const struct render r = {
			.format = pick_format(&o, false), .o = &o, .p = p, .info = &info, .t = &t};

		/* the flame graphs draw the profile, not the table */
		err = r.format == VIEW_SVG || r.format == VIEW_HTML ? 0
								    : top_compute(p, &o.top, &t);
		if (err) {
			pr_err("%s", strerror(-err));
			rc = CP_EXIT_FAILURE;
			goto out;
		}
		rc = emit(&r, o.output, render_report);
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
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char diff_doc[] =
	"Compare two profiles: the change of each function's share of the samples, in points.\v"
	"BASE and NEW are read as by cpuprof report (pprof, JSON or folded, by content). Shares "
	"are normalised by each profile's own samples, so profiles of different lengths compare. "
	"Rows are sorted by the size of the change of total share.\n\n"
	"--fail-if EXPR (repeatable), for CI:\n"
	"  total(GLOB) OP [+-]N%  change in points of the total share of a function\n"
	"                         matching GLOB (shell pattern; any: every function)\n"
	"  self(GLOB) OP [+-]N%   the same for the self share\n"
	"  samples < N            either profile has fewer than N samples\n"
	"  OP: >, >=, < or <=; holds when it holds for one matching function.\n\n"
	"Examples:\n"
	"  cpuprof diff base.pb.gz new.pb.gz\n"
	"  cpuprof diff --fail-if 'total(parse_*) > +5%' a.json b.json\n"
	"  cpuprof diff -o diff.svg base.folded new.folded\n\n"
	"Exit status:\n"
	"  0    compared; no --fail-if expression holds\n"
	"  1    runtime failure\n"
	"  3    a --fail-if expression holds (offending lines on stderr)\n"
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
	case ARGP_KEY_END:
		if (o->output && o->format == VIEW_AUTO && !has_suffix(o->output, ".folded") &&
		    !has_suffix(o->output, ".svg") && !has_suffix(o->output, ".json") &&
		    !has_suffix(o->output, ".html") && !has_suffix(o->output, ".htm") &&
		    !has_suffix(o->output, ".txt"))
			argp_error(state,
				   "-o '%s': name it .folded (difffolded), .svg or .html (flame "
				   "graphs), .json or .txt (the table), or give --format",
				   o->output);
		return common_parse(key, arg, state, o);
	default:
		return common_parse(key, arg, state, o);
	}
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
		pr_err("%s", strerror(-err));
		rc = CP_EXIT_FAILURE;
		goto out;
	}
	{
		const struct render r = {.format = pick_format(&o, true),
					 .o = &o,
					 .p = p[1],
					 .base = p[0],
					 .info = &info[1],
					 .base_info = &info[0],
					 .d = &d};

		/* the table on stdout also when -o writes a file in another format */
		if (o.output && r.format != VIEW_TEXT && r.format != VIEW_JSON) {
			const struct render table = {.format = VIEW_TEXT,
						     .o = &o,
						     .p = p[1],
						     .base = p[0],
						     .info = &info[1],
						     .base_info = &info[0],
						     .d = &d};

			rc = emit(&table, NULL, render_diff);
		}
		rc = rc ?: emit(&r, o.output, render_diff);
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
			pr_err("note: --fail-if '%s': no %s matches '%s'", f->text,
			       top_by_name(o.top.by), f->glob);
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
