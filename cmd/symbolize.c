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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "symbol/dwarf_index.h"
#include "util/log.h"
#include "util/safe_file.h"
#include "session/options.h"

#define MAX_FRAMES 128
#define MAX_DIRS   16

enum { OPT_DEBUG_DIR = 0x100 };

struct sym_options {
	const char *obj;
	char **addrs; /* points into argv */
	int n_addrs;
	const char *dirs[MAX_DIRS + 1];
	int n_dirs;
};

static const struct argp_option symbolize_options[] = {
	{"exe", 'e', "FILE", 0, "The ELF object the addresses belong to (required)", 0},
	{"obj", 0, NULL, OPTION_ALIAS, NULL, 0},
	{"debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	 "Look for separate debug files under DIR (repeatable; default /usr/lib/debug)", 0},
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char symbolize_doc[] =
	"Print the function, file, line and column of addresses of FILE, inlined frames "
	"included, in llvm-symbolizer's layout.\v"
	"ADDR is a hexadecimal file virtual address (as addr2line and nm show them), with or "
	"without 0x; without ADDR arguments, addresses are read from stdin, one per line.\n\n"
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

static int print_addr(struct dwarf_index *di, uint64_t addr, FILE *out)
{
	struct di_frame f[MAX_FRAMES];
	size_t n;
	int err = dwarf_index__lookup(di, addr, f, MAX_FRAMES, &n);

	if (err)
		return err;
	if (!n)
		fputs_unlocked("??\n??:0:0\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs_unlocked(f[i].name ? f[i].name : "??", out);
		putc_unlocked('\n', out);
		fputs_unlocked(f[i].file ? f[i].file : "??", out);
		fprintf(out, ":%" PRIu32 ":%" PRIu32 "\n", f[i].line, f[i].column);
	}
	putc_unlocked('\n', out);
	return 0;
}

static int one(struct dwarf_index *di, const char *text, FILE *out)
{
	uint64_t addr;
	int err = parse_addr(text, &addr);

	if (err) {
		fflush(out);
		pr_err("symbolize: invalid address '%.*s': give a hexadecimal address",
		       (int)strcspn(text, "\n"), text);
		return CP_EXIT_USAGE;
	}
	err = print_addr(di, addr, out);
	if (err) {
		pr_err("symbolize: %s", strerror(-err));
		return CP_EXIT_FAILURE;
	}
	return CP_EXIT_OK;
}

static int run(struct dwarf_index *di, const struct sym_options *o)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = CP_EXIT_OK;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	for (int i = 0; i < o->n_addrs && rc == CP_EXIT_OK; i++)
		rc = one(di, o->addrs[i], stdout);
	if (!o->n_addrs) {
		while (rc == CP_EXIT_OK && getline(&line, &cap, stdin) > 0) {
			/* blank lines are skipped */
			if (line[strspn(line, " \t\r\n")] == '\0')
				continue;
			rc = one(di, line, stdout);
		}
	}
	free(line);
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
	struct debug_paths dp = {};
	struct dwarf_index *di;
	char *abs;
	int fd, rc;

	argv[0] = (char *)"cpuprof symbolize";
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
		       errno == ENOEXEC ? "not an ELF object" : strerror(errno));
		return errno == ENOEXEC ? CP_EXIT_NOPROC : CP_EXIT_FAILURE;
	}
	if (dwarf_index__flags(di) & DI_ZSTD)
		pr_warn("symbolize: %s: debug sections are zstd-compressed, which this libdw "
			"cannot "
			"read: lines and inlined frames may be missing",
			o.obj);
	rc = run(di, &o);
	if (dwarf_index__flags(di) & DI_DAMAGED)
		pr_warn("symbolize: %s: damaged debug sections (headers that do not match their "
			"data): some lines or inlined frames are missing",
			o.obj);
	dwarf_index__free(di);
	return rc;
}
