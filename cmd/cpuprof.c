// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof: command line. A bpftool-style table of subcommands, each with its own argp parser;
 * the options end up in a struct cp_options handed to the subcommand.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>
#include <jansson.h>
#include "commands.h"
#include "util/log.h"
#include "session/options.h"
#include "output/output.h"
#include "session/record.h"
#include "util/strnum.h"

static void print_versions(FILE *f, struct argp_state *state)
{
	(void)state;
	fprintf(f, "cpuprof %s\nlibbpf %s\nlibdw %s\njansson %s\n", CPUPROF_VERSION,
		libbpf_version_string(), dwfl_version(NULL), jansson_version_str());
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_versions;
const char *argp_program_bug_address = "the cpuprof issue tracker";

enum {
	OPT_COMM = 0x100,
	OPT_NO_KERNEL,
	OPT_KERNEL_ONLY,
	OPT_INCLUDE_IDLE,
	OPT_PER_THREAD,
	OPT_FORMAT,
	OPT_LINES,
	OPT_LABELS,
	OPT_DEBUGINFOD,
	OPT_UNWIND,
	OPT_MAX_UNWIND_MEMORY,
	OPT_DRAIN_INTERVAL,
	OPT_NO_GO_LABELS,
	/* --python/--no-python...: OPT_RT_ON + id and OPT_RT_OFF + id, id a CP_RT_* runtime */
	OPT_RT_ON,
	OPT_RT_OFF = OPT_RT_ON + CP_RT_MAX,
	OPT_RT_END = OPT_RT_OFF + CP_RT_MAX,
};

static const struct argp_option record_options[] = {
	{NULL, 0, NULL, 0, "Targets (default: every process on the system):", 1},
	{"pid", 'p', "PID[,PID...]", 0, "Profile these processes (all their threads)", 1},
	{"comm", OPT_COMM, "REGEX", 0,
	 "Profile processes whose name (comm) matches this extended regular expression, "
	 "checked as they appear",
	 1},
	{NULL, 0, NULL, 0, "Sampling:", 2},
	{"duration", 'd', "TIME", 0,
	 "Stop after TIME (500ms, 30s, 2m, 1h; a bare number is seconds). Default: until "
	 "Ctrl-C, until COMMAND exits or until every -p process has exited",
	 2},
	{"frequency", 'F', "HZ", 0, "Samples per second on each CPU (default 99)", 2},
	{"no-kernel", OPT_NO_KERNEL, NULL, 0, "Leave out kernel stacks", 2},
	{"kernel-only", OPT_KERNEL_ONLY, NULL, 0, "Leave out user stacks", 2},
	{"include-idle", OPT_INCLUDE_IDLE, NULL, 0,
	 "Keep samples of idle CPUs (left out by default)", 2},
	{"per-thread", OPT_PER_THREAD, NULL, 0, "Keep threads apart (thread name and id)", 2},
	{"unwind", OPT_UNWIND, "auto|dwarf|fp", 0,
	 "How user stacks are walked: dwarf, with the objects' .eh_frame unwind tables in BPF "
	 "(frame pointers where an object has none); fp, frame pointers only; auto (default), "
	 "dwarf, or fp when the DWARF unwinder cannot be set up",
	 2},
	{"max-unwind-memory", OPT_MAX_UNWIND_MEMORY, "MIB", 0,
	 "Most memory the unwind tables may take, in MiB, 1 to 256 (default 128)", 2},
	{"drain-interval", OPT_DRAIN_INTERVAL, "TIME", 0,
	 "Move the kernel's counts into the profile every TIME while recording (default 5s; "
	 "sooner when a map is a quarter full; at least 10ms)",
	 2},
	{"python", OPT_RT_ON + CP_RT_PYTHON, NULL, 0,
	 "Show the Python functions CPython runs in its stacks (default; needs the DWARF "
	 "unwinder)",
	 2},
	{"no-python", OPT_RT_OFF + CP_RT_PYTHON, NULL, 0, "Show CPython's own native frames only",
	 2},
	{"ruby", OPT_RT_ON + CP_RT_RUBY, NULL, 0,
	 "Show the Ruby methods and blocks MRI runs in its stacks (default; needs the DWARF "
	 "unwinder)",
	 2},
	{"no-ruby", OPT_RT_OFF + CP_RT_RUBY, NULL, 0, "Show Ruby's own native frames only", 2},
	{"php", OPT_RT_ON + CP_RT_PHP, NULL, 0,
	 "Show the PHP functions and methods PHP (NTS builds) runs in its stacks (default; needs "
	 "the DWARF unwinder)",
	 2},
	{"no-php", OPT_RT_OFF + CP_RT_PHP, NULL, 0, "Show PHP's own native frames only", 2},
	{"perl", OPT_RT_ON + CP_RT_PERL, NULL, 0,
	 "Show the subs Perl (threaded builds) runs in its stacks (default; needs the DWARF "
	 "unwinder)",
	 2},
	{"no-perl", OPT_RT_OFF + CP_RT_PERL, NULL, 0, "Show Perl's own native frames only", 2},
	{"node", OPT_RT_ON + CP_RT_V8, NULL, 0,
	 "Show the JavaScript functions node (V8) runs in its stacks, with no node flag "
	 "(default; needs the DWARF unwinder)",
	 2},
	{"no-node", OPT_RT_OFF + CP_RT_V8, NULL, 0, "Show node's native frames only", 2},
	{"java", OPT_RT_ON + CP_RT_JAVA, NULL, 0,
	 "Show the Java methods HotSpot (JDK 9+, no JVM flag needed) runs in its stacks, "
	 "interpreted and compiled (default; needs the DWARF unwinder)",
	 2},
	{"no-java", OPT_RT_OFF + CP_RT_JAVA, NULL, 0,
	 "Walk the JVM's code cache natively (frame pointers)", 2},
	{"no-go-labels", OPT_NO_GO_LABELS, NULL, 0,
	 "Do not read the labels of Go programs' goroutines (pprof.Do, SetGoroutineLabels)", 2},
	{NULL, 0, NULL, 0, "Output:", 3},
	{"output", 'o', "FILE", 0,
	 "Write the profile to FILE, atomically (default and '-': stdout); repeat to write "
	 "several formats of the same recording",
	 3},
	{"format", OPT_FORMAT, "FORMAT", 0,
	 "folded, pprof, json, svg or html (flame graphs) (default: from the file name: "
	 ".pb.gz/.pprof pprof, .json json, .svg svg, .html html, else folded)",
	 3},
	{"lines", OPT_LINES, NULL, 0,
	 "Folded output: each frame with its source position, \"function (file.c:42)\"", 3},
	{"labels", OPT_LABELS, NULL, 0,
	 "Folded output: a frame \"[labels KEY=VALUE,...]\" under the process name for samples "
	 "with labels (a Go goroutine's pprof labels)",
	 3},
	{"jobs", 'j', "N", 0,
	 "Name up to N objects at once, one thread each (1 to 64; default: the number of online "
	 "CPUs). The profile does not depend on N",
	 3},
	{"debuginfod", OPT_DEBUGINFOD, NULL, 0,
	 "Fetch debug files missing locally from the debuginfod servers in DEBUGINFOD_URLS", 3},
	{NULL, 0, NULL, 0, "Messages:", 4},
	{NULL, 'h', NULL, OPTION_HIDDEN, "Give this help list", 5},
	{"quiet", 'q', NULL, 0, "Print nothing but errors", 4},
	{"verbose", 'v', NULL, 0, "More detail; -vv adds libbpf debug output and verifier logs", 4},
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char record_doc[] =
	"Sample the stacks of running code and write a profile.\v"
	"With COMMAND, run it, profile it and its children until it exits, and exit with its "
	"exit status (128+N when killed by signal N).\n\n"
	"Examples:\n"
	"  cpuprof record -d 30s -o out.folded     whole system for 30 seconds\n"
	"  cpuprof record -p 1234 -d 20s | flamegraph.pl > fg.svg\n"
	"  cpuprof record -o prof.folded -- ./bench --iters 1000\n"
	"  cpuprof record --comm '^python' -d 10s\n\n"
	"Exit status:\n"
	"  0    profile written\n"
	"  1    runtime failure\n"
	"  64   bad usage or option value\n"
	"  66   no such pid\n"
	"  69   the kernel lacks BTF or a needed feature\n"
	"  73   output not writable\n"
	"  77   not enough privilege\n"
	"  126  COMMAND not executable\n"
	"  127  COMMAND not found\n"
	"  130, 143, 129  stopped by SIGINT, SIGTERM or SIGHUP before sampling started (the\n"
	"       profile, empty, is written)\n"
	"  With COMMAND: its exit status (128+N if killed by signal N).";

static int usage_value(struct argp_state *state, const char *what, const char *arg, int err,
		       const char *hint)
{
	argp_error(state, "invalid %s '%s': %s%s", what, arg,
		   err == -ERANGE ? "out of range" : "not understood", hint);
	return EINVAL;
}

static const char *format_name(enum output_format f)
{
	return f == FORMAT_PPROF  ? "pprof"
	       : f == FORMAT_JSON ? "json"
	       : f == FORMAT_SVG  ? "svg"
	       : f == FORMAT_HTML ? "html"
				  : "folded";
}

/* Whether outputs i and j name the same file (the same name, or one file under two). */
static bool same_output(const struct cp_options *o, size_t i, size_t j)
{
	struct stat a, b;

	if (!strcmp(o->outputs[i], o->outputs[j]))
		return true;
	return !stat(o->outputs[i], &a) && !stat(o->outputs[j], &b) && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Cross-checks of -o and --format; argp_error() exits with status 64. */
static void check_outputs(struct argp_state *state, const struct cp_options *o)
{
	size_t n = o->n_outputs ? o->n_outputs : 1, n_stdout = 0;

	for (size_t i = 0; i < n; i++) {
		const char *path = i < o->n_outputs ? o->outputs[i] : "-";
		enum output_format f = options_output_format(o, i);
		enum output_format named = format_from_name(path);

		if (!*path)
			argp_error(state, "-o needs a file name (or '-' for stdout), not ''");
		for (size_t j = 0; j < i && strcmp(path, "-"); j++)
			if (same_output(o, i, j))
				argp_error(state,
					   "'%s' is given to -o twice: write each output once",
					   path);
		/* a name that says pprof or JSON must not get another format's bytes */
		if (o->format != FORMAT_AUTO && named != FORMAT_FOLDED && named != o->format)
			argp_error(state,
				   "--format %s contradicts the name '%s' (%s): rename it or "
				   "drop --format",
				   format_name(o->format), path, format_name(named));
		if (strcmp(path, "-"))
			continue;
		n_stdout++;
		if (f == FORMAT_PPROF && isatty(STDOUT_FILENO))
			argp_error(state, "refusing to write pprof (binary, gzipped) data to a "
					  "terminal: give -o FILE.pb.gz or redirect stdout");
	}
	if (n_stdout > 1)
		argp_error(state, "only one output can go to stdout");
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct cp_options *o = state->input;
	const char **outs;
	uint64_t v;
	pid_t *pids;
	size_t n;
	int err;

	if (key >= OPT_RT_ON && key < OPT_RT_END) {
		/* --python / --no-python...: the last one given wins */
		o->no_runtime[(key - OPT_RT_ON) % CP_RT_MAX] = key >= OPT_RT_OFF;
		return 0;
	}
	switch (key) {
	case 'p':
		err = parse_pid_list(arg, &pids, &n);
		if (err)
			return usage_value(state, "pid list", arg, err, " (use e.g. 12 or 12,34)");
		o->pids = reallocarray(o->pids, o->n_pids + n, sizeof(*o->pids));
		if (!o->pids)
			argp_failure(state, 1, ENOMEM, "out of memory");
		memcpy(o->pids + o->n_pids, pids, n * sizeof(*pids));
		o->n_pids += n;
		free(pids);
		break;
	case OPT_COMM:
		o->comm_regex = arg;
		break;
	case 'd':
		err = parse_duration_ms(arg, &o->duration_ms);
		if (err)
			return usage_value(state, "duration", arg, err,
					   " (use e.g. 500ms, 30s, 2m; at least 1ms)");
		break;
	case 'F':
		err = parse_u64(arg, 1, CP_MAX_FREQUENCY, &v);
		if (err) {
			argp_error(state,
				   "invalid frequency '%s': give a whole number of Hz from 1 "
				   "to %d",
				   arg, CP_MAX_FREQUENCY);
			return EINVAL;
		}
		o->frequency = (unsigned int)v;
		break;
	case OPT_NO_KERNEL:
		o->no_kernel = true;
		break;
	case OPT_KERNEL_ONLY:
		o->kernel_only = true;
		break;
	case OPT_INCLUDE_IDLE:
		o->include_idle = true;
		break;
	case OPT_PER_THREAD:
		o->per_thread = true;
		break;
	case OPT_NO_GO_LABELS:
		o->no_go_labels = true;
		break;
	case OPT_UNWIND:
		if (strcmp(arg, "fp") == 0)
			o->unwind = UNWIND_FP;
		else if (strcmp(arg, "dwarf") == 0)
			o->unwind = UNWIND_DWARF;
		else if (strcmp(arg, "auto") == 0)
			o->unwind = UNWIND_AUTO;
		else
			argp_error(state, "unknown unwinder '%s': use auto, dwarf or fp", arg);
		break;
	case OPT_MAX_UNWIND_MEMORY:
		err = parse_u64(arg, 1, 256, &v);
		if (err)
			return usage_value(state, "unwind memory", arg, err,
					   " (a number of MiB from 1 to 256)");
		o->max_unwind_mib = v;
		break;
	case 'j':
		err = parse_u64(arg, 1, 64, &v);
		if (err)
			return usage_value(state, "number of jobs", arg, err,
					   " (a number of threads from 1 to 64)");
		o->jobs = (unsigned int)v;
		break;
	case OPT_DRAIN_INTERVAL:
		err = parse_duration_ms(arg, &o->drain_ms);
		if (!err && o->drain_ms < CP_MIN_DRAIN_MS)
			err = -ERANGE;
		if (err)
			return usage_value(state, "drain interval", arg, err,
					   " (use e.g. 500ms, 5s; at least 10ms)");
		break;
	case 'o':
		outs = reallocarray(o->outputs, o->n_outputs + 1, sizeof(*o->outputs));
		if (!outs)
			argp_failure(state, 1, ENOMEM, "out of memory");
		o->outputs = outs;
		o->outputs[o->n_outputs++] = arg;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "folded") == 0)
			o->format = FORMAT_FOLDED;
		else if (strcmp(arg, "pprof") == 0)
			o->format = FORMAT_PPROF;
		else if (strcmp(arg, "json") == 0)
			o->format = FORMAT_JSON;
		else if (strcmp(arg, "svg") == 0)
			o->format = FORMAT_SVG;
		else if (strcmp(arg, "html") == 0)
			o->format = FORMAT_HTML;
		else
			argp_error(state,
				   "unknown format '%s': use folded, pprof, json, svg or html",
				   arg);
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case OPT_LINES:
		o->lines = true;
		break;
	case OPT_LABELS:
		o->labels = true;
		break;
	case OPT_DEBUGINFOD:
		o->debuginfod = true;
		break;
	case 'q':
		log_set_level(LOG_ERROR);
		break;
	case 'v':
		if (log_get_level() < LOG_DEBUG)
			log_set_level(log_get_level() < LOG_INFO ? LOG_INFO : LOG_DEBUG);
		break;
	case ARGP_KEY_ARG:
		/* the first operand starts COMMAND: the rest of argv is its, options included */
		o->command = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		/* "record --" alone would profile the whole system: surely not what was meant */
		if (!o->command && state->quoted && state->quoted <= state->argc &&
		    !strcmp(state->argv[state->quoted - 1], "--"))
			argp_error(state, "'--' must be followed by the COMMAND to profile");
		if (o->no_kernel && o->kernel_only)
			argp_error(state, "--no-kernel and --kernel-only exclude each other");
		if (o->command && (o->n_pids || o->comm_regex))
			argp_error(state, "give either COMMAND, -p or --comm, not several");
		if (o->n_pids && o->comm_regex)
			argp_error(state, "give either -p or --comm, not both");
		check_outputs(state, o);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	const struct argp argp = {
		record_options, record_parse, "[-- COMMAND [ARG...]]", record_doc, NULL,
		NULL,		NULL};
	struct cp_options o = {
		.frequency = CP_DEFAULT_FREQUENCY,
		.max_unwind_mib = CP_DEFAULT_UNWIND_MIB,
		.drain_ms = CP_DEFAULT_DRAIN_MS,
		.argc = argc,
		.argv = argv,
	};
	sigset_t set;
	int rc;

	/* from here on a stop signal waits for record_run to see it (it ends the run cleanly) */
	record_block_signals(&set, NULL);
	argv[0] = (char *)"cpuprof record";
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return CP_EXIT_USAGE;
	rc = record_run(&o);
	free(o.pids);
	free(o.outputs);
	return rc;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_versions(stdout, NULL);
	return CP_EXIT_OK;
}

static int cmd_help(int argc, char **argv);

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{"record", cmd_record, "sample stacks and write a profile"},
	{"report", cmd_report, "print the top functions of a profile file"},
	{"diff", cmd_diff, "compare two profiles; --fail-if for CI"},
	{"check", cmd_check, "say whether this machine can record, and if not, why"},
	{"symbolize", cmd_symbolize, "print function, file and line of addresses of an ELF file"},
	{"unwind-table", cmd_unwind_table, "print the unwind rows built from an ELF file's CFI"},
	{"version", cmd_version, "print the versions of cpuprof and its libraries"},
	{"help", cmd_help, "show this help"},
	{NULL, NULL, NULL},
};

static int cmd_help(int argc, char **argv)
{
	/* cpuprof help COMMAND: that command's own --help */
	if (argc > 1) {
		for (const struct cmd *c = cmds; c->name; c++) {
			char *sub[] = {argv[1], (char *)"--help", NULL};

			if (strcmp(argv[1], c->name) == 0 && c->fn != cmd_help)
				return c->fn(2, sub);
		}
		fprintf(stderr, "cpuprof: unknown command '%s'; try 'cpuprof --help'\n", argv[1]);
		return CP_EXIT_USAGE;
	}
	printf("Usage: cpuprof COMMAND [OPTIONS]\n\n"
	       "A sampling CPU profiler for Linux (eBPF).\n\nCommands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		printf("  %-12s %s\n", c->name, c->summary);
	printf("\nRun 'cpuprof help COMMAND' (or 'cpuprof COMMAND --help') for its options.\n"
	       "Options: -h, --help  this help;  -V, --version  versions.\n\n"
	       "Examples:\n"
	       "  cpuprof record -d 30s -o out.folded\n"
	       "  cpuprof record --pid 1234 -d 20s | flamegraph.pl > fg.svg\n"
	       "  cpuprof record -o prof.folded -- ./bench --iters 1000\n");
	return CP_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *name;

	/*
	 * A write past the file-size limit (ulimit -f) must fail with EFBIG, which the writers
	 * report, rather than kill cpuprof with SIGXFSZ and lose the profile and the message.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		fprintf(stderr, "Usage: cpuprof COMMAND [OPTIONS]; try 'cpuprof --help'\n");
		return CP_EXIT_USAGE;
	}
	name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
		name = "version";
	else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	/* exact matches only: a new subcommand never makes an old abbreviation ambiguous */
	for (const struct cmd *c = cmds; c->name; c++)
		if (strcmp(name, c->name) == 0)
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "cpuprof: unknown command '%s'; try 'cpuprof --help'\n", argv[1]);
	return CP_EXIT_USAGE;
}
