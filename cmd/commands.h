/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands that live in their own file under cmd/; each returns the process exit status. */
#ifndef CPUPROF_COMMANDS_H
#define CPUPROF_COMMANDS_H

/* cmd/symbolize.c: cpuprof symbolize -e FILE [ADDR...] */
int cmd_symbolize(int argc, char **argv);

#endif
