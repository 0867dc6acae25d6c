/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot (OpenJDK's JVM) in a process: is an object libjvm.so (it exports gHotSpotVMStructs,
 * gHotSpotVMTypes and the globals describing their entries' layout), and, from the live
 * process once the JVM has initialised (those globals are in .bss, filled at start-up), the
 * JVM's version, the offsets of its structures and where its CodeCache is: what the JIT hook's
 * step needs (bpf/hotspot_shared.h struct cp_hs_proc). Nothing is hard-coded per version: the
 * JVM describes itself; a JVM whose description lacks a field is refused (-ENOTSUP, why says
 * which).
 */
#ifndef CPUPROF_HS_DETECT_H
#define CPUPROF_HS_DETECT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "hotspot_shared.h"

/* The file vaddrs of libjvm.so's self-description. */
struct hs_object_info {
	uint64_t structs, types; /* gHotSpotVMStructs, gHotSpotVMTypes: pointers to the tables */
	/* gHotSpotVMStructEntry{ArrayStride, TypeNameOffset, FieldNameOffset, IsStaticOffset,
	 * OffsetOffset, AddressOffset}: u64 each */
	uint64_t s_stride, s_type, s_field, s_static, s_offset, s_address;
	/* gHotSpotVMTypeEntry{ArrayStride, TypeNameOffset, SizeOffset} */
	uint64_t t_stride, t_type, t_size;
};

/* What naming a method's lines needs besides cp_hs_proc (user space only). */
struct hs_line_offsets {
	uint16_t cm_flags;     /* ConstMethod._flags: u16 (JDK 9-20) */
	uint16_t cm_code_size; /* ConstMethod._code_size: u16, the bytecodes' length */
	int ok;		       /* both there, and the flags' layout known: lines can be read */
};

/* Whether the object open on fd (named name) is libjvm.so: 0 with *info; -ENOENT not. */
int hs_detect_object(int fd, const char *name, struct hs_object_info *info);

/*
 * Read the JVM's self-description from process pid (libjvm at bias) into *out, and *lines
 * (may be NULL). 0; -EAGAIN
 * not initialised yet (try later); -ENOTSUP a field or type the step needs is missing, or a
 * version not handled (why says which); -ESRCH, -EFAULT...
 */
int hs_read_vm(pid_t pid, uint64_t bias, const struct hs_object_info *info, struct cp_hs_proc *out,
	       struct hs_line_offsets *lines, char *why, size_t why_size);

struct proc_snapshot;
struct interp_plain;

/* The JVM of (pid, gen) of ps: hs_detect_object on its objects, then hs_read_vm. */
int hs_detect_process(struct proc_snapshot *ps, uint32_t pid, uint32_t gen,
		      struct interp_plain *plain, struct cp_hs_proc *out,
		      struct hs_line_offsets *lines, char *why, size_t why_size);

#endif
