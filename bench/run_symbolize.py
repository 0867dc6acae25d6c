#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Time cpuprof symbolize, addr2line -f -i -C and llvm-symbolizer on one object and one address
list, cold (a new process per run, all parsing included; the page cache is warm), interleaved,
REPS runs each; print median wall time, rate and peak RSS, the ratios, and the agreement of
cpuprof's answers with llvm-symbolizer's (compare.py).
usage: run_symbolize.py NAME CPUPROF OBJECT ADDRS OUTDIR [REPS]"""
import os
import statistics
import subprocess
import sys
import time

name, cpuprof, obj, addrs, outdir = sys.argv[1:6]
reps = int(sys.argv[6]) if len(sys.argv) > 6 else 3
llvm = os.environ.get("LLVM_SYMBOLIZER", "llvm-symbolizer-14")
tools = [
    ("cpuprof", [cpuprof, "symbolize", "-e", obj]),
    ("addr2line", ["addr2line", "-f", "-i", "-C", "-e", obj]),
    ("llvm-symbolizer", [llvm, "--obj=" + obj]),
]
n = sum(1 for l in open(addrs) if l.strip())

def run(cmd, out):
    with open(addrs) as fin, open(out, "w") as fout:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
    if status != 0:
        sys.exit(f"{cmd[0]} failed (status {status}): {err}")
    return wall, ru.ru_maxrss

with open(obj, "rb") as f:  # warm the page cache: every tool reads the same bytes
    while f.read(1 << 20):
        pass
res = {t: [] for t, _ in tools}
rss = {t: 0 for t, _ in tools}
for _ in range(reps):
    for t, cmd in tools:
        w, m = run(cmd, os.path.join(outdir, f"{name}.{t}.out"))
        res[t].append(w)
        rss[t] = max(rss[t], m)
med = {t: statistics.median(v) for t, v in res.items()}
size = os.path.getsize(obj)
print(f"{name}: {os.path.basename(obj)} ({size / 1e6:.1f} MB), {n} addresses, "
      f"median of {reps} cold runs")
for t, _ in tools:
    print(f"  {t:16s} {med[t]:7.3f} s  {n / med[t] / 1000:8.1f} k addr/s  "
          f"peak RSS {rss[t] / 1024:6.1f} MB   (runs: "
          + ", ".join(f"{w:.3f}" for w in res[t]) + ")")
best = min(("addr2line", "llvm-symbolizer"), key=lambda t: med[t])
print(f"  ratio: cpuprof is {med['addr2line'] / med['cpuprof']:.2f}x addr2line, "
      f"{med['llvm-symbolizer'] / med['cpuprof']:.2f}x llvm-symbolizer; "
      f"vs the faster ({best}): {med[best] / med['cpuprof']:.2f}x (target >= 1.5x)")
sys.stdout.flush()
subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare.py"),
                os.path.join(outdir, f"{name}.cpuprof.out"),
                os.path.join(outdir, f"{name}.llvm-symbolizer.out"), addrs])
