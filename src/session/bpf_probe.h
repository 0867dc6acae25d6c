/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For `cpuprof check`: whether the kernel accepts each of cpuprof's BPF programs, loaded one
 * at a time (maps at their smallest), and if not, what the verifier said. Nothing here prints.
 */
#ifndef CPUPROF_BPF_PROBE_H
#define CPUPROF_BPF_PROBE_H

/* err: 0 (loaded) or a negative errno; reason: the verifier's last line, "" when none. */
typedef void (*bpf_probe_fn)(const char *prog, int err, const char *reason, void *ctx);

/*
 * Load every program of the BPF object alone and call fn for each, in the object's order.
 * The number of programs that did not load, or a negative errno when the object cannot even
 * be opened.
 */
int bpf_probe_programs(bpf_probe_fn fn, void *ctx);

#endif
