/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry point every harness under tests/fuzz/ defines: libFuzzer calls it (make fuzz),
 * and standalone.c calls it on the files of the regression corpus (make check).
 */
#ifndef CPUPROF_FUZZ_H
#define CPUPROF_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
