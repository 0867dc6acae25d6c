// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "util/log.h"

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

static void vlog_prefix(enum log_level level, const char *prefix, const char *fmt, va_list ap)
{
	if (level > cur_level)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
