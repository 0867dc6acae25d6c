#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian packages that only make bench-symbolize needs (on top of install-deps.sh): libc's
# debug file, the tools compared against, the C++ compiler and python3 for the generators.
# Idempotent: prints nothing and touches nothing when all packages are present.
set -eu

PKGS="libc6-dbg binutils llvm-14 g++ python3 xz-utils"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "cpuprof: missing packages:$missing; run 'sudo $0' or install them with apt-get" >&2
	exit 1
fi

echo "cpuprof: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
