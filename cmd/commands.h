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

#endif
