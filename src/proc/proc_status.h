/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields cpuprof needs from /proc/PID/status: the process (thread group) of a thread, its
 * state letter, its pid inside its own pid namespace, its effective user (whose perf map is
 * trusted), and its resident memory (-vv of its own); and its name from /proc/PID/comm.
 * procfs is "/proc" except in tests.
 */
#ifndef CPUPROF_PROC_STATUS_H
#define CPUPROF_PROC_STATUS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_status {
	uint32_t tgid;	/* Tgid: */
	char state;	/* State: 'R', 'S', 'Z'... */
	uint32_t nspid; /* last field of NSpid: (the innermost namespace); the pid without it */
	uint64_t rss_kib, rss_anon_kib, rss_file_kib; /* VmRSS:, RssAnon:, RssFile:; 0 without */
	uint32_t euid; /* the second field of Uid: (effective), as the reader's namespace sees it */
	bool has_euid; /* false: no Uid: line */
};

/* 0, -ENOENT/-errno when the file cannot be read, -EINVAL when Tgid or State is missing. */
int proc_status_read(const char *procfs, uint32_t pid, struct proc_status *st);

/* The name of process pid (/proc/PID/comm, without its newline) into buf. 0 or -errno. */
int proc_comm_read(const char *procfs, uint32_t pid, char *buf, size_t size);

#endif
