#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Java sources for javac to compile (bench/java.sh): DIR CLASSES METHODS."""
import os
import sys


def main():
    out, classes, methods = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for k in range(classes):
        with open(os.path.join(out, f"Gen{k}.java"), "w", encoding="ascii") as f:
            f.write(f"package gen;\nimport java.util.*;\npublic class Gen{k} {{\n")
            for m in range(methods):
                f.write(
                    f"  public static int m{m}(List<Integer> xs, Map<String, Integer> mp) {{\n"
                    f"    int s = {m};\n"
                    f"    for (Integer x : xs) {{ s += x * {m + 1}; mp.put(\"k\" + s, s); }}\n"
                    f"    return s + (mp.containsKey(\"z{m}\") ? 1 : 0);\n  }}\n")
            f.write("}\n")


if __name__ == "__main__":
    main()
