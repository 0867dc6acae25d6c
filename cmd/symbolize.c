// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof symbolize -e FILE [ADDR...]: file virtual addresses to functions and source lines,
 * every inlined frame innermost first, in llvm-symbolizer's default layout so the two can be
 * compared line by line:
 *   FUNCTION\nFILE:LINE:COLUMN\n ... \n(empty line)
 * with "??" for an unknown function or file and 0 for an unknown line or column.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>
#include "commands.h"
#include "symbol/dwarf_index.h"
#include "util/log.h"
#include "util/safe_file.h"
#include "util/utf8safe.h"
#include "session/options.h"

#define MAX_FRAMES 128
#define MAX_DIRS   16

/* Most addresses answered at once: what stdin has ready is read up to this many lines. */
#define MAX_BATCH (1 << 20)

enum { OPT_DEBUG_DIR = 0x100 };

struct sym_options {
	const char *obj;
	char **addrs; /* points into argv */
	int n_addrs;
	const char *dirs[MAX_DIRS + 1];
	int n_dirs;
	unsigned int jobs;
	bool verbose;
};

static const struct argp_option symbolize_options[] = {
	{"exe", 'e', "FILE", 0, "The ELF object the addresses belong to (required)", 0},
	{"obj", 0, NULL, OPTION_ALIAS, NULL, 0},
	{"debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	 "Look for separate debug files under DIR (repeatable; default /usr/lib/debug)", 0},
	{"jobs", 'j', "N", 0,
	 "Read the debug information of up to N compilation units at once, one thread each "
	 "(1 to 64; default: the number of online CPUs). The answers do not depend on N",
	 0},
	{"verbose", 'v', NULL, 0, "Print the time taken and the peak memory (RSS) on stderr", 0},
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char symbolize_doc[] =
	"Print the function, file, line and column of addresses of FILE, inlined frames "
	"included, in llvm-symbolizer's layout.\v"
	"ADDR is a hexadecimal file virtual address (as addr2line and nm show them), with or "
	"without 0x; without ADDR arguments, addresses are read from stdin, one per line, and "
	"answered as soon as no more input is ready.\n\n"
	"Exit status:\n"
	"  0    every address was answered (\"??\" when nothing is known)\n"
	"  1    runtime failure (out of memory, output not writable)\n"
	"  64   bad usage or an address that is not hexadecimal\n"
	"  66   FILE cannot be read or is not an ELF object";

static error_t symbolize_parse(int key, char *arg, struct argp_state *state)
{
	struct sym_options *o = state->input;

	switch (key) {
	case 'e':
		o->obj = arg;
		break;
	case 'j': {
		char *end;
		unsigned long v = strtoul(arg, &end, 10);

		if (*arg < '0' || *arg > '9' || *end || v < 1 || v > 64)
			argp_error(state, "-j wants a number of threads from 1 to 64");
		o->jobs = (unsigned int)v;
		break;
	}
	case 'v':
		o->verbose = true;
		if (log_get_level() < LOG_INFO)
			log_set_level(LOG_INFO);
		break;
	case OPT_DEBUG_DIR:
		if (o->n_dirs == MAX_DIRS)
			argp_error(state, "at most %d --debug-dir", MAX_DIRS);
		o->dirs[o->n_dirs++] = arg;
		break;
	case ARGP_KEY_ARG:
		o->addrs = &state->argv[state->next - 1];
		o->n_addrs = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!o->obj)
			argp_error(state, "give the object with -e FILE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Hexadecimal with or without 0x, surrounding blanks allowed. */
static int parse_addr(const char *s, uint64_t *addr)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
		return -EINVAL;
	errno = 0;
	*addr = strtoull(s, &end, 16);
	if (errno)
		return -ERANGE;
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return *end ? -EINVAL : 0;
}

/* printf's %u without printf's cost (two numbers a frame). */
static void put_u32(uint32_t v, FILE *out)
{
	char buf[16];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + i, 1, sizeof(buf) - i, out);
}

/*
 * A name or file from the object: by the rule for foreign text (util/utf8safe.h), so that a
 * newline in a symbol cannot add a line to the answer, nor an escape sequence reach a terminal.
 */
static void put_text(const char *s, FILE *out)
{
	char *safe;

	if (!s || utf8safe_ok(s)) {
		fputs_unlocked(s ? s : "??", out);
		return;
	}
	safe = utf8safe_dup(s);
	fputs_unlocked(safe ? safe : "??", out);
	free(safe);
}

static void print_frames(const struct di_frame *f, size_t n, FILE *out)
{
	if (!n)
		fputs_unlocked("??\n??:0:0\n", out);
	for (size_t i = 0; i < n; i++) {
		put_text(f[i].name, out);
		putc_unlocked('\n', out);
		put_text(f[i].file, out);
		putc_unlocked(':', out);
		put_u32(f[i].line, out);
		putc_unlocked(':', out);
		put_u32(f[i].column, out);
		putc_unlocked('\n', out);
	}
	putc_unlocked('\n', out);
}

/* Answer addrs[0..n) in their order. */
static int answer(struct dwarf_index *di, const uint64_t *addrs, size_t n, unsigned int jobs,
		  FILE *out)
{
	struct di_batch *b;
	int err;

	if (!n)
		return CP_EXIT_OK;
	err = dwarf_index__lookup_batch(di, addrs, n, MAX_FRAMES, jobs, &b);
	if (err == -ESTALE) {
		pr_err("symbolize: the object or its debug file shrank while it was read "
		       "(truncated meanwhile): nothing named");
		return CP_EXIT_FAILURE;
	}
	if (err) {
		pr_err("symbolize: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++) {
		const struct di_frame *f;
		size_t k = di_batch__frames(b, i, &f);

		print_frames(f, k, out);
	}
	di_batch__free(b);
	fflush(out);
	return CP_EXIT_OK;
}

static void bad_addr(const char *text)
{
	pr_err("symbolize: invalid address '%.*s': give a hexadecimal address",
	       (int)strcspn(text, "\n"), text);
}

/* Is more input ready without waiting? */
static bool input_ready(void)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/*
 * Read what stdin has ready (whole lines; at least one line, waiting for it), answer it as one
 * batch, repeat. Lines after an invalid address are not answered.
 */
static int run(struct dwarf_index *di, const struct sym_options *o)
{
	uint64_t *addrs = calloc(o->n_addrs > 0 ? (size_t)o->n_addrs : MAX_BATCH, sizeof(*addrs));
	char *line = NULL;
	size_t cap = 0, n = 0;
	int rc = CP_EXIT_OK;

	if (!addrs) {
		pr_err("symbolize: %s", strerror(ENOMEM));
		return CP_EXIT_FAILURE;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	for (int i = 0; i < o->n_addrs && rc == CP_EXIT_OK; i++) {
		if (parse_addr(o->addrs[i], &addrs[n]) == 0) {
			n++;
			continue;
		}
		rc = answer(di, addrs, n, o->jobs, stdout);
		n = 0;
		bad_addr(o->addrs[i]);
		if (rc == CP_EXIT_OK)
			rc = CP_EXIT_USAGE;
	}
	if (rc == CP_EXIT_OK)
		rc = answer(di, addrs, n, o->jobs, stdout);
	n = 0;
	while (!o->n_addrs && rc == CP_EXIT_OK) {
		bool eof = getline(&line, &cap, stdin) <= 0;

		/* blank lines are skipped */
		if (!eof && line[strspn(line, " \t\r\n")] != '\0') {
			if (parse_addr(line, &addrs[n])) {
				rc = answer(di, addrs, n, o->jobs, stdout);
				n = 0;
				bad_addr(line);
				if (rc == CP_EXIT_OK)
					rc = CP_EXIT_USAGE;
				break;
			}
			n++;
		}
		/* what stdio holds is ready; otherwise ask the descriptor */
		if (eof || n == MAX_BATCH ||
		    (stdin->_IO_read_ptr >= stdin->_IO_read_end && !input_ready())) {
			rc = answer(di, addrs, n, o->jobs, stdout);
			n = 0;
		}
		if (eof)
			break;
	}
	free(line);
	free(addrs);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("symbolize: writing the output: %s", strerror(errno));
		rc = CP_EXIT_FAILURE;
	}
	return rc;
}

int cmd_symbolize(int argc, char **argv)
{
	const struct argp argp = {
		symbolize_options, symbolize_parse, "[ADDR...]", symbolize_doc, NULL, NULL, NULL};
	struct sym_options o = {};
	struct timespec t0, t1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct debug_paths dp = {};
	struct dwarf_index *di;
	char *abs;
	int fd, rc;

	argv[0] = (char *)"cpuprof symbolize";
	clock_gettime(CLOCK_MONOTONIC, &t0);
	o.jobs = cpus < 1 ? 1 : cpus > 64 ? 64 : (unsigned int)cpus;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return CP_EXIT_USAGE;
	if (o.n_dirs)
		dp.debug_dirs = o.dirs;
	fd = safe_open(o.obj, 0, NULL);
	if (fd < 0) {
		pr_err("symbolize: cannot open %s: %s", o.obj,
		       fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return CP_EXIT_NOPROC; /* 66, EX_NOINPUT */
	}
	/* .gnu_debuglink is looked up next to the object: give it an absolute path */
	abs = realpath(o.obj, NULL);
	di = dwarf_index__open(fd, abs ? abs : o.obj, &dp);
	free(abs);
	close(fd);
	if (!di) {
		pr_err("symbolize: %s: %s", o.obj,
		       errno == ENOEXEC	 ? "not an ELF object"
		       : errno == ESTALE ? "it or its debug file shrank while it was read "
					   "(truncated meanwhile)"
					 : strerror(errno));
		return errno == ENOEXEC ? CP_EXIT_NOPROC : CP_EXIT_FAILURE;
	}
	if (dwarf_index__flags(di) & DI_ZSTD)
		pr_warn("symbolize: %s: debug sections are zstd-compressed, which this libdw "
			"cannot "
			"read: lines and inlined frames may be missing",
			o.obj);
	rc = run(di, &o);
	/* a file that shrank reads as zeros: damaged, but that is said already */
	if ((dwarf_index__flags(di) & (DI_DAMAGED | DI_CHANGED)) == DI_DAMAGED)
		pr_warn("symbolize: %s: damaged debug sections (headers that do not match their "
			"data): some lines or inlined frames are missing",
			o.obj);
	dwarf_index__free(di);
	if (o.verbose) {
		struct rusage ru;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		getrusage(RUSAGE_SELF, &ru);
		pr_info("symbolize: %.3f s, %u threads at most, peak RSS %.1f MB",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			o.jobs, (double)ru.ru_maxrss / 1024.0);
	}
	return rc;
}
