#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Includes flow down the stages only. Each folder of src/ is one stage of the pipeline; a file
# may include headers of its own stage and of the stages listed for it below, and nothing else
# (no writer includes the unwinder, no unwinder the symbolizer...). Every project include is
# written with its stage ("util/log.h"), except bpf/shared.h, bpf/runtime_shared.h and the
# runtimes' bpf/*_shared.h (the contracts), the generated skeleton and cmd/commands.h. Only cmd/ and src/session/ may print
# (include util/log.h): the lower stages return errors. Run by make check; prints each
# violation and fails on any.
# Usage: scripts/check-layers.sh [-v]
cd "$(dirname "$0")/.." || exit 1

# stage: the stages it may include besides itself, bottom up. bpf = bpf/shared.h, gen = the
# generated headers: the skeleton that only the BPF loader includes, and the protobuf-c
# decoder of the pprof reader (input). input reads profiles back into the profile stage's
# model (cpuprof report/diff): below output and session, which take what it builds.
declare -A may=(
	[util]=""
	[elf]="util"
	[proc]="util elf"
	[unwind]="util elf proc bpf"
	[symbol]="util elf proc"
	[interp]="util elf proc bpf"
	[profile]="util elf proc symbol interp bpf"
	[input]="util profile gen"
	[output]="util profile"
	[session]="util elf proc unwind symbol interp profile input output bpf gen"
	[cmd]="util elf proc unwind symbol interp profile input output session bpf"
)

bad=0 n=0
for f in src/*/*.[ch] cmd/*.[ch]; do
	stage=${f#src/}
	stage=${stage%%/*}
	[ "${f%%/*}" = cmd ] && stage=cmd
	if [ -z "${may[$stage]+set}" ]; then
		echo "check-layers: $f: src/$stage/ is no stage; add it to scripts/check-layers.sh" >&2
		bad=$((bad + 1))
		continue
	fi
	while IFS= read -r inc; do
		n=$((n + 1))
		case $inc in
		*shared.h) to=bpf ;;
		*.skel.h | *.pb-c.h) to=gen ;;
		commands.h) to=cmd ;;
		*/*)
			to=${inc%%/*}
			if [ ! -f "src/$inc" ]; then
				echo "check-layers: $f includes \"$inc\": no src/$inc" >&2
				bad=$((bad + 1))
				continue
			fi
			;;
		*)
			echo "check-layers: $f includes \"$inc\": name its stage (\"STAGE/$inc\")" >&2
			bad=$((bad + 1))
			continue
			;;
		esac
		if [ "$inc" = util/log.h ] && [ "$stage" != session ] && [ "$stage" != cmd ] &&
			[ "$f" != src/util/log.c ]; then
			echo "check-layers: $f includes \"util/log.h\": only cmd/ and src/session/ print" >&2
			bad=$((bad + 1))
			continue
		fi
		[ "$to" = "$stage" ] && continue
		case " ${may[$stage]} " in
		*" $to "*) ;;
		*)
			echo "check-layers: $f ($stage) includes \"$inc\" ($to): $stage may include only: ${may[$stage]:-nothing}" >&2
			bad=$((bad + 1))
			;;
		esac
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

# The runtime layer (src/interp/README.md): a runtime's own code (src/interp/X_*, its contract
# bpf/NAME_shared.h) is included only by that runtime's files; everything else reaches it through
# the table (interp/runtime.h). X: py (python), rb (ruby), php (php), pl (perl), v8 (v8), hs (hotspot).
declare -A rt_of_contract=([python_shared.h]=py [ruby_shared.h]=rb [php_shared.h]=php [perl_shared.h]=pl [v8_shared.h]=v8 [hotspot_shared.h]=hs)
for f in src/*/*.[ch] cmd/*.[ch]; do
	mine=
	case $f in
	src/interp/py_* | src/interp/rb_* | src/interp/php_* | src/interp/pl_* | src/interp/v8_* | src/interp/hs_*)
		mine=${f#src/interp/}
		mine=${mine%%_*}
		;;
	esac
	while IFS= read -r inc; do
		case $inc in
		interp/py_* | interp/rb_* | interp/php_* | interp/pl_* | interp/v8_* | interp/hs_*)
			rt=${inc#interp/}
			rt=${rt%%_*}
			;;
		*_shared.h)
			rt=${rt_of_contract[$inc]:-}
			;;
		*) rt= ;;
		esac
		[ -z "$rt" ] && continue
		# the table names each descriptor (interp/X_runtime.h) and nothing else of it
		[ "$f" = src/interp/runtime.c ] && [ "$inc" = "interp/${rt}_runtime.h" ] && continue
		if [ "$rt" != "$mine" ]; then
			echo "check-layers: $f includes \"$inc\": runtime $rt's own code is reached through the table (interp/runtime.h) only" >&2
			bad=$((bad + 1))
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
[ "${1:-}" = -v ] && echo "check-layers: $n includes checked, $bad against the stages"
[ "$bad" -eq 0 ]
