#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Time cpuprof symbolize (default threads, and -j 1), addr2line -f -i -C and llvm-symbolizer on
one object and one address list, cold (a new process per run, all parsing included; the page
cache is warm), interleaved, REPS runs each; print median wall and CPU time, rate and peak RSS,
each cpuprof's ratio to each peer, and the agreement of cpuprof's answers with llvm-symbolizer's
(compare.py). The load average is printed too: on a busy machine wall times stretch, and the
CPU times (user + system) are the steadier figure.
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
    ("cpuprof -j 1", [cpuprof, "symbolize", "-j", "1", "-e", obj]),
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
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

with open(obj, "rb") as f:  # warm the page cache: every tool reads the same bytes
    while f.read(1 << 20):
        pass
def fname(t):
    return os.path.join(outdir, f"{name}.{t}.out".replace(" ", "_"))

res = {t: [] for t, _ in tools}
cpu = {t: [] for t, _ in tools}
rss = {t: 0 for t, _ in tools}
load0 = os.getloadavg()[0]
for _ in range(reps):
    for t, cmd in tools:
        w, c, m = run(cmd, fname(t))
        res[t].append(w)
        cpu[t].append(c)
        rss[t] = max(rss[t], m)
med = {t: statistics.median(v) for t, v in res.items()}
mcpu = {t: statistics.median(v) for t, v in cpu.items()}
size = os.path.getsize(obj)
print(f"{name}: {os.path.basename(obj)} ({size / 1e6:.1f} MB), {n} addresses, "
      f"median of {reps} cold runs, load average {load0:.1f} before, "
      f"{os.getloadavg()[0]:.1f} after, {os.cpu_count()} CPUs")
for t, _ in tools:
    print(f"  {t:16s} wall {med[t]:7.3f} s  {n / med[t] / 1000:8.1f} k addr/s  "
          f"cpu {mcpu[t]:7.3f} s  peak RSS {rss[t] / 1024:6.1f} MB   (wall runs: "
          + ", ".join(f"{w:.3f}" for w in res[t]) + ")")
peers = ("addr2line", "llvm-symbolizer")
best = min(peers, key=lambda t: med[t])
for me, target in (("cpuprof", 2.0), ("cpuprof -j 1", 1.5)):
    print(f"  ratio ({me}), wall: " +
          ", ".join(f"{med[p] / med[me]:.2f}x {p}" for p in peers) +
          f"; vs the faster ({best}): {med[best] / med[me]:.2f}x (target >= {target}x); "
          "cpu: " + ", ".join(f"{mcpu[p] / mcpu[me]:.2f}x {p}" for p in peers))
sys.stdout.flush()
for me in ("cpuprof", "cpuprof -j 1"):
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare.py"),
                    fname(me), fname("llvm-symbolizer"), addrs, me])
