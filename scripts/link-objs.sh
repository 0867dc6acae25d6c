#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the module objects a unit test links: those whose headers the test's object includes,
# and, in turn, those that each of these modules includes, read from the compiler's dependency
# files (-MMD). A header src/STAGE/x.h brings O/src/STAGE/x.o when src/STAGE/x.c exists.
# Usage: scripts/link-objs.sh O TEST_OBJECT     (O: the build directory, e.g. build/rel)
set -eu
O=$1
queue=("${2%.o}.d")
seen=""
i=0
while [ "$i" -lt "${#queue[@]}" ]; do
	d=${queue[$i]}
	i=$((i + 1))
	if [ ! -f "$d" ]; then
		echo "link-objs: $d is missing (build the object first)" >&2
		exit 1
	fi
	for h in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$d" | tr ' ' '\n' |
		grep -E '^src/[a-z0-9_]+/[a-z0-9_]+\.h$' | sort -u); do
		c=${h%.h}.c
		[ -f "$c" ] || continue
		o="$O/${c%.c}.o"
		case " $seen " in *" $o "*) continue ;; esac
		seen="$seen $o"
		queue+=("${o%.o}.d")
	done
	# generated protobuf-c decoders: build/gen/x.pb-c.h brings O/gen/x.pb-c.o
	for h in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$d" | tr ' ' '\n' |
		grep -E '^build/gen/[a-z0-9_]+\.pb-c\.h$' | sort -u); do
		o="$O/gen/$(basename "${h%.h}").o"
		case " $seen " in *" $o "*) continue ;; esac
		seen="$seen $o"
	done
done
echo $seen
