/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands that live in their own file under cmd/; each returns the process exit status. */
#ifndef CPUPROF_COMMANDS_H
#define CPUPROF_COMMANDS_H

/* cmd/symbolize.c: cpuprof symbolize -e FILE [ADDR...] */
int cmd_symbolize(int argc, char **argv);

/* cmd/check.c: cpuprof check */
int cmd_check(int argc, char **argv);

/* cmd/unwind_table.c: cpuprof unwind-table FILE */
int cmd_unwind_table(int argc, char **argv);

/* cmd/view.c: cpuprof report FILE, cpuprof diff BASE NEW */
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* exit statuses of report and diff besides those of session/options.h */
enum {
	CP_EXIT_REGRESSION = 3, /* diff: a --fail-if condition holds */
	CP_EXIT_DATAERR = 65,	/* an input is no profile cpuprof reads, or damaged (EX_DATAERR) */
	CP_EXIT_NOINPUT = 66,	/* an input cannot be opened (EX_NOINPUT) */
};

#endif
