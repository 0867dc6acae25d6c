#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a large C program for the symbolizer benchmark: NCU files of NFN functions each,
small static inline helpers (inlined at -O2, several levels deep), calls across files.
Deterministic: the same arguments give the same sources."""
import os
import random
import sys

out, ncu, nfn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(1234)
os.makedirs(out, exist_ok=True)

with open(os.path.join(out, "common.h"), "w") as f:
    f.write("#ifndef BENCH_COMMON_H\n#define BENCH_COMMON_H\n")
    f.write("extern volatile unsigned long bench_sink;\n")
    for k in range(8):
        f.write(f"static inline unsigned long mix{k}(unsigned long x)\n{{\n"
                f"\tx ^= x >> {7 + k};\n\tx *= 0x9e3779b97f4a7c15ul + {k};\n"
                f"\treturn x ^ (x << {3 + k});\n}}\n")
    f.write("static inline unsigned long fold2(unsigned long a, unsigned long b)\n{\n"
            "\treturn mix1(a) + mix2(b ^ a);\n}\n")
    for c in range(ncu):
        for i in range(nfn):
            f.write(f"unsigned long f_{c}_{i}(unsigned long x, int n);\n")
    f.write("#endif\n")

for c in range(ncu):
    lines = ['#include "common.h"', ""]
    for h in range(6):
        lines += [f"static inline unsigned long h{c}_{h}(unsigned long x, int n)", "{",
                  "\tunsigned long acc = x;",
                  f"\tfor (int i = 0; i < (n & {3 + h}); i++)",
                  f"\t\tacc = fold2(acc, (unsigned long)i) + mix{h}(acc);",
                  "\treturn acc;", "}", ""]
    for i in range(nfn):
        h1, h2 = rnd.randrange(6), rnd.randrange(6)
        callee = f"f_{rnd.randrange(ncu)}_{rnd.randrange(nfn)}"
        body = [f"unsigned long f_{c}_{i}(unsigned long x, int n)", "{",
                f"\tunsigned long r = h{c}_{h1}(x, n);"]
        kind = rnd.randrange(4)
        if kind == 0:
            body += ["\tif (n > 2)", f"\t\tr += {callee}(r, n - 3);"]
        elif kind == 1:
            body += ["\tswitch (n & 3) {",
                     f"\tcase 0: r = mix{rnd.randrange(8)}(r); break;",
                     f"\tcase 1: r = h{c}_{h2}(r, n + 1); break;",
                     f"\tcase 2: r ^= {rnd.randrange(1 << 20)}ul; break;",
                     "\tdefault: bench_sink = r;", "\t}"]
        elif kind == 2:
            body += [f"\tfor (int k = 0; k < n; k++)", f"\t\tr = fold2(r, k) + h{c}_{h2}(r, k);"]
        else:
            body += [f"\tr = mix{rnd.randrange(8)}(r) + mix{rnd.randrange(8)}(r + n);"]
        body += ["\treturn r;", "}", ""]
        lines += body
    with open(os.path.join(out, f"cu{c}.c"), "w") as f:
        f.write("\n".join(lines))

with open(os.path.join(out, "main.c"), "w") as f:
    f.write('#include <stdio.h>\n#include "common.h"\nvolatile unsigned long bench_sink;\n'
            "int main(int argc, char **argv)\n{\n\t(void)argv;\n\tunsigned long r = 0;\n")
    for c in range(ncu):
        f.write(f"\tr += f_{c}_0((unsigned long)argc, argc);\n")
    f.write('\tprintf("%lu\\n", r);\n\treturn 0;\n}\n')
