#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print N addresses (0x-hex, one a line) drawn uniformly over the bytes of the sized function
symbols (STT_FUNC) of SYMFILE's .symtab, with a fixed seed. Reads the table with readelf."""
import random
import subprocess
import sys

symfile, n = sys.argv[1], int(sys.argv[2])
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 42
out = subprocess.run(["readelf", "-sW", symfile], capture_output=True, text=True).stdout
funcs = {}
section = None
for line in out.splitlines():
    if line.startswith("Symbol table"):
        section = ".symtab" if "'.symtab'" in line else "other"
        continue
    f = line.split()
    if section != ".symtab" or len(f) < 8 or f[3] != "FUNC" or f[6] == "UND":
        continue
    addr, size = int(f[1], 16), int(f[2], 0)
    if size > 0 and addr:
        funcs[addr] = max(size, funcs.get(addr, 0))
spans = sorted(funcs.items())
total = sum(s for _, s in spans)
rnd = random.Random(seed)
cum = []
acc = 0
for a, s in spans:
    acc += s
    cum.append(acc)
import bisect
for _ in range(n):
    x = rnd.randrange(total)
    i = bisect.bisect_right(cum, x)
    a, s = spans[i]
    print(hex(a + s - (cum[i] - x)))
