/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diagnostics on stderr, filtered by one process-wide level set from -q / -v / -vv.
 * Only cmd/ and src/session/ call these; lower stages return errors instead of printing.
 */
#ifndef CPUPROF_LOG_H
#define CPUPROF_LOG_H

enum log_level {
	LOG_ERROR = 0, /* -q: errors only */
	LOG_WARN = 1,  /* default: warnings, the summary line */
	LOG_INFO = 2,  /* -v */
	LOG_DEBUG = 3, /* -vv: libbpf debug output and verifier logs */
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* "cpuprof: " + message + newline. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A continuation of the line before at the warning level: "  " + message + newline. */
void pr_warn_more(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The symbolic name of errno value err ("EFBIG"), or "?" for one libc does not name. */
const char *log_errname(int err);

#endif
