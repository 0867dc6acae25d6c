#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the libFuzzer harnesses of tests/fuzz/ (make fuzz), or name the seed inputs of one.
#   scripts/fuzz.sh FUZZ_DIR SECONDS FIXTURE_DIR NAME...   fuzz each NAME for SECONDS
#                                                           (or FUZZ_RUNS executions, if set)
#   scripts/fuzz.sh --seeds NAME FIXTURE_DIR                print NAME's seed files
# Seeds are real files: the fixture objects (ELF targets), tests/data and this machine's
# /proc files (text targets), hostile names written by hand (tests/fuzz/seeds/: the escapers).
# Crashes go to FUZZ_DIR/crashes/; each run prints its executions.
set -u
cd "$(dirname "$0")/.." || exit 1

seeds() {
	local name=$1 fix=$2
	case $name in
	unwind_table | elf_syms | dwarf_index | debug_find | elf_unpack)
		for f in unw_nofp unw_fp unw_dbgframe inl_fix inl_fix.mini inl_fix.zlib \
			inl_fix.stripped inl_fix.debug libcpfix.so fix_nopie go_cgo_s; do
			[ -f "$fix/$f" ] && echo "$fix/$f"
		done
		;;
	gopclntab)
		for f in go_tree_s go_tree_pie go_cgo_s go_cgo_pie; do
			[ -f "$fix/$f" ] && echo "$fix/$f"
		done
		;;
	proc_maps) ls tests/data/maps_*.txt ;;
	ksyms) ls tests/data/kallsyms_*.txt ;;
	perfmap) ls tests/data/perfmap_*.txt ;;
	input) ls tests/data/go_cpu.pb.gz tests/fuzz/seeds/input/* ;;
	utf8safe | json_html | svg_escape) ls tests/fuzz/seeds/"$name"/* ;;
	*) echo "fuzz.sh: no seeds for $name" >&2 ;;
	esac
}

if [ "${1:-}" = --seeds ]; then
	seeds "$2" "$3"
	exit 0
fi

dir=$1 secs=$2 fix=$3
shift 3
mkdir -p "$dir/crashes"
status=0
for name in "$@"; do
	corpus=$dir/corpus/$name
	mkdir -p "$corpus"
	for f in $(seeds "$name" "$fix") tests/fuzz/regress/"$name"/*; do
		[ -f "$f" ] && cp -f "$f" "$corpus/seed-$(basename "$f")"
	done
	case $name in
	proc_maps) cat /proc/self/maps >"$corpus/seed-self-maps" ;;
	ksyms) head -c 200000 /proc/kallsyms >"$corpus/seed-kallsyms" ;;
	esac
	log=$dir/$name.log
	"$dir/fuzz_$name" -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/crashes/$name-" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	if [ "$rc" -ne 0 ]; then
		echo "  FUZZ     $name: FAILED after ${execs:-?} executions (see $log)"
		grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log"
		status=1
	else
		t=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
		echo "  FUZZ     $name: ${execs:-?} executions in ${t:-$secs} s (${speed:-?}/s), 0 crashes"
	fi
done
exit $status
