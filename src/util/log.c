// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/log.h"
#include "util/utf8safe.h"

/* The one mutable global of the program: set once from the command line. */
static enum log_level cur_level = LOG_WARN;

void log_set_level(enum log_level level)
{
	cur_level = level;
}

enum log_level log_get_level(void)
{
	return cur_level;
}

/*
 * Messages name files, processes and functions that any user chose: what the rule for foreign
 * text refuses (escape sequences, carriage returns, newlines, invalid UTF-8) is written as
 * \xHH, so that no name can reach the terminal as a control sequence or fake a line.
 */
static void vlog_prefix(enum log_level level, const char *prefix, const char *fmt, va_list ap)
{
	char small[512], *msg = small;
	va_list aq;
	int n;

	if (level > cur_level)
		return;
	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	/* out of memory: the message cut to what fits */
	if (n >= (int)sizeof(small) && vasprintf(&msg, fmt, ap) < 0)
		msg = small;
	fputs(prefix, stderr);
	utf8safe_term_fputs(msg, stderr);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	vlog_prefix(level, "cpuprof: ", fmt, ap);
}

void pr_warn_more(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_prefix(LOG_WARN, "  ", fmt, ap);
	va_end(ap);
}

#define DEFINE_LOGGER(fn, level)      \
	void fn(const char *fmt, ...) \
	{                             \
		va_list ap;           \
		va_start(ap, fmt);    \
		vlog(level, fmt, ap); \
		va_end(ap);           \
	}

DEFINE_LOGGER(pr_err, LOG_ERROR)
DEFINE_LOGGER(pr_warn, LOG_WARN)
DEFINE_LOGGER(pr_info, LOG_INFO)
DEFINE_LOGGER(pr_debug, LOG_DEBUG)

const char *log_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "?";
}
