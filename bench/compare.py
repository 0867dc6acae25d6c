#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two llvm-symbolizer-layout outputs for the same address list: an address agrees when
its whole frame chain (function, file, line; columns too) is identical. Prints the agreement and
the first differences. A second figure counts as equal the chains that differ only in how the
demangler spells lambdas, unnamed types and clones (libiberty vs LLVM notation), or where
llvm-symbolizer's demangler gave up and printed the mangled name that libiberty (c++filt)
demangles to exactly cpuprof's name."""
import re
import subprocess
import sys

def blocks(path):
    with open(path, errors="replace") as f:
        text = f.read()
    out = []
    for b in text.split("\n\n"):
        lines = b.strip("\n").split("\n")
        if lines == [""]:
            continue
        out.append(lines)
    return out

def notation(s):
    # LLVM: 'lambda'(int) / 'lambda0'(...), 'unnamed', "(.constprop.0)";
    # libiberty: {lambda(int)#1}, {unnamed type#1}, "[clone .constprop.0]"
    s = re.sub(r"\{lambda\((.*?)\)#(\d+)\}",
               lambda m: "'lambda" + ("" if m.group(2) == "1" else str(int(m.group(2)) - 2)) +
               "'(" + m.group(1) + ")", s)
    s = re.sub(r"\{unnamed type#(\d+)\}",
               lambda m: "'unnamed" + ("" if m.group(1) == "1" else str(int(m.group(1)) - 1)) + "'", s)
    s = re.sub(r" \[clone (\.[^\]]+)\]", r" (\1)", s)
    return s

addrs = [l.strip() for l in open(sys.argv[3]) if l.strip()]
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
# names llvm-symbolizer left mangled, demangled once by c++filt (libiberty)
raw = sorted({l for blk in b for l in blk[0::2] if l.startswith("_Z")})
cxxfilt = {}
if raw:
    res = subprocess.run(["c++filt"], input="\n".join(raw) + "\n", capture_output=True,
                         text=True).stdout.split("\n")
    cxxfilt = dict(zip(raw, res))

def llvm_norm(blk):
    return [notation(cxxfilt.get(l, l)) if i % 2 == 0 else l for i, l in enumerate(blk)]

name = sys.argv[4] if len(sys.argv) > 4 else "cpuprof"
if len(a) != len(addrs) or len(b) != len(addrs):
    print(f"  agreement: cannot compare: {len(a)} and {len(b)} answers for {len(addrs)} addresses")
    sys.exit(1)
same = same_norm = 0
diffs = []
for i, (x, y) in enumerate(zip(a, b)):
    if x == y:
        same += 1
        same_norm += 1
        continue
    if [notation(l) for l in x] == llvm_norm(y):
        same_norm += 1
        kind = "notation"
    else:
        kind = "real"
    diffs.append((kind, addrs[i], x, y))
n = len(addrs)
print(f"  agreement with llvm-symbolizer: {same}/{n} = {100.0 * same / n:.3f} % identical "
      f"(function, file, line, column, every inlined frame)")
print(f"  ... counting demangler notation as equal: {same_norm}/{n} = {100.0 * same_norm / n:.3f} % "
      f"({len(diffs) - len([d for d in diffs if d[0] == 'real'])} notation-only)")
real = [d for d in diffs if d[0] == "real"]
for kind, ad, x, y in (real[:8] + [d for d in diffs if d[0] == "notation"][:2]):
    print(f"  differs ({kind}) at {ad}:")
    def short(blk):
        t = " | ".join(blk)
        return t if len(t) < 400 else t[:400] + " ..."
    print(f"    {name}: " + short(x))
    print(f"    llvm-symbolizer: " + short(y))
if len(real) > 8:
    print(f"  ... {len(real) - 8} more real differences")
