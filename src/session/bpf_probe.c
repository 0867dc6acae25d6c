// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "shared.h"
#include "profile.skel.h"
#include "session/bpf_probe.h"

/* The verifier's log, kept when a load fails: its last lines say why. */
#define PROBE_LOG_SIZE (4u << 20)

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The last non-empty line of log, in place. */
static const char *last_line(char *log)
{
	size_t n = strlen(log);
	char *p;

	while (n && (log[n - 1] == '\n' || log[n - 1] == ' '))
		log[--n] = '\0';
	p = strrchr(log, '\n');
	return p ? p + 1 : log;
}

/*
 * Load program idx of the object alone; with log, ask the verifier for its log. Its name is
 * copied into name (the object is gone when this returns).
 */
static int load_one(size_t idx, char *log, size_t log_size, char *name, size_t name_size)
{
	struct cpuprof_profile *skel = cpuprof_profile__open();
	struct bpf_program *prog;
	size_t i = 0;
	int err;

	if (!skel)
		return -errno;
	/* every feature on, as a DWARF, system-wide recording loads them */
	skel->rodata->cfg = (struct cp_config){.filter_mode = CP_FILTER_ALL,
					       .user_stacks = 1,
					       .kernel_stacks = 1,
					       .unwind_dwarf = 1};
	err = 0;
	bpf_object__for_each_program(prog, skel->obj)
	{
		bool mine = i++ == idx;

		if (mine) {
			snprintf(name, name_size, "%s", bpf_program__name(prog));
			if (log && !err)
				err = bpf_program__set_log_buf(prog, log, log_size);
			if (log && !err)
				err = bpf_program__set_log_level(prog, 1);
		}
		if (!err)
			err = bpf_program__set_autoload(prog, mine);
	}
	if (!err)
		err = cpuprof_profile__load(skel);
	cpuprof_profile__destroy(skel);
	return err < 0 ? err : (err ? -EINVAL : 0);
}

int bpf_probe_programs(bpf_probe_fn fn, void *ctx)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet);
	struct cpuprof_profile *skel = cpuprof_profile__open();
	struct bpf_program *prog;
	size_t n = 0, failed = 0;
	char *log = NULL;

	if (!skel) {
		int err = -errno;

		libbpf_set_print(old);
		return err;
	}
	bpf_object__for_each_program(prog, skel->obj) n++;
	cpuprof_profile__destroy(skel);
	for (size_t i = 0; i < n; i++) {
		char name[64] = "?";
		int err = load_one(i, NULL, 0, name, sizeof(name));
		const char *reason = "";

		if (err) {
			failed++;
			/* again, with the verifier's log, for its reason */
			if (!log)
				log = calloc(1, PROBE_LOG_SIZE);
			if (log) {
				log[0] = '\0';
				load_one(i, log, PROBE_LOG_SIZE, name, sizeof(name));
				reason = last_line(log);
			}
		}
		fn(name, err, reason, ctx);
	}
	free(log);
	libbpf_set_print(old);
	return (int)failed;
}
