/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `-- COMMAND` workload, started the way perf record does it: fork early, hold the child
 * on a pipe until sampling is attached, then let it exec. An exec failure comes back through a
 * close-on-exec pipe as an errno.
 */
#ifndef CPUPROF_WORKLOAD_H
#define CPUPROF_WORKLOAD_H
#include <stdbool.h>
#include <sys/types.h>

struct workload;

/*
 * Find argv[0] (PATH search unless it has a '/'): -ENOENT when it does not exist, -EACCES when
 * it is not executable. Then fork the held child. The child restores the default signal mask
 * and dispositions before exec. 0 or a negative errno.
 */
int workload__prepare(char *const argv[], struct workload **out);

pid_t workload__pid(const struct workload *w);

/* The file the child will execute (argv[0] after the PATH search). */
const char *workload__path(const struct workload *w);

/* Let the child exec. Returns 0, or the exec's negative errno (the child has then exited). */
int workload__start(struct workload *w);

/*
 * Collect the child's status without blocking (wait: block). Returns 1 when it has ended
 * (*status is the waitpid status), 0 when it still runs, or a negative errno.
 */
int workload__reap(struct workload *w, bool wait, int *status);

/* Send sig to the child if it still runs. */
void workload__signal(struct workload *w, int sig);

/* Shell-style exit code of a waitpid status: the exit status, or 128 + the signal. */
int workload_exit_code(int status);

/* If never started, the held child is cancelled; then free. Does not wait. NULL-safe. */
void workload__free(struct workload *w);

#endif
