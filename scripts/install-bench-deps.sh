#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian packages that only the benchmarks need (on top of install-deps.sh): libc's debug file,
# the tools compared against (perf, llvm-symbolizer), the C++ compiler and python3 for the
# generators, bpftool and jq for the BPF program statistics of bench/unwind.sh, GNU time for the
# CPU and peak RSS of the profilers in bench/system.sh.
# Idempotent: prints nothing and touches nothing when all packages are present.
set -eu
exec "$(dirname "$0")/install-deps.sh" libc6-dbg binutils llvm-14 g++ python3 xz-utils \
	linux-perf bpftool jq time
