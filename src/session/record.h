/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `cpuprof record`: the session that sequences everything else (the only module besides cmd/
 * that talks to the user). Checks -> load BPF -> prepare targets -> sample -> stop -> drain ->
 * name -> write -> summary.
 */
#ifndef CPUPROF_RECORD_H
#define CPUPROF_RECORD_H
#include "session/options.h"

/* Run a recording. Returns the process exit status (enum cp_exit, or COMMAND's status). */
int record_run(const struct cp_options *opts);

#endif
