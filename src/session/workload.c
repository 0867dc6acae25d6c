// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "session/workload.h"

struct workload {
	pid_t pid;
	char *path; /* argv[0] resolved */
	int go_fd;  /* write end: one byte lets the child exec */
	int err_fd; /* read end: the exec errno, or EOF when exec succeeded */
	bool started, reaped;
};

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

/* PATH search as execvp does it; a found but non-executable file gives -EACCES. */
static int resolve(const char *name, char **out)
{
	const char *path = getenv("PATH");
	int err = -ENOENT;
	char *copy, *dir, *save = NULL;

	if (strchr(name, '/')) {
		err = check_exec(name);
		if (!err && !(*out = strdup(name)))
			err = -ENOMEM;
		return err;
	}
	copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand;
		int e;

		if (asprintf(&cand, "%s/%s", *dir ? dir : ".", name) < 0) {
			err = -ENOMEM;
			break;
		}
		e = check_exec(cand);
		if (!e) {
			*out = cand;
			err = 0;
			break;
		}
		if (e == -EACCES)
			err = e;
		free(cand);
	}
	free(copy);
	return err;
}

static void __attribute__((noreturn))
child_main(const char *path, char *const argv[], int go_rd, int err_wr)
{
	sigset_t all;
	char c;
	int e;

	/* until exec the child is still "cpuprof": samples taken then carry the command's name */
	/* GNU basename (string.h): what follows the last slash, path untouched */
	prctl(PR_SET_NAME, basename(path), 0, 0, 0);
	/* blocked signals and ignored dispositions survive exec: give the command a clean slate */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	if (read(go_rd, &c, 1) != 1)
		_exit(127); /* cancelled: the profiler failed before sampling */
	close(go_rd);
	execv(path, argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

int workload__prepare(char *const argv[], struct workload **out)
{
	int go[2] = {-1, -1}, ep[2] = {-1, -1}, err;
	struct workload *w = NULL;
	char *path = NULL;

	*out = NULL;
	err = resolve(argv[0], &path);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w || pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		err = w ? -errno : -ENOMEM;
		goto fail;
	}
	/* stdout may be the profile: flush it so the child does not inherit buffered bytes */
	fflush(stdout);
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (w->pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(path, argv, go[0], ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	w->go_fd = go[1];
	w->err_fd = ep[0];
	w->path = path;
	*out = w;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	free(path);
	free(w);
	return err;
}

pid_t workload__pid(const struct workload *w)
{
	return w->pid;
}

const char *workload__path(const struct workload *w)
{
	return w->path;
}

int workload__start(struct workload *w)
{
	ssize_t n;
	int e;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	w->started = true;
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

int workload__reap(struct workload *w, bool wait, int *status)
{
	pid_t r;

	if (w->reaped)
		return 1;
	do
		r = waitpid(w->pid, status, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	w->reaped = true;
	return 1;
}

void workload__signal(struct workload *w, int sig)
{
	if (w && !w->reaped)
		kill(w->pid, sig);
}

int workload_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void workload__free(struct workload *w)
{
	if (!w)
		return;
	/* closing the go pipe unwritten makes a held child exit */
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	free(w->path);
	free(w);
}
