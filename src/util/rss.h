/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This process's memory as the kernel counts it: resident set size now (VmRSS) and its high-water
 * mark (VmHWM), which can be set back to the present size (clear_refs), so that one phase's peak
 * is told apart from an earlier phase's (-v: the recording's peak, then the output's).
 */
#ifndef CPUPROF_RSS_H
#define CPUPROF_RSS_H
#include <stdint.h>

struct rss {
	uint64_t now_kib;  /* VmRSS */
	uint64_t peak_kib; /* VmHWM: the peak since start or since the last rss_reset_peak */
};

/* VmRSS and VmHWM from the text of a /proc/PID/status file. 0, or -EINVAL when one is missing. */
int rss_parse(const char *text, struct rss *r);

/* This process's (/proc/self/status). 0 or a negative errno. */
int rss_self(struct rss *r);

/*
 * Set the high-water mark back to the present RSS ("5" to /proc/self/clear_refs, Linux 4.0).
 * 0 or a negative errno (then the mark keeps the earlier peak).
 */
int rss_reset_peak(void);

#endif
