// SPDX-License-Identifier: GPL-2.0
/* The held workload: runs only when started, exit codes, exec failures, cancel. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cmocka_inc.h"
#include "session/workload.h"

static int run(char *const argv[])
{
	struct workload *w;
	int status = -1;

	assert_int_equal(workload__prepare(argv, &w), 0);
	assert_int_equal(workload__start(w), 0);
	assert_int_equal(workload__reap(w, true, &status), 1);
	/* reaping again answers from memory */
	assert_int_equal(workload__reap(w, false, &status), 1);
	workload__free(w);
	return workload_exit_code(status);
}

static void test_exit_codes(void **state)
{
	char *t[] = {"true", NULL};
	char *three[] = {"sh", "-c", "exit 3", NULL};
	char *killed[] = {"sh", "-c", "kill -KILL $$", NULL};

	(void)state;
	assert_int_equal(run(t), 0);
	assert_int_equal(run(three), 3);
	assert_int_equal(run(killed), 128 + SIGKILL);
}

/* The child does not run its command before workload__start. */
static void test_held(void **state)
{
	char path[] = "/tmp/cpuprof-wl.XXXXXX";
	char script[128];
	char *argv[] = {"sh", "-c", script, NULL};
	struct workload *w;
	struct stat st;
	int status, fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	snprintf(script, sizeof(script), "touch %s", path);
	assert_int_equal(workload__prepare(argv, &w), 0);
	usleep(100000);
	assert_int_equal(workload__reap(w, false, &status), 0);
	assert_int_not_equal(stat(path, &st), 0);
	assert_int_equal(workload__start(w), 0);
	assert_int_equal(workload__reap(w, true, &status), 1);
	assert_int_equal(workload_exit_code(status), 0);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	workload__free(w);
}

static void test_cancel(void **state)
{
	char *argv[] = {"true", NULL};
	struct workload *w;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(workload__prepare(argv, &w), 0);
	pid = workload__pid(w);
	workload__free(w); /* never started: the child gives up */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(workload_exit_code(status), 127);
}

static void test_not_found(void **state)
{
	char *missing[] = {"cpuprof-no-such-command", NULL};
	char *path_missing[] = {"/nonexistent/cmd", NULL};
	char *dir[] = {"/tmp", NULL};
	char noexec[] = "/tmp/cpuprof-noexec.XXXXXX";
	char *ne[] = {noexec, NULL};
	struct workload *w = (void *)1;
	int fd = mkstemp(noexec);

	(void)state;
	assert_int_equal(workload__prepare(missing, &w), -ENOENT);
	assert_int_equal(workload__prepare(path_missing, &w), -ENOENT);
	assert_int_equal(workload__prepare(dir, &w), -EACCES);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(workload__prepare(ne, &w), -EACCES);
	unlink(noexec);
}

/* A file that passes the checks but cannot be executed reports the exec errno. */
static void test_exec_failure(void **state)
{
	char path[] = "/tmp/cpuprof-badexec.XXXXXX";
	char *argv[] = {path, NULL};
	struct workload *w;
	int status, fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd,
			       "\x7f"
			       "ELF garbage",
			       12),
			 12);
	close(fd);
	chmod(path, 0755);
	assert_int_equal(workload__prepare(argv, &w), 0);
	assert_int_equal(workload__start(w), -ENOEXEC);
	assert_int_equal(workload__reap(w, true, &status), 1);
	workload__free(w);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),   cmocka_unit_test(test_held),
		cmocka_unit_test(test_cancel),	     cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_exec_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
