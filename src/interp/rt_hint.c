// SPDX-License-Identifier: GPL-2.0
#include <linux/types.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "elf/elf_named.h"
#include "interp/rt_hint.h"
#include "interp/runtime.h"
#include "util/safe_file.h"

/* Programs that run another program given to them, or a command line: anything may follow. */
static const char *const launchers[] = {
	"sh",	    "bash",	   "dash",	"zsh",	    "ksh",     "mksh",	  "fish",
	"busybox",  "env",	   "nice",	"nohup",    "setsid",  "taskset", "chrt",
	"ionice",   "stdbuf",	   "timeout",	"time",	    "xargs",   "sudo",	  "su",
	"doas",	    "flock",	   "unshare",	"nsenter",  "chroot",  "make",	  "strace",
	"ltrace",   "valgrind",	   "gdb",	"perf",	    "numactl", "setpriv", "prlimit",
	"runuser",  "systemd-run", "bwrap",	"firejail", "ssh",     "watch",	  "parallel",
	"fakeroot", "eatmydata",   "catchsegv", NULL,
};

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool is_launcher(const char *base)
{
	/* the dynamic loader run as a program (ld-linux-x86-64.so.2 PROGRAM) */
	if (!strncmp(base, "ld-", 3) && strstr(base, ".so"))
		return true;
	for (size_t i = 0; launchers[i]; i++)
		if (!strcmp(base, launchers[i]))
			return true;
	return false;
}

uint32_t rt_hint_name(const char *path)
{
	const char *base = base_of(path);
	uint32_t mask = 0;

	for (uint32_t id = 0; id < CP_RT_MAX; id++) {
		const struct runtime *rt = runtime_of(id);

		for (size_t i = 0; rt && rt->hints && rt->hints[i]; i++)
			if (!strncmp(base, rt->hints[i], strlen(rt->hints[i])))
				mask |= 1u << id;
	}
	return mask;
}

/* The runtimes an ELF program at path (open on fd) needs a library of. */
static uint32_t elf_needs(int fd)
{
	struct elf_named *en;
	uint32_t mask = 0;

	if (elf_named__open(fd, &en))
		return 0;
	for (uint32_t id = 0; id < CP_RT_MAX; id++) {
		const struct runtime *rt = runtime_of(id);

		for (size_t i = 0; rt && rt->hints && rt->hints[i]; i++)
			if (elf_named__needs(en, rt->hints[i]))
				mask |= 1u << id;
	}
	elf_named__free(en);
	return mask;
}

/*
 * The #! line in buf (n bytes, NUL-terminated at n): its interpreter's runtimes, the program
 * env runs for "#!/usr/bin/env [-S] NAME".
 */
static uint32_t hint_file(const char *path, unsigned int depth);

/* word without the quotes env -S keeps ('python3' or "python3") */
static char *unquote(char *word)
{
	size_t n = strlen(word);

	if (n >= 2 && (word[0] == '\'' || word[0] == '"') && word[n - 1] == word[0]) {
		word[n - 1] = 0;
		return word + 1;
	}
	return word;
}

static uint32_t shebang(char *buf, unsigned int depth)
{
	char *nl = strchr(buf, '\n'), *save = NULL, *interp, *word;

	if (!nl)
		return RT_HINT_ALL; /* a line longer than we read */
	*nl = 0;
	interp = strtok_r(buf + 2, " \t", &save);
	if (!interp)
		return RT_HINT_ALL;
	/* by its name, else by its own file: a script again (#! nests), a program needing
	   libpython... */
	if (strcmp(base_of(interp), "env"))
		return rt_hint_name(interp) ?: hint_file(interp, depth + 1);
	/* env's options (-S splits the rest; -i, -u NAME...) then NAME=VALUE, then the program */
	while ((word = strtok_r(NULL, " \t", &save))) {
		if (word[0] == '-') {
			if (!strcmp(word, "-u") || !strcmp(word, "-C"))
				(void)strtok_r(NULL, " \t", &save);
			continue;
		}
		if (strchr(word, '='))
			continue;
		word = unquote(word);
		return is_launcher(base_of(word)) ? RT_HINT_ALL : rt_hint_name(word);
	}
	return RT_HINT_ALL;
}

/* The kernel follows at most 4 levels of #! (BINPRM_MAX_RECURSION). */
static uint32_t hint_file(const char *path, unsigned int depth)
{
	char buf[256];
	uint32_t mask;
	ssize_t n;
	int fd;

	if (is_launcher(base_of(path)) || depth > 4)
		return RT_HINT_ALL;
	fd = safe_open(path, 0, NULL);
	if (fd < 0)
		return RT_HINT_ALL;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 4) {
		close(fd);
		return RT_HINT_ALL;
	}
	buf[n] = 0;
	if (buf[0] == '#' && buf[1] == '!')
		mask = shebang(buf, depth);
	else if (!memcmp(buf, "\177ELF", 4))
		mask = rt_hint_name(path) | elf_needs(fd);
	else
		mask = RT_HINT_ALL; /* exec fails; execvp would hand it to sh */
	close(fd);
	return mask;
}

uint32_t rt_hint_file(const char *path)
{
	return hint_file(path, 0);
}
