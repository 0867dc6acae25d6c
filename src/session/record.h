/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `cpuprof record`: the session that sequences everything else (the only module besides cmd/
 * that talks to the user). Checks -> load BPF -> prepare targets -> sample -> stop -> drain ->
 * name -> write -> summary.
 */
#ifndef CPUPROF_RECORD_H
#define CPUPROF_RECORD_H
#include <signal.h>
#include "session/options.h"

/*
 * Block the signals a recording reads through its signalfd (SIGINT, SIGTERM, SIGHUP,
 * SIGCHLD), so that none arriving before record_run is lost to its default action: call it
 * first thing. old (may be NULL) gets the mask before. 0 or -errno.
 */
int record_block_signals(sigset_t *set, sigset_t *old);

/* Run a recording. Returns the process exit status (enum cp_exit, or COMMAND's status). */
int record_run(const struct cp_options *opts);

#endif
