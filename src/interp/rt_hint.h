/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtimes a command will likely run, guessed from its file before it starts, so that
 * their walkers are verified before its first sample (a walker loaded when its first process
 * is found costs the verifier's time, in which that process's script frames are missed; every
 * walker verified at the start costs about a second of system time on each recording). From
 * the program's name and the libraries it needs (runtime.h: hints) and a script's interpreter
 * (its #! line, through env). A shell or another launcher (sh -c, env, timeout...), a script
 * without #!, or a file that cannot be read may run anything: every runtime. A native program
 * that names none: none (the runtimes of the processes it starts are loaded when found).
 */
#ifndef CPUPROF_RT_HINT_H
#define CPUPROF_RT_HINT_H
#include <stdint.h>
#include "runtime_shared.h"

/* every runtime id's bit (1 << CP_RT_*) */
#define RT_HINT_ALL ((uint32_t)((1u << CP_RT_MAX) - 1) & ~(1u << CP_RT_NONE))

/* The runtimes whose hints begin the last component of path ("python3.11", "libruby.so.3.1"). */
uint32_t rt_hint_name(const char *path);

/* The runtimes the program at path (a command resolved as exec would) likely runs. */
uint32_t rt_hint_file(const char *path);

#endif
