// SPDX-License-Identifier: GPL-2.0
/*
 * cpuprof unwind-table FILE | --vdso: a developer aid that prints the unwind rows cpuprof builds
 * for an ELF object (or for the running kernel's vDSO, from cpuprof's own copy), one per line,
 * in file virtual addresses so they can be set beside `readelf --debug-dump=frames-interp`:
 *   VADDR CFA-RULE RBP-RULE [REASON]
 * then one summary line starting with '#'.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "util/log.h"
#include "util/safe_file.h"
#include "session/options.h"
#include "unwind/unwind_table.h"
#include "proc/vdso.h"

struct ut_options {
	const char *obj;
	bool vdso;
};

enum { OPT_VDSO = 0x100 };

static const struct argp_option ut_options[] = {
	{"vdso", OPT_VDSO, NULL, 0,
	 "The rows of the running kernel's vDSO (the same image in every process) instead of "
	 "FILE's",
	 0},
	{NULL, 0, NULL, 0, NULL, 0},
};

static const char ut_doc[] =
	"Print the x86-64 unwind rows cpuprof builds from FILE's .eh_frame (or .debug_frame), "
	"or from the vDSO's with --vdso, then a summary line.\v"
	"Each row: the file virtual address where it starts; the CFA rule (rsp+N, rbp+N, plt1(..), "
	"plt2, end-func, end-stack, signal(rsp=[rsp+N]), unsupported); the rbp rule (rbp=same, "
	"rbp=[cfa-N], rbp=[rsp+N] in a signal frame, rbp=?); why a rule is unsupported.\n\n"
	"Exit status:\n"
	"  0    the table was printed\n"
	"  1    runtime failure\n"
	"  64   bad usage\n"
	"  66   FILE cannot be read, is not an x86-64 ELF object or has no CFI; no vDSO";

static error_t ut_parse(int key, char *arg, struct argp_state *state)
{
	struct ut_options *o = state->input;

	switch (key) {
	case OPT_VDSO:
		o->vdso = true;
		break;
	case ARGP_KEY_ARG:
		if (o->obj)
			argp_error(state, "give one FILE");
		o->obj = arg;
		break;
	case ARGP_KEY_END:
		if (o->obj && o->vdso)
			argp_error(state, "give FILE or --vdso, not both");
		if (!o->obj && !o->vdso)
			argp_error(state, "give the object: cpuprof unwind-table FILE | --vdso");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Append v to *p: 16 hex digits, zero-padded ("%016" PRIx64). */
static void put_hex16(char **p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 15; i >= 0; i--, v >>= 4)
		(*p)[i] = digits[v & 15];
	*p += 16;
}

/* Append v in decimal, its sign always ("%+" PRId32). */
static void put_signed(char **p, int32_t v)
{
	char tmp[12];
	int64_t w = v;
	size_t n = 0;

	*(*p)++ = w < 0 ? '-' : '+';
	if (w < 0)
		w = -w;
	do {
		tmp[n++] = (char)('0' + w % 10);
		w /= 10;
	} while (w);
	while (n)
		*(*p)++ = tmp[--n];
}

static void put_str(char **p, const char *s)
{
	size_t n = strlen(s);

	memcpy(*p, s, n);
	*p += n;
}

/*
 * The rows of nearly every line (CFA on rsp or rbp, rbp same or saved, end rows, unsupported
 * ones) formatted here, as print_row_any prints them: a table of a million rows took 80 ms
 * of printf. false: print_row_any's.
 */
static bool print_row_fast(const struct cp_unwind_row *r, uint64_t base, FILE *out)
{
	char line[128], *p = line;

	switch (r->cfa_type) {
	case CP_CFA_RSP:
	case CP_CFA_RBP:
		put_hex16(&p, base + r->pc);
		*p++ = ' ';
		put_str(&p, unwind_table_cfa_name(r->cfa_type));
		put_signed(&p, r->cfa_off);
		if (r->rbp_type == CP_RBP_CFA_OFF) {
			put_str(&p, " rbp=[cfa");
			put_signed(&p, r->rbp_off);
			*p++ = ']';
		} else {
			put_str(&p, r->rbp_type == CP_RBP_UNCHANGED ? " rbp=same" : " rbp=?");
		}
		break;
	case CP_CFA_END_FUNC:
	case CP_CFA_END_STACK:
	case CP_CFA_UNSUPPORTED:
		put_hex16(&p, base + r->pc);
		*p++ = ' ';
		put_str(&p, unwind_table_cfa_name(r->cfa_type));
		break;
	default:
		return false;
	}
	if (r->reason) {
		*p++ = ' ';
		put_str(&p, unwind_table_reason_name(r->reason));
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), out);
	return true;
}

static void print_row_any(const struct cp_unwind_row *r, uint64_t base, FILE *out)
{
	fprintf(out, "%016" PRIx64 " ", base + r->pc);
	switch (r->cfa_type) {
	case CP_CFA_RSP:
	case CP_CFA_RBP:
		fprintf(out, "%s%+" PRId32, unwind_table_cfa_name(r->cfa_type), r->cfa_off);
		break;
	case CP_CFA_PLT1:
	case CP_CFA_PLT2:
		fprintf(out, "%s(rsp+8,+8@%" PRId32 ")", unwind_table_cfa_name(r->cfa_type),
			r->cfa_off);
		break;
	case CP_CFA_SIGNAL:
		fprintf(out, "signal(rsp=[rsp%+" PRId32 "]) rbp=[rsp%+" PRId32 "]\n", r->cfa_off,
			r->rbp_off);
		return;
	case CP_CFA_GO_SWITCH:
		if (r->rbp_type == CP_GO_VDSO) {
			fprintf(out, "go-vdso(g=[fs-%u],m=[g+%u],sp=[m+%u]) else rsp%+" PRId32 "\n",
				8u * r->pad, CP_GO_GM(r->rbp_off), CP_GO_CURG(r->rbp_off),
				r->cfa_off);
			return;
		}
		fprintf(out,
			"go-%s(g=[fs-%u],m=[g+%u],curg=[m+%u],sched=curg+%u,bp=sched+%u%s) else "
			"rsp%+" PRId32 "\n",
			r->rbp_type == CP_GO_MORESTACK ? "morestack" : "systemstack", 8u * r->pad,
			CP_GO_GM(r->rbp_off), CP_GO_CURG(r->rbp_off), CP_GO_SCHED(r->rbp_off),
			CP_GO_GOBUF_BP(r->rbp_off), CP_GO_FP(r->rbp_off) ? ",ra=[sp+8]" : "",
			r->cfa_off);
		return;
	default:
		fputs(unwind_table_cfa_name(r->cfa_type), out);
		break;
	}
	if (r->cfa_type == CP_CFA_RSP || r->cfa_type == CP_CFA_RBP || r->cfa_type == CP_CFA_PLT1 ||
	    r->cfa_type == CP_CFA_PLT2) {
		if (r->rbp_type == CP_RBP_CFA_OFF)
			fprintf(out, " rbp=[cfa%+" PRId32 "]", r->rbp_off);
		else if (r->rbp_type == CP_RBP_UNCHANGED)
			fputs(" rbp=same", out);
		else
			fputs(" rbp=?", out);
	}
	if (r->reason)
		fprintf(out, " %s", unwind_table_reason_name(r->reason));
	putc('\n', out);
}

static void print_summary(const struct unwind_table_stats *st, FILE *out)
{
	fprintf(out,
		"# %s: %zu rows, %zu bytes, %zu functions (%zu skipped), %zu end-func, "
		"%zu end-stack, %zu plt, %zu signal; unsupported:",
		st->debug_frame ? ".debug_frame" : ".eh_frame", st->rows,
		st->rows * sizeof(struct cp_unwind_row), st->fdes, st->fdes_skipped, st->end_func,
		st->end_stack, st->plt, st->signal);
	for (unsigned int i = CP_UNW_OK + 1; i < CP_UNW_MAX; i++)
		fprintf(out, " %s %zu", unwind_table_reason_name(i), st->unsupported[i]);
	fprintf(out, "; %zu rows before compaction; built in %.3f ms", st->raw_rows,
		st->build_ns / 1e6);
	if (st->bytes_skipped)
		fprintf(out, "; the last %zu bytes of the section unreadable (bad entry length)",
			st->bytes_skipped);
	putc('\n', out);
}

/* The table of o's object, or NULL after saying why; *rc gets the exit status then. */
static struct unwind_table *open_table(const struct ut_options *o, int *rc)
{
	struct unwind_table *ut;
	const char *name;
	const void *image;
	size_t size;
	int fd, err;

	*rc = CP_EXIT_NOPROC; /* 66, EX_NOINPUT */
	if (o->vdso) {
		name = "[vdso]";
		err = vdso_image(&image, &size);
		if (err) {
			pr_err("unwind-table: %s", err == -ENOENT
							   ? "the kernel maps no vDSO"
							   : "the vDSO is not a 64-bit ELF image");
			return NULL;
		}
		ut = unwind_table__from_mem(image, size);
	} else {
		name = o->obj;
		fd = safe_open(o->obj, 0, NULL);
		if (fd < 0) {
			pr_err("unwind-table: cannot open %s: %s", o->obj,
			       fd == -EINVAL ? "not a regular file" : strerror(-fd));
			return NULL;
		}
		ut = unwind_table__from_fd(fd);
		close(fd);
	}
	if (!ut) {
		err = errno;
		pr_err("unwind-table: %s: %s", name,
		       err == ENOEXEC	? "not an x86-64 ELF executable or shared object"
		       : err == ENODATA ? "no .eh_frame or .debug_frame"
		       : err == ESTALE	? "the file shrank while it was read (truncated meanwhile)"
					: strerror(err));
		if (err == ENOMEM)
			*rc = CP_EXIT_FAILURE;
		return NULL;
	}
	*rc = CP_EXIT_OK;
	return ut;
}

int cmd_unwind_table(int argc, char **argv)
{
	const struct argp argp = {ut_options, ut_parse, "FILE\n--vdso", ut_doc, NULL, NULL, NULL};
	struct ut_options o = {};
	struct unwind_table_stats st;
	const struct cp_unwind_row *rows;
	struct unwind_table *ut;
	size_t n;
	int rc = CP_EXIT_OK;

	argv[0] = (char *)"cpuprof unwind-table";
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return CP_EXIT_USAGE;
	ut = open_table(&o, &rc);
	if (!ut)
		return rc;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	rows = unwind_table__rows(ut, &n);
	for (size_t i = 0; i < n; i++)
		if (!print_row_fast(&rows[i], unwind_table__base(ut), stdout))
			print_row_any(&rows[i], unwind_table__base(ut), stdout);
	unwind_table__stats(ut, &st);
	print_summary(&st, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("unwind-table: writing the output: %s", strerror(errno));
		rc = CP_EXIT_FAILURE;
	}
	unwind_table__free(ut);
	return rc;
}
