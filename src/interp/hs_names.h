/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot frames named from the live JVM (the descriptor's name_frame): a method's class, name,
 * source file and the line of its bci (the ConstMethod's compressed line number table), a
 * stub's blob name. The same chain as BPF's namer (bpf/hotspot_step.bpf.h), which names
 * frames of JVMs gone by then, without lines.
 */
#ifndef CPUPROF_HS_NAMES_H
#define CPUPROF_HS_NAMES_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "hotspot_shared.h"
#include "interp/hs_detect.h"

struct rt_frame_info;

/*
 * The line of bci in a compressed line number table (len bytes at t; JDK 9-20's encoding:
 * HotSpot CompressedLineNumberReadStream): the line of the greatest start <= bci, as
 * Method::line_number_from_bci. The line, or -1 (none, or the table is damaged).
 */
int hs_line_of(const uint8_t *t, size_t len, uint32_t bci);

/* Name frame f of process pid (p, lines: of its attach). 0, -ESRCH (gone), -EFAULT... */
int hs_name_frame(pid_t pid, const struct cp_hs_proc *p, const struct hs_line_offsets *lines,
		  const struct cp_rt_frame *f, struct rt_frame_info *out);

#endif
