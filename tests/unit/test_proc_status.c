// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/status fields from fake procfs trees: Tgid, State, NSpid (innermost); comm. */
#include "cmocka_inc.h"
#include <sys/stat.h>
#include "proc/proc_status.h"

static char root[] = "/tmp/cpuprof-status.XXXXXX";

static void write_status(uint32_t pid, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", root, pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%u/status", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void write_file(uint32_t pid, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/%s", root, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	write_status(10, "Name:\tapp\nState:\tS (sleeping)\nTgid:\t10\nNgid:\t0\nPid:\t10\n"
			 "NSpid:\t10\nUid:\t1000\t0\t1000\t1000\nVmRSS:\t   81234 kB\nRssAnon:\t   "
			 "67000 kB\n"
			 "RssFile:\t   14234 kB\nRssShmem:\t       0 kB\n");
	/* a thread of process 10, in a container where it is pid 7 */
	/* a Groups: line longer than a read, with "Uid:" where a read of it ends */
	write_status(11,
		     "Name:\tworker\nState:\tR (running)\nTgid:\t10\nPid:\t11\n"
		     "Groups:\t"
		     "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 "
		     "29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 "
		     "54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 "
		     "79 80 81 82 83 84 85 8Uid:\t5 6\n"
		     "NSpid:\t11\t5\t7\n");
	write_status(12, "Name:\tgone\nState:\tZ (zombie)\nTgid:\t12\n");
	write_status(13, "Name:\tbroken\nPid:\t13\n");
	/* a Groups: line longer than the reader's buffer, "Uid:" all along it, fields after it */
	{
		static char big[12000];
		size_t n = (size_t)snprintf(big, sizeof(big), "Name:\tbig\nState:\tS\nGroups:\t");

		while (n < 10000)
			n += (size_t)snprintf(big + n, sizeof(big) - n, "Uid:\t5\t6 ");
		snprintf(big + n, sizeof(big) - n, "\nTgid:\t14\nNSpid:\t14\t3\nVmRSS:\t 5 kB\n");
		write_status(14, big);
	}
	write_file(10, "comm", "app\n");
	write_file(11, "comm", "a name of 15 ch\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_fields(void **state)
{
	struct proc_status st;

	(void)state;
	assert_int_equal(proc_status_read(root, 10, &st), 0);
	assert_int_equal(st.tgid, 10);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.nspid, 10);
	assert_int_equal(st.rss_kib, 81234);
	assert_int_equal(st.rss_anon_kib, 67000);
	assert_int_equal(st.rss_file_kib, 14234);
	/* the effective one of real, effective, saved, file-system */
	assert_true(st.has_euid);
	assert_int_equal(st.euid, 0);
	assert_int_equal(proc_status_read(root, 11, &st), 0);
	assert_false(st.has_euid);
	assert_int_equal(st.tgid, 10);
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.nspid, 7);
	/* no NSpid line (old kernels): the pid itself */
	assert_int_equal(proc_status_read(root, 12, &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.nspid, 12);
	/* a zombie has no memory lines */
	assert_int_equal(st.rss_kib, 0);
	/* the rest of an overlong line is skipped, the lines after it are read */
	assert_int_equal(proc_status_read(root, 14, &st), 0);
	assert_false(st.has_euid);
	assert_int_equal(st.tgid, 14);
	assert_int_equal(st.nspid, 3);
	assert_int_equal(st.rss_kib, 5);
}

static void test_errors(void **state)
{
	struct proc_status st;

	(void)state;
	assert_int_equal(proc_status_read(root, 13, &st), -EINVAL);
	assert_int_equal(proc_status_read(root, 99, &st), -ENOENT);
}

static void test_comm(void **state)
{
	char buf[16], small[4];

	(void)state;
	assert_int_equal(proc_comm_read(root, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "app");
	/* the longest name the kernel keeps: 15 bytes, newline dropped */
	assert_int_equal(proc_comm_read(root, 11, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a name of 15 ch");
	/* cut to the buffer, always terminated */
	assert_int_equal(proc_comm_read(root, 11, small, sizeof(small)), 0);
	assert_string_equal(small, "a n");
	assert_int_equal(proc_comm_read(root, 99, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(proc_comm_read(root, 10, buf, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_comm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
