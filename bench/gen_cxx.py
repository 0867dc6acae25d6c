#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a large C++ program for the symbolizer benchmark: NTU translation units, each a
namespace with class templates over std::vector / std::map / std::string, member functions,
small inline helpers and std::sort with lambdas, instantiated for several types.
Deterministic: the same arguments give the same sources."""
import os
import random
import sys

out, ntu, ncls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(4321)
os.makedirs(out, exist_ok=True)
TYPES = ["int", "long", "double", "unsigned", "short"]

with open(os.path.join(out, "common.hpp"), "w") as f:
    f.write("""#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <vector>
namespace bench {
extern volatile long sink;
template <typename T> inline T mix(T x, int k) { return static_cast<T>(x * 3 + k) ; }
inline long fold(long a, long b) { return (a ^ (b << 3)) + (a >> 2); }
}
""")
    for t in range(ntu):
        f.write(f"namespace tu{t} {{ long run(int n); }}\n")

for t in range(ntu):
    L = ['#include "common.hpp"', f"namespace tu{t} {{", "namespace {",
         "inline long scale(long v, int k) { return bench::fold(v, k) * 2 + k; }", "}"]
    for c in range(ncls):
        L += [f"template <typename T> class Box{c} {{", "public:",
              f"\texplicit Box{c}(int n) : v_(static_cast<size_t>(n)) {{",
              "\t\tfor (size_t i = 0; i < v_.size(); i++)",
              "\t\t\tv_[i] = bench::mix<T>(static_cast<T>(i), " + str(c) + ");", "\t}",
              "\tinline T sum() const {", "\t\tT s{};",
              "\t\tfor (const T &x : v_)", "\t\t\ts += bench::mix(x, 1);", "\t\treturn s;", "\t}",
              "\tvoid sort_desc() {",
              "\t\tstd::sort(v_.begin(), v_.end(), [](const T &a, const T &b) { return a > b; });",
              "\t}",
              "\tstd::string label(int k) const {",
              f'\t\tstd::string s = "box{c}_";', "\t\ts += std::to_string(k);",
              "\t\treturn s;", "\t}",
              "\tlong tally(int k) {", "\t\tstd::map<int, T> m;",
              "\t\tfor (int i = 0; i < k; i++)",
              "\t\t\tm[i % 7] += bench::mix<T>(static_cast<T>(i), k);",
              "\t\tlong r = 0;", "\t\tfor (auto &p : m)",
              "\t\t\tr += scale(static_cast<long>(p.second), p.first);",
              "\t\treturn r + static_cast<long>(label(k).size());", "\t}",
              "private:", "\tstd::vector<T> v_;", "};", ""]
        L += [f"template <typename T> long drive{c}(int n)", "{",
              f"\tBox{c}<T> b(n);", "\tb.sort_desc();",
              "\treturn static_cast<long>(b.sum()) + b.tally(n);", "}", ""]
    L += ["long run(int n)", "{", "\tlong r = 0;"]
    for c in range(ncls):
        for ty in rnd.sample(TYPES, 2):
            L.append(f"\tr += drive{c}<{ty}>(n + {c});")
    L += ["\treturn r;", "}", "}", ""]
    with open(os.path.join(out, f"tu{t}.cpp"), "w") as f:
        f.write("\n".join(L))

with open(os.path.join(out, "main.cpp"), "w") as f:
    f.write('#include <cstdio>\n#include "common.hpp"\nvolatile long bench::sink;\n'
            "int main(int argc, char **)\n{\n\tlong r = 0;\n")
    for t in range(ntu):
        f.write(f"\tr += tu{t}::run(argc);\n")
    f.write('\tstd::printf("%ld\\n", r);\n\treturn 0;\n}\n')
