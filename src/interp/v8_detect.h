/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V8 (node) in a process: is an object V8 (one exporting V8's postmortem metadata, the
 * v8dbg_* symbols: node's executable, or libnode.so), which version
 * (v8::internal::Version::{major,minor,build}_), and the frame slots, instance types and
 * field offsets the BPF frame reader and namer need (bpf/v8_shared.h struct cp_v8_proc), all
 * read from the file: no process memory. A version or a tagging scheme the reader does not
 * know (not 64-bit SMIs without pointer compression) is refused (-ENOTSUP).
 */
#ifndef CPUPROF_V8_DETECT_H
#define CPUPROF_V8_DETECT_H
#include <stdint.h>
#include <linux/types.h>
#include "v8_shared.h"

/* What one V8 object says about itself (file vaddrs). */
struct v8_object_info {
	struct cp_v8_offsets off;
	uint32_t patch;			       /* Version::patch_ */
	uint64_t builtins_start, builtins_end; /* the embedded builtins' code; 0 when unknown */
	const char *missing;		       /* -ENOTSUP: the first metadata symbol missing */
};

/* 0 with *info filled; -ENOENT not V8; -ENOTSUP V8 but not usable; other negative errno. */
int v8_detect_object(int fd, const char *name, struct v8_object_info *info);

struct proc_snapshot;
struct interp_plain;

/*
 * V8's code ranges in the mappings of process pid (read from proc_root/PID/maps) into out
 * (out->code, out->n_code): each anonymous executable mapping and the mappings that follow it
 * without a gap, anonymous (the reservation V8 commits code pages from) or of the file V8 is
 * in (the builtins it copies next to its code: ino), at most CP_V8_CODE_RANGE_MAX bytes each,
 * added to those out holds (a range no longer mapped stays: samples taken in it are merged
 * later; at most CP_V8_CODE_RANGES). 1 when out changed, 0 when not, -EAGAIN (none yet: V8
 * maps them as it starts), or -errno.
 */
int v8_code_ranges(const char *proc_root, uint32_t pid, uint64_t ino, struct cp_v8_proc *out);
#define CP_V8_CODE_RANGE_MAX (4ull << 30)

/*
 * The V8 of (pid, gen): out filled for BPF (its code ranges too, none when V8 has mapped none
 * yet: v8_code_ranges later). 0, -ENOENT, -ENOTSUP, other negative errno.
 */
int v8_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_v8_proc *out);

#endif
