#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-symbolize: build the corpora (once; they are kept under OUT), draw addresses,
# time cpuprof symbolize against addr2line and llvm-symbolizer. usage: symbolize.sh CPUPROF OUT
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
N=${BENCH_ADDRS:-25000}
REPS=${BENCH_REPS:-3}
HERE=$(dirname "$0")
JOBS=$(nproc)
mkdir -p "$OUT"

# Compile every source of DIR with COMPILER into DIR/BIN (-O2 -g and FLAGS), unless the sources,
# made from GENERATOR with the same arguments, are already built with the same flags.
build() {
	dir=$1 bin=$2 compiler=$3 ext=$4 flags=$5
	shift 5
	stamp="$dir/.stamp"
	want="$(cat "$HERE/$1" | md5sum) $* $flags"
	if [ -x "$dir/$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return
	fi
	echo "bench: generating and compiling $dir/$bin (a few minutes, once)" >&2
	rm -rf "$dir"
	python3 "$HERE/$1" "$dir" "$2" "$3"
	(cd "$dir" && ls ./*."$ext" | xargs -P "$JOBS" -n 1 "$compiler" -O2 -g $flags -c &&
		"$compiler" -O2 -g $flags -o "$bin" ./*.o)
	echo "$want" > "$stamp"
}

build "$OUT/c" big_c gcc c "" gen_c.py 40 500
build "$OUT/cxx" big_cxx g++ cpp "" gen_cxx.py 40 12
# many small CUs, deep templates, link-time optimization (CUs that refer to other CUs)
build "$OUT/lto" big_lto g++ cpp "-flto=$JOBS" gen_lto.py 300 16

libc=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')
libc=$(realpath "$libc")
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
libc_dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ ! -f "$libc_dbg" ]; then
	echo "bench: no debug file for $libc (libc6-dbg): $libc_dbg" >&2
	exit 1
fi

python3 "$HERE/pick_addrs.py" "$OUT/c/big_c" "$N" > "$OUT/c.addrs"
python3 "$HERE/pick_addrs.py" "$OUT/cxx/big_cxx" "$N" > "$OUT/cxx.addrs"
python3 "$HERE/pick_addrs.py" "$OUT/lto/big_lto" "$N" > "$OUT/lto.addrs"
python3 "$HERE/pick_addrs.py" "$libc_dbg" "$N" > "$OUT/libc.addrs"

echo "cpuprof symbolize benchmark: $(nproc) CPUs, $(addr2line --version | head -1)," \
	"$(${LLVM_SYMBOLIZER:-llvm-symbolizer-14} --version | grep -i 'llvm version' | sed 's/^ *//')"
python3 "$HERE/run_symbolize.py" C "$CPUPROF" "$OUT/c/big_c" "$OUT/c.addrs" "$OUT" "$REPS"
python3 "$HERE/run_symbolize.py" C++ "$CPUPROF" "$OUT/cxx/big_cxx" "$OUT/cxx.addrs" "$OUT" "$REPS"
python3 "$HERE/run_symbolize.py" "LTO, small CUs" "$CPUPROF" "$OUT/lto/big_lto" "$OUT/lto.addrs" "$OUT" "$REPS"
python3 "$HERE/run_symbolize.py" libc "$CPUPROF" "$libc" "$OUT/libc.addrs" "$OUT" "$REPS"
