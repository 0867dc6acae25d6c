#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the top N functions of a folded profile: self (the leaf frame) and inclusive (the
function anywhere in the stack, counted once per stack), as shares of all samples.
usage: folded_top.py FILE [N]"""
import collections
import sys

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
self_, incl = collections.Counter(), collections.Counter()
total = 0
for line in open(path, errors="replace"):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    if not stack:
        continue
    c = int(count)
    frames = stack.split(";")
    total += c
    self_[frames[-1]] += c
    for f in set(frames[1:]):
        incl[f] += c
print(f"{path}: {total} samples")
for title, counter in (("self", self_), ("inclusive", incl)):
    print(f"  top {n}, {title}:")
    for f, c in counter.most_common(n):
        print(f"    {100.0 * c / total:5.1f} %  {f[:110]}")
