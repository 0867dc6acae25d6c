#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a C++ program shaped unlike gen_c.py and gen_cxx.py for the symbolizer benchmark:
many small translation units (a few functions each), deep template recursion (a chain of
class templates instantiated DEPTH levels deep, each level an inline call), meant to be built
with -flto so that the link-time compiler inlines across units and writes its own CUs that
refer back to the early-debug CUs of the sources. Deterministic: the same arguments give the
same sources. usage: gen_lto.py OUT NTU DEPTH"""
import os
import random
import sys

out, ntu, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(777)
os.makedirs(out, exist_ok=True)

with open(os.path.join(out, "deep.hpp"), "w") as f:
    f.write("""#pragma once
#include <array>
#include <cstddef>
namespace deep {
extern volatile long sink;
template <typename T, int N> struct Level {
\tstatic inline T step(T x, int k)
\t{
\t\tT y = Level<T, N - 1>::step(x * 3 + static_cast<T>(N), k + 1);
\t\tif (y > static_cast<T>(k * N))
\t\t\ty -= static_cast<T>(k);
\t\treturn y;
\t}
};
template <typename T> struct Level<T, 0> {
\tstatic inline T step(T x, int k) { return x ^ static_cast<T>(k); }
};
template <typename T, std::size_t M> struct Grid {
\tstd::array<T, M> cells{};
\ttemplate <typename F> inline void each(F f)
\t{
\t\tfor (std::size_t i = 0; i < M; i++)
\t\t\tcells[i] = f(cells[i], static_cast<int>(i));
\t}
};
long entry(int tu, int n);
""")
    for t in range(ntu):
        f.write(f"long u{t}(int n);\n")
    f.write("}\n")

TYPES = ["int", "long", "unsigned", "short", "unsigned long"]
for t in range(ntu):
    L = ['#include "deep.hpp"', "namespace deep {", "namespace {"]
    nf = rnd.randint(2, 4)
    for i in range(nf):
        ty = rnd.choice(TYPES)
        d = rnd.randint(depth // 2, depth)
        m = rnd.randint(3, 9)
        L += [f"template <typename T> T work{i}(T seed, int n)", "{",
              f"\tGrid<T, {m}> g;",
              f"\tg.each([&](T c, int k) {{ return Level<T, {d}>::step(c + seed, k + n); }});",
              "\tT s{};", "\tfor (auto c : g.cells)", "\t\ts += c;", "\treturn s;", "}"]
        L.append(f"__attribute__((noinline)) long f{i}(int n) {{ return static_cast<long>(work{i}<{ty}>(static_cast<{ty}>(n), n)); }}")
    L += ["}", f"long u{t}(int n)", "{", "\tlong r = 0;"]
    for i in range(nf):
        L.append(f"\tr += f{i}(n + {i});")
    if t + 1 < ntu and rnd.random() < 0.5:
        L.append(f"\tif (n < 0)\n\t\tr += u{t + 1}(n + 1);")
    L += ["\treturn r;", "}", "}", ""]
    with open(os.path.join(out, f"u{t}.cpp"), "w") as f:
        f.write("\n".join(L))

with open(os.path.join(out, "main.cpp"), "w") as f:
    f.write('#include <cstdio>\n#include "deep.hpp"\nvolatile long deep::sink;\n'
            "int main(int argc, char **)\n{\n\tlong r = 0;\n")
    for t in range(ntu):
        f.write(f"\tr += deep::u{t}(argc);\n")
    f.write('\tstd::printf("%ld\\n", r);\n\treturn 0;\n}\n')
