#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-cargo: `cpuprof record -- cargo build --release` of a generated crate with a few
# local path dependencies (bench/gen_rust_crate.py: no registry, no network), cold (target
# removed before each build). Prints, per run and as medians: the share of user stacks complete
# (the summary's figure), and for rustc's samples: the share of its user stacks complete (the
# same rule), the share of its user frames named (not
# object+0xOFFSET), and the samples with a frame of rustc itself (rustc_*) named. Asserts
# nothing; exits non-zero only when something cannot run. Needs root.
#
# usage: cargo.sh CPUPROF OUT
# env: BENCH_ROUNDS (3) builds per binary; BENCH_OLD another cpuprof to compare, runs
#      interleaved (e.g. main's); BENCH_FREQ (999) Hz; BENCH_CRATE_ARGS gen_rust_crate.py's
#      options (default: 3 dependencies, 3 modules each and in the binary, 4 generic
#      functions a module: rustc works about 14 CPU seconds)
set -euo pipefail

OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
FREQ=${BENCH_FREQ:-999}

die() { echo "bench-cargo: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events)"
command -v python3 >/dev/null || die "python3 not found: run scripts/install-bench-deps.sh"
# cargo from PATH, else rustup's default place (root's, or the sudo user's)
for d in "" "$HOME/.cargo/bin" ${SUDO_USER:+"$(getent passwd "$SUDO_USER" | cut -d: -f6)/.cargo/bin"}; do
	[ -n "$d" ] && PATH=$PATH:$d
	command -v cargo >/dev/null && command -v rustc >/dev/null && break
done
command -v cargo >/dev/null && command -v rustc >/dev/null ||
	die "cargo and rustc not found in PATH or ~/.cargo/bin: install a Rust toolchain (rustup, or Debian's cargo)"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
# copies, as the build may be redone meanwhile
install -m 0755 "$1" "$OUT/cpuprof.new"
BINS=(new)
if [ -n "${BENCH_OLD:-}" ]; then
	install -m 0755 "$BENCH_OLD" "$OUT/cpuprof.old"
	BINS=(old new)
fi
CRATE=$OUT/crate
rm -rf "$CRATE"
# shellcheck disable=SC2086
python3 "$HERE/gen_rust_crate.py" "$CRATE" ${BENCH_CRATE_ARGS:-}
echo "bench-cargo: $(rustc --version), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  crate: $(find "$CRATE" -name '*.rs' | wc -l) modules in $(find "$CRATE" -name Cargo.toml | wc -l) packages"

# figures FOLDED: rustc samples with a user stack, of which complete (the summary's rule: the
# first frame is an entry point, man page); rustc user frames, of which named; rustc samples
# with a rustc_* frame
figures() {
	python3 - "$1" <<'PY'
import re, sys
ENTRY = {"_start", "__libc_start_main", "__libc_start_call_main", "_dl_start_user",
         "start_thread", "clone3", "__clone3", "clone", "__clone"}
samples = whole = frames = named = own = 0
raw = re.compile(r"\+0x[0-9a-f]+$")
for line in open(sys.argv[1], errors="replace"):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    fr = stack.split(";")
    if fr[0] != "rustc" or len(fr) < 2 or fr[1].endswith("_[k]"):
        continue
    n = int(n)
    samples += n
    user = [f for f in fr[1:] if not f.endswith("_[k]") and not f.startswith("[")]
    if fr[1] in ENTRY:
        whole += n
    frames += n * len(user)
    named += n * sum(1 for f in user if not raw.search(f) and f != "[unknown]")
    if any("rustc_" in f for f in user):
        own += n
print(samples, whole, frames, named, own)
PY
}

declare -A COMPLETE RWHOLE RNAMED ROWN
for ((i = 1; i <= ROUNDS; i++)); do
	for b in "${BINS[@]}"; do
		rm -rf "$OUT/target"
		(cd "$CRATE" && CARGO_TARGET_DIR=$OUT/target "$OUT/cpuprof.$b" record -F "$FREQ" \
			-o "$OUT/$b-$i.folded" -- cargo build --release --offline -q) 2>"$OUT/$b-$i.err" ||
			die "$b run $i failed: $(cat "$OUT/$b-$i.err")"
		c=$(sed -n 's/.*; \([0-9.]*\)% of user stacks complete.*/\1/p' "$OUT/$b-$i.err" | tail -1)
		read -r s w f n o < <(figures "$OUT/$b-$i.folded")
		[ "$s" -gt 0 ] || die "$b run $i: no rustc sample: $(cat "$OUT/$b-$i.err")"
		rw=$(awk -v a="$w" -v b="$s" 'BEGIN { printf "%.1f", 100 * a / b }')
		rn=$(awk -v a="$n" -v b="$f" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
		ro=$(awk -v a="$o" -v b="$s" 'BEGIN { printf "%.1f", 100 * a / b }')
		COMPLETE[$b]+="${c:-0} " RWHOLE[$b]+="$rw " RNAMED[$b]+="$rn " ROWN[$b]+="$ro "
		echo "  $b run $i: ${c:-?}% of user stacks complete; rustc: $s samples, $rw% of its user stacks complete, $rn% of its user frames named, $ro% with a rustc_* frame"
		left=$(grep 'unwind tables left out' "$OUT/$b-$i.err" || true)
		[ -z "$left" ] || echo "    $left"
	done
done
med() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
for b in "${BINS[@]}"; do
	echo "  $b median (range) of $ROUNDS: user stacks complete $(med "${COMPLETE[$b]}") %; rustc user stacks complete $(med "${RWHOLE[$b]}") %, frames named $(med "${RNAMED[$b]}") %, with a rustc_* frame $(med "${ROWN[$b]}") %"
done
